"""Fire resolution (MET-18): d10 at or under the Fire Number, and what hits do.

A fire rolls one d10 and hits at or under its FN; partial smoke on the line is -2
(``partial_smoke_fn_modifier``) and a target in cover -2 (``cover_fn_modifier``). One
hit suppresses, a hit on a suppressed element neutralises, a hit on a neutralised
element destroys. HEAT rounds (and direct-fire smoke, MET-13) check their hit with FN
7 at up to 200 m, 5 to 500 m, 3 to 1000 m.

Examples
--------
>>> fire_number(6, partial_smoke=True, in_cover=True)
2
>>> hit_probability(2)
Fraction(1, 5)
>>> after_hits(Status.OK, 2).name
'NEUTRALISED'
>>> heat_fn(350)
5
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from engine.dice import Distribution
from engine.rulesets import RulesetData

from .data import DIE, met_rules

__all__ = [
    "Status",
    "Roll",
    "HIT",
    "MISS",
    "fire_number",
    "hit_probability",
    "roll_outcomes",
    "after_hits",
    "heat_fn",
    "MoraleLoss",
    "morale_loss_outcomes",
]


class Status(enum.IntEnum):
    """An element's state, worst last: each hit moves it one step."""

    OK = 0
    SUPPRESSED = 1
    NEUTRALISED = 2
    DESTROYED = 3

    def __str__(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True, order=True)
class Roll:
    """Outcome of one d10 fire check: ``hit`` or ``miss`` (prints and parses as those words)."""

    hit: bool

    def __str__(self) -> str:
        return "hit" if self.hit else "miss"


HIT, MISS = Roll(True), Roll(False)


@dataclass(frozen=True, slots=True, order=True)
class MoraleLoss:
    """Outcome of the die a side rolls for a destroyed element (MET-21): ``points`` lost."""

    points: int

    def __str__(self) -> str:
        return f"morale -{self.points}"


def fire_number(base_fn: int, partial_smoke: bool = False, in_cover: bool = False, rules: RulesetData | None = None) -> int:
    """The FN a fire rolls against after MET-18's modifiers (not clamped: 0 or less never hits)."""
    rules = met_rules(rules)
    fn = int(base_fn)
    if partial_smoke:
        fn += int(rules.setting("partial_smoke_fn_modifier"))
    if in_cover:
        fn += int(rules.setting("cover_fn_modifier"))
    return fn


def hit_probability(fn: int) -> Fraction:
    """P(d10 <= fn), exact: 0 for FN 0 or less, 1 for FN 10 or more."""
    return Fraction(min(max(int(fn), 0), DIE), DIE)


@lru_cache(maxsize=64)
def roll_outcomes(fn: int) -> Distribution[Roll]:
    """The chance node of one fire: hit or miss (a sure result is one outcome)."""
    p = hit_probability(fn)
    return Distribution({HIT: p, MISS: 1 - p})


def after_hits(status: Status, hits: int) -> Status:
    """Status after ``hits`` hits applied together: one step each, destroyed at worst."""
    return Status(min(int(status) + max(int(hits), 0), int(Status.DESTROYED)))


def heat_fn(range_m: float, rules: RulesetData | None = None) -> int | None:
    """HEAT hit-check FN at ``range_m`` metres, or None beyond the last band."""
    for limit, fn in met_rules(rules).setting("heat_fn_by_range"):
        if range_m <= limit:
            return int(fn)
    return None


def morale_loss_outcomes(rules: RulesetData | None = None) -> Distribution[MoraleLoss]:
    """The die (D3) a side rolls for a destroyed element."""
    faces = int(met_rules(rules).setting("destroyed_morale_die"))
    return Distribution({MoraleLoss(k): Fraction(1, faces) for k in range(1, faces + 1)})

