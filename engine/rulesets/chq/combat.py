"""Direct and indirect fire by units (CHQ-3 to CHQ-11) as frozen pending fires.

A fire is declared, then resolved as one chance node. Its pool, TN and the
target's Reaction dice are fixed when it is declared (:class:`PendingFire`),
so opportunity fire against a firer is truly simultaneous (CHQ-31): both
fires read the state before either lands. The chance node itself is
``fire.fire_outcomes`` on the pool CHQ-11 leaves, cached by its numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from engine.dice import effective_pool

from .blinds import range_tn
from .facts import GameFacts
from .fire import FireResult, fire_outcomes

__all__ = [
    "PendingFire",
    "direct_tn",
    "smoke_tn",
    "is_flank",
    "effective",
    "fire_distribution",
    "expected_disruption",
]


@dataclass(frozen=True, slots=True)
class PendingFire:
    """A declared fire: ``dice`` at ``tn`` (modifiers included, before CHQ-11) against ``reaction``
    dice at ``reaction_tn``. ``kind`` is direct, indirect, opportunity, artillery or barrage;
    ``halt`` is the path point at which a mover is fired on (CHQ-31)."""

    firer: str
    target: str
    dice: int
    tn: int
    reaction: int
    reaction_tn: int
    high_suppression: bool
    kind: str
    halt: int | None = None


def smoke_tn(facts: GameFacts, screens: int) -> int:
    """TN added by smoke on the line (CHQ-10): +2 once, or per screen with smoke_tn_per_screen."""
    if screens <= 0:
        return 0
    count = screens if facts.s("smoke_tn_per_screen") else 1
    return count * int(facts.s("smoke_tn_modifier"))


def direct_tn(facts: GameFacts, ranges, distance: float, screens: int, flank: bool) -> int | None:
    """Direct fire TN (CHQ-8, CHQ-10): by range band, -1 for a flank or rear shot, +2 through
    smoke; None beyond long range."""
    tn = range_tn(facts, ranges, distance)
    if tn is None:
        return None
    return tn + (int(facts.s("flank_tn_modifier")) if flank else 0) + smoke_tn(facts, screens)


def is_flank(target_pos, target_facing: float, firer_pos, half_angle: float) -> bool:
    """Whether the firer lies outside the target's front arc (CHQ-8 flank or rear shot)."""
    dx, dy = firer_pos[0] - target_pos[0], firer_pos[1] - target_pos[1]
    if dx == 0 and dy == 0:
        return False
    bearing = math.degrees(math.atan2(dx, dy)) % 360.0
    off = abs((bearing - target_facing + 180.0) % 360.0 - 180.0)
    return off > half_angle


def effective(facts: GameFacts, dice: int, tn: int) -> tuple[int, int]:
    """The pool CHQ-11 leaves: lose a die per TN point over 6, gain one per point under 2."""
    return effective_pool(max(0, dice), tn, facts.s("max_tn"), facts.s("min_tn"))


@lru_cache(maxsize=4096)
def _distribution(dice, tn, reaction, reaction_tn, high, on_miss, base):
    return tuple(fire_outcomes(dice, tn, reaction, reaction_tn, high, on_miss, base).items())


def fire_distribution(facts: GameFacts, fire: PendingFire) -> list[tuple[FireResult, Fraction]]:
    """The chance node of ``fire``: distinct FireResults with exact probabilities."""
    dice, tn = effective(facts, fire.dice, fire.tn)
    reaction, reaction_tn = effective(facts, fire.reaction, fire.reaction_tn)
    return list(
        _distribution(
            dice,
            tn,
            reaction,
            reaction_tn,
            fire.high_suppression,
            bool(facts.s("high_suppression_on_miss")),
            int(facts.s("forced_back_base")),
        )
    )


def expected_disruption(facts: GameFacts, fire: PendingFire) -> Fraction:
    return sum((p * r.disruption for r, p in fire_distribution(facts, fire)), Fraction(0))
