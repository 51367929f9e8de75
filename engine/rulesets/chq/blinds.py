"""Blinds and spotting (CHQ-28).

A Blind hides one unit or is a dummy; only its owner knows which. It is
revealed when an enemy spots it, when its unit fires, or when artillery falls
on it (a dummy is then removed). A spotting roll is ``spot_dice`` dice at the
direct-fire TN for the range (the spotter's card bands, or ``spot_ranges``),
+2 TN through smoke, through CHQ-11; any success spots.

>>> from engine.scenario import load_scenario
>>> from engine.rulesets.chq.facts import GameFacts
>>> facts = GameFacts(load_scenario("maps/chq_saint_aubin.json"))
>>> spot_probability(facts, facts.units["us-rifle-1"], 10.0, smoke=0)
Fraction(3, 4)
"""

from __future__ import annotations

from fractions import Fraction

from engine.dice import effective_pool, successes

from .actions import Check
from .facts import GameFacts, UnitFacts

__all__ = ["spot_tn", "spot_probability", "spot_outcomes", "range_tn"]


def range_tn(facts: GameFacts, ranges, distance: float) -> int | None:
    """The direct-fire TN for a range (CHQ-8): close, effective, long; None beyond long range."""
    base = int(facts.s("base_tn"))
    tns = (base - 1, base, base + 1)  # close -1 TN, effective, long +1 TN
    for limit, tn in zip(ranges, tns):
        if distance <= limit:
            return int(tn)
    return None


def spot_tn(facts: GameFacts, spotter: UnitFacts, distance: float, smoke: int) -> int | None:
    """The TN of a spotting roll before CHQ-11, or None when the Blind is beyond long range."""
    ranges = spotter.direct.ranges if spotter.direct is not None else tuple(facts.s("spot_ranges"))
    tn = range_tn(facts, ranges, distance)
    if tn is None:
        return None
    screens = min(smoke, 1) if not facts.s("smoke_tn_per_screen") else smoke
    return tn + screens * int(facts.s("smoke_tn_modifier"))


def spot_probability(facts: GameFacts, spotter: UnitFacts, distance: float, smoke: int) -> Fraction:
    """P(a spotting roll reveals the Blind): at least one success (0 when out of range or no dice)."""
    tn = spot_tn(facts, spotter, distance, smoke)
    if tn is None:
        return Fraction(0)
    dice, rolled = effective_pool(int(facts.s("spot_dice")), tn, facts.s("max_tn"), facts.s("min_tn"))
    if dice == 0:
        return Fraction(0)
    return 1 - successes(dice, rolled)[0]


def spot_outcomes(facts: GameFacts, spotter: UnitFacts, distance: float, smoke: int):
    p = spot_probability(facts, spotter, distance, smoke)
    return [(o, q) for o, q in ((Check("spotting", True), p), (Check("spotting", False), 1 - p)) if q]
