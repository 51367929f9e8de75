"""MET-2 deviation: 2d10 against 11, a distance in steps and a discretised direction.

Roll 2d10 and add the modifiers; 11 or more lands on the point of aim, otherwise
the impact moves ``(11 - roll) x 20 m`` in a direction uniform on the circle
(house values in ``rules.toml``). The direction is discretised into
``deviation_directions`` equally likely bearings so that a deviation is one chance
node with finitely many distinct, exact outcomes. Direct-fire smoke (MET-13)
uses half the distance with a +2 modifier.

Examples
--------
>>> d = deviation_distribution()
>>> d[ON_TARGET]
Fraction(11, 20)
>>> d[Deviation(180.0, 0.0)]  # a roll of 2 (1/100), north (1/8)
Fraction(1, 800)
>>> deviation_distribution(modifier=2, factor=Fraction(1, 2))[ON_TARGET]
Fraction(18, 25)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from engine.dice import Distribution, sum_of_dice
from engine.geometry import bearing_vector
from engine.rulesets import RulesetData

from .data import DIE, exact, met_rules

__all__ = ["Deviation", "ON_TARGET", "deviation_distribution", "deviation_bearings"]


@dataclass(frozen=True, slots=True, order=True)
class Deviation:
    """Where an impact lands relative to its point of aim: ``distance`` metres toward ``bearing``.

    It prints and parses (``on-target``, ``dev 40@90``) so a player can type the roll
    made at the table.
    """

    distance: float
    bearing: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "distance", float(self.distance))
        object.__setattr__(self, "bearing", float(self.bearing) % 360.0 if self.distance else 0.0)

    @property
    def offset(self) -> tuple[float, float]:
        """``(dx, dy)`` in metres."""
        if not self.distance:
            return (0.0, 0.0)
        fx, fy = bearing_vector(self.bearing)
        return (fx * self.distance, fy * self.distance)

    def __str__(self) -> str:
        if not self.distance:
            return "on-target"
        return f"dev {_number(self.distance)}@{_number(self.bearing)}"


ON_TARGET = Deviation(0.0, 0.0)

#: distributions already built, by (id(rules), modifier, factor); the rules object is kept to
#: make sure an id is never reused by another ruleset object
_CACHE: dict = {}


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def deviation_bearings(rules: RulesetData | None = None) -> tuple[float, ...]:
    """The equally likely bearings of an off-target impact (``deviation_directions`` of them)."""
    n = int(met_rules(rules).setting("deviation_directions"))
    return tuple(360.0 * k / n for k in range(n))


def deviation_distribution(
    modifier: int = 0, factor: Fraction | int = 1, rules: RulesetData | None = None
) -> Distribution[Deviation]:
    """Exact distribution of a deviation: 2d10 + ``modifier`` against ``deviation_on_target``.

    ``factor`` scales the distance (MET-13: one half). Each off-target roll splits
    evenly over :func:`deviation_bearings`; every on-target roll is the one outcome
    :data:`ON_TARGET`.
    """
    rules = met_rules(rules)
    key = (id(rules), int(modifier), Fraction(factor))
    cached = _CACHE.get(key)
    if cached is not None and cached[0] is rules:
        return cached[1]
    on_target = int(rules.setting("deviation_on_target"))
    step = exact(rules.setting("deviation_step")) * exact(factor)
    bearings = deviation_bearings(rules)
    share = Fraction(1, len(bearings))
    outcomes: dict[Deviation, Fraction] = {}
    for roll, p in sum_of_dice(2, DIE).items():
        total = roll + modifier
        if total >= on_target:
            outcomes[ON_TARGET] = outcomes.get(ON_TARGET, Fraction(0)) + p
            continue
        distance = float((on_target - total) * step)
        for bearing in bearings:
            point = Deviation(distance, bearing)
            outcomes[point] = outcomes.get(point, Fraction(0)) + p * share
    distribution = Distribution(outcomes)
    _CACHE[key] = (rules, distribution)
    return distribution


def expected_distance(distribution: Distribution[Deviation]) -> float:
    """Mean distance of a deviation distribution, in metres (for narration)."""
    return math.fsum(float(p) * outcome.distance for outcome, p in distribution.items())
