"""CHQ fire resolution as exact distributions: one fire is one chance node.

The firer rolls its dice against a TN (CHQ-3); any success makes the target
roll its Reaction dice; net successes are Disruption; sixes suppress (CHQ-4,
CHQ-5) and unmatched sixes push a disrupted unit further back (CHQ-6). The
result of a fire is therefore a :class:`FireResult` and the fire is a
:class:`~engine.dice.Distribution` over them, which search can enumerate or
sample and planners can turn into expected values.

:func:`fire_outcomes` is the raw chance node on an already effective pool;
:func:`chq_fire_odds` is what callers use: it applies smoke (CHQ-10) and
CHQ-11 with the ruleset's settings and summarises the odds.

Examples
--------
>>> odds = chq_fire_odds(7, 3, 5)
>>> odds.effective_dice, odds.effective_tn
(7, 3)
>>> chq_fire_odds(6, 5, 5, smoke=True).effective_dice  # 5+ through smoke: 7+, lose 1D
5
>>> tot_fire_odds([4, 4, 4], 5).effective_dice
8
>>> comms_odds(4)
Fraction(1, 2)
"""

from __future__ import annotations

import numbers
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any, Iterable

from engine.dice import (
    Distribution,
    combined_fire_dice,
    effective_pool,
    opposed_check,
    successes_and_sixes,
    sum_of_dice,
)
from engine.errors import FireplanError
from engine.rulesets import RulesetData, load_ruleset

__all__ = [
    "FireResult",
    "NO_EFFECT",
    "FireOdds",
    "fire_outcomes",
    "chq_fire_odds",
    "tot_fire_odds",
    "barrage_fire_odds",
    "p_dispersed",
    "comms_odds",
    "supply_odds",
]

_FACES = 6


@dataclass(frozen=True, order=True, slots=True)
class FireResult:
    """What one fire did to its target: the outcome of the fire's chance node.

    ``forced_back`` is in inches and 0 unless the target took Disruption.

    >>> print(FireResult(2, True, 9))
    2 Disruption, suppressed, forced back 9"
    >>> print(NO_EFFECT)
    no effect
    """

    disruption: int
    suppressed: bool
    forced_back: int

    @property
    def has_effect(self) -> bool:
        return bool(self.disruption or self.suppressed)

    def __str__(self) -> str:
        if not self.has_effect:
            return "no effect"
        parts = []
        if self.disruption:
            parts.append(f"{self.disruption} Disruption")
        if self.suppressed:
            parts.append("suppressed")
        if self.forced_back:
            parts.append(f'forced back {self.forced_back}"')
        return ", ".join(parts)


NO_EFFECT = FireResult(0, False, 0)


def _is_whole(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_count(name: str, value: Any) -> int:
    if not _is_whole(value) or value < 0:
        raise FireplanError(f"{name} must be a whole number of dice >= 0, got {value!r}")
    return int(value)


def _check_tn(name: str, value: Any, low: int = 1, high: int = _FACES) -> int:
    if not _is_whole(value) or not low <= value <= high:
        raise FireplanError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    return int(value)


def fire_outcomes(
    dice: int,
    tn: int,
    reaction_dice: int,
    reaction_tn: int = 4,
    high_suppression: bool = False,
    on_miss: bool = False,
    forced_back_base: int = 6,
) -> Distribution[FireResult]:
    """The exact distribution of one fire's result: the chance node of CHQ-3 to CHQ-6.

    The pool is the one actually rolled (after CHQ-11, so ``tn`` is 1..6).
    The firer scores S successes with X sixes. Only if S >= 1 does the target
    roll Reaction (R successes, Y sixes) at ``reaction_tn``; Disruption is
    ``max(0, S - R)`` (CHQ-3). Suppression (CHQ-4): X >= 1 and Y < X. A High
    Suppression weapon (CHQ-5) suppresses unless Y > X, so ties suppress and
    a firer without sixes suppresses a target without sixes. ``on_miss``
    chooses the reading of CHQ-5 for a complete miss: False (our default)
    means a miss forces no Reaction Check and so has no effect; True means
    the target rolls its check anyway and is suppressed unless it rolls a six
    (Y > X = 0). A unit taking Disruption is forced back ``forced_back_base``
    inches plus the sum of one d6 per unmatched six, ``max(0, X - Y)`` (CHQ-6).

    A pool of no dice cannot fire: the result is certainly no effect (the
    user-facing :func:`chq_fire_odds` refuses such a fire instead).

    Examples
    --------
    >>> d = fire_outcomes(1, 4, 0)  # no Reaction dice to save it
    >>> d[NO_EFFECT], d[FireResult(1, False, 6)], d[FireResult(1, True, 7)]
    (Fraction(1, 2), Fraction(1, 3), Fraction(1, 36))
    """
    dice, reaction_dice = _check_count("dice", dice), _check_count("reaction dice", reaction_dice)
    tn, reaction_tn = _check_tn("tn", tn), _check_tn("reaction tn", reaction_tn)
    base = _check_count("forced_back_base", forced_back_base)
    if dice == 0:
        return Distribution.certain(NO_EFFECT)

    # Integer weights over fire_total * react_total equally likely rolls; fractions once at the end.
    fire, fire_total = successes_and_sixes(dice, tn, _FACES).weights()
    react, react_total = successes_and_sixes(reaction_dice, reaction_tn, _FACES).weights()

    # Phase 1: weight of each (disruption, suppressed, unmatched sixes); unmatched only matters with Disruption.
    grouped: dict[tuple[int, bool, int], int] = defaultdict(int)
    for (s, x), w in fire:
        if s == 0 and not (high_suppression and on_miss):
            grouped[(0, False, 0)] += w * react_total  # a miss: no Reaction Check, no effect
            continue
        for (r, y), v in react:
            disruption = max(0, s - r)
            suppressed = y <= x if high_suppression else y < x  # CHQ-5: unless Y > X; CHQ-4: X >= 1 and Y < X
            unmatched = max(0, x - y) if disruption else 0
            grouped[(disruption, suppressed, unmatched)] += w * v

    # Phase 2: spread each disrupted group over its forced-back distances, on a common denominator.
    most = max(unmatched for _, _, unmatched in grouped)
    rolls = {u: sum_of_dice(u, _FACES).weights()[0] for u in {u for _, _, u in grouped}}  # over 6**u
    results: dict[tuple[int, bool, int], int] = defaultdict(int)
    for (disruption, suppressed, unmatched), w in grouped.items():
        if not disruption:
            results[(0, suppressed, 0)] += w * _FACES**most
            continue
        scale = w * _FACES ** (most - unmatched)
        for inches, ways in rolls[unmatched]:
            results[(disruption, suppressed, base + inches)] += scale * ways
    return Distribution.from_weights(
        {FireResult(*key): w for key, w in results.items()}, total=fire_total * react_total * _FACES**most
    )


def p_dispersed(outcomes: Distribution[FireResult], current_disruption: int = 0, cohesion: int = 3) -> Fraction:
    """P(a unit already carrying ``current_disruption`` reaches ``cohesion`` after this fire) (CHQ-6).

    >>> p_dispersed(fire_outcomes(1, 4, 0), current_disruption=2, cohesion=3)
    Fraction(1, 2)
    """
    current = _check_count("current disruption", current_disruption)
    if not _is_whole(cohesion) or cohesion < 1:
        raise FireplanError(f"cohesion must be a whole number >= 1, got {cohesion!r}")
    return outcomes.probability(lambda result: current + result.disruption >= cohesion)


@dataclass(frozen=True)
class FireOdds:
    """The odds of one CHQ fire as asked, as rolled, and summarised.

    ``tn`` and ``reaction_tn`` are the TNs asked for (before smoke and
    CHQ-11); ``effective_*`` is the pool actually rolled. ``outcomes`` is the
    full chance node; the properties summarise it exactly.
    """

    dice: int
    tn: int
    reaction: int
    reaction_tn: int
    smoke_modifier: int
    high_suppression: bool
    on_miss: bool
    effective_dice: int
    effective_tn: int
    effective_reaction: int
    effective_reaction_tn: int
    outcomes: Distribution[FireResult] = field(repr=False)
    cohesion: int = 3

    @cached_property
    def disruption(self) -> tuple[Fraction, ...]:
        """P(Disruption = k) for k = 0 .. effective_dice."""
        table = self.outcomes.map(lambda result: result.disruption)
        return tuple(table.get(k, Fraction(0)) for k in range(self.effective_dice + 1))

    @cached_property
    def p_suppressed(self) -> Fraction:
        return self.outcomes.probability(lambda result: result.suppressed)

    @cached_property
    def p_any_effect(self) -> Fraction:
        """P(Disruption >= 1 or suppressed)."""
        return self.outcomes.probability(lambda result: result.has_effect)

    @cached_property
    def expected_disruption(self) -> Fraction:
        return self.outcomes.expectation(lambda result: result.disruption)

    @cached_property
    def forced_back(self) -> Distribution[int]:
        """Distance forced back in inches; 0 when the target takes no Disruption."""
        return self.outcomes.map(lambda result: result.forced_back)

    @cached_property
    def p_forced_back(self) -> Fraction:
        return self.outcomes.probability(lambda result: result.disruption > 0)

    def p_dispersed(self, current_disruption: int = 0, cohesion: int | None = None) -> Fraction:
        """P(Disruption reaches ``cohesion`` (default: the ruleset's) from ``current_disruption``)."""
        return p_dispersed(self.outcomes, current_disruption, self.cohesion if cohesion is None else cohesion)


def _smoke_modifier(smoke: bool | int, rules: RulesetData) -> int:
    """TN added by smoke: True or a count of screens crossed (CHQ-10, setting smoke_tn_per_screen)."""
    if isinstance(smoke, bool):
        screens = int(smoke)
    elif _is_whole(smoke) and smoke >= 0:
        screens = int(smoke)
    else:
        raise FireplanError(f"smoke must be True/False or a number of screens >= 0, got {smoke!r}")
    if not rules.setting("smoke_tn_per_screen"):
        screens = min(screens, 1)
    return screens * rules.setting("smoke_tn_modifier")


def chq_fire_odds(
    dice: int,
    tn: int,
    reaction: int,
    reaction_tn: int | None = None,
    smoke: bool | int = False,
    high_suppression: bool = False,
    suppressed_target: bool = False,
    *,
    on_miss: bool | None = None,
    rules: RulesetData | None = None,
) -> FireOdds:
    """The exact odds of a CHQ fire of ``dice`` at ``tn`` against ``reaction`` Reaction dice.

    Smoke on the line adds the ruleset's smoke_tn_modifier (CHQ-10); the pool
    then goes through CHQ-11 (max_tn, min_tn), and so does the Reaction pool.
    The Reaction TN defaults to reaction_tn, or reaction_tn_suppressed for a
    target already suppressed (CHQ-3); an explicit ``reaction_tn`` wins.
    ``on_miss`` defaults to the setting high_suppression_on_miss (CHQ-5).

    Raises
    ------
    FireplanError
        For bad counts, or a pool that CHQ-11 leaves with no dice.

    Examples
    --------
    >>> odds = chq_fire_odds(1, 4, 0)
    >>> odds.disruption, odds.p_suppressed
    ((Fraction(1, 2), Fraction(1, 2)), Fraction(1, 6))
    >>> chq_fire_odds(2, 5, 3, smoke=True).effective_dice, chq_fire_odds(2, 5, 3, smoke=True).effective_tn
    (1, 6)
    """
    rules = rules or load_ruleset("chq")
    dice, reaction = _check_count("dice", dice), _check_count("reaction dice", reaction)
    if dice == 0:
        raise FireplanError("a fire needs at least one die, got 0")
    if not _is_whole(tn):
        raise FireplanError(f"tn must be a whole number, got {tn!r}")
    tn = int(tn)
    if reaction_tn is None:
        reaction_tn = rules.setting("reaction_tn_suppressed" if suppressed_target else "reaction_tn")
    elif not _is_whole(reaction_tn):
        raise FireplanError(f"reaction tn must be a whole number, got {reaction_tn!r}")
    reaction_tn = int(reaction_tn)
    if on_miss is None:
        on_miss = rules.setting("high_suppression_on_miss")

    modifier = _smoke_modifier(smoke, rules)
    limits = rules.setting("max_tn"), rules.setting("min_tn")
    rolled_tn = tn + modifier
    effective_dice, effective_tn = effective_pool(dice, rolled_tn, *limits)
    if effective_dice == 0:
        raise FireplanError(
            f"{dice}D at {rolled_tn}+ loses all its dice (one per point of TN over {limits[0]}, CHQ-11)"
            " and cannot fire"
        )
    effective_reaction, effective_reaction_tn = effective_pool(reaction, reaction_tn, *limits)
    outcomes = fire_outcomes(
        effective_dice,
        effective_tn,
        effective_reaction,
        effective_reaction_tn,
        high_suppression=bool(high_suppression),
        on_miss=bool(on_miss),
        forced_back_base=rules.setting("forced_back_base"),
    )
    return FireOdds(
        dice=dice,
        tn=tn,
        reaction=reaction,
        reaction_tn=reaction_tn,
        smoke_modifier=modifier,
        high_suppression=bool(high_suppression),
        on_miss=bool(on_miss),
        effective_dice=effective_dice,
        effective_tn=effective_tn,
        effective_reaction=effective_reaction,
        effective_reaction_tn=effective_reaction_tn,
        outcomes=outcomes,
        cohesion=rules.setting("cohesion"),
    )


def _battery_pool(battery_dice: Iterable[int], fewest: int, what: str) -> int:
    batteries = list(battery_dice)
    if len(batteries) < fewest:
        raise FireplanError(f"{what} needs at least {fewest} batteries, got {len(batteries)}")
    return combined_fire_dice(batteries)


def tot_fire_odds(battery_dice: Iterable[int], reaction: int, tn: int | None = None, **options: Any) -> FireOdds:
    """Odds of a time-on-target mission (CHQ-24): two or more batteries on one template.

    The pool is :func:`~engine.dice.combined_fire_dice` (one battery full,
    the others half rounded up); ``tn`` defaults to the ruleset's indirect_tn;
    ``options`` are those of :func:`chq_fire_odds`.

    >>> tot_fire_odds([4, 4, 4], 5).dice
    8
    """
    rules = options.get("rules") or load_ruleset("chq")
    pool = _battery_pool(battery_dice, 2, "a time-on-target mission")
    return chq_fire_odds(pool, rules.setting("indirect_tn") if tn is None else tn, reaction, **options)


def barrage_fire_odds(battery_dice: Iterable[int], reaction: int, tn: int | None = None, **options: Any) -> FireOdds:
    """Odds of one Initial Barrage group on a Blind (CHQ-27): one or more batteries combined.

    The first battery adds its full Fire dice and each further one half,
    rounded up, as for time-on-target; see :func:`tot_fire_odds`.

    >>> barrage_fire_odds([4], 4).dice, barrage_fire_odds([4, 3, 2], 4).dice
    (4, 7)
    """
    rules = options.get("rules") or load_ruleset("chq")
    pool = _battery_pool(battery_dice, 1, "an initial barrage")
    return chq_fire_odds(pool, rules.setting("indirect_tn") if tn is None else tn, reaction, **options)


def comms_odds(
    response_dice: int | None = None, opposing_dice: int | None = None, *, rules: RulesetData | None = None
) -> Fraction:
    """P(a Comms Check succeeds) (CHQ-18): Artillery Response dice beat the opponent's, both at check_tn.

    Defaults are the settings comms_response_dice and comms_opposing_dice.

    >>> comms_odds(4, 3)
    Fraction(1, 2)
    """
    rules = rules or load_ruleset("chq")
    ours = rules.setting("comms_response_dice") if response_dice is None else response_dice
    theirs = rules.setting("comms_opposing_dice") if opposing_dice is None else opposing_dice
    tn = rules.setting("check_tn")
    return opposed_check(_check_count("response dice", ours), _check_count("opposing dice", theirs), tn, tn)


def supply_odds(supply: int | str, staff_orders: int = 0, *, rules: RulesetData | None = None) -> Fraction:
    """P(a mission passes its end-of-turn Supply Check and stays) (CHQ-22).

    ``supply`` is a number of dice or a nation from the supply_dice table;
    each Staff Order spent adds a die; the opponent rolls
    supply_opposing_dice; both at check_tn; only strictly more successes pass.

    >>> supply_odds("USA")  # 5D vs 3D at 4+
    Fraction(163, 256)
    """
    rules = rules or load_ruleset("chq")
    if isinstance(supply, str):
        table = rules.table("supply_dice")
        if supply not in table or supply in ("source", "rule"):
            nations = ", ".join(name for name in table if name not in ("source", "rule"))
            raise FireplanError(f"no supply dice for nation {supply!r}: expected one of {nations}")
        supply = table[supply]
    dice = _check_count("supply dice", supply) + _check_count("staff orders", staff_orders)
    tn = rules.setting("check_tn")
    return opposed_check(dice, rules.setting("supply_opposing_dice"), tn, tn)
