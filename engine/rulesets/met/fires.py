"""Burning buildings (MET-14, MET-20): a fire's FN by period and the triangle of smoke it makes.

A fire's FN runs through ``fire_fn_by_period`` (5, 7, 9, 10, 8, 6, 4), one value a
period, then it is out. While it burns it makes smoke: a triangle with its apex on the
fire (setting ``fire_smoke_apex``), reaching downwind twice the fire's length (its
extent along the wind) to a base twice the burning area's width (its extent across the
wind); partial while the FN is 6 or less, full at 7-10.

An HE hit on a building sets it burning with probability ``building_ignition`` (1/5).

Examples
--------
>>> [fire_fn(age) for age in range(8)]
[5, 7, 9, 10, 8, 6, 4, None]
>>> [d.value[0] for d in fire_smoke_schedule()]
['p', 'f', 'f', 'f', 'f', 'p', 'p']
>>> from engine.geometry import rectangle
>>> round(fire_smoke_polygon(rectangle((0, 0), 10, 20, 90), wind_from=270).area)
400
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from engine.dice import Distribution
from engine.geometry import Density, Screen, bearing_vector, triangle
from engine.rulesets import RulesetData

from .data import DIE, exact, met_rules
from .smoke import downwind_bearing

__all__ = [
    "Fire",
    "Ignition",
    "fire_fn",
    "fire_life",
    "fire_smoke_density",
    "fire_smoke_schedule",
    "fire_smoke_polygon",
    "fire_screen",
    "ignition_probability",
    "ignition_outcomes",
]


@dataclass(frozen=True, slots=True)
class Fire:
    """A burning terrain feature: ``age`` periods since it caught (0 in its first period)."""

    feature: str
    age: int = 0

    def aged(self) -> "Fire":
        return Fire(self.feature, self.age + 1)


@dataclass(frozen=True, slots=True, order=True)
class Ignition:
    """Outcome of an HE hit check on a building: it catches fire or not (prints ``ignites`` / ``no-fire``)."""

    burning: bool

    def __str__(self) -> str:
        return "ignites" if self.burning else "no-fire"


def fire_fn(age: int, rules: RulesetData | None = None) -> int | None:
    """The fire's FN ``age`` periods after it caught, or None once it is out."""
    values = met_rules(rules).setting("fire_fn_by_period")
    return int(values[age]) if 0 <= age < len(values) else None


def fire_life(rules: RulesetData | None = None) -> int:
    """Periods a fire burns."""
    return len(met_rules(rules).setting("fire_fn_by_period"))


def fire_smoke_density(fn: int, rules: RulesetData | None = None) -> Density:
    """Full at FN ``fire_full_smoke_min_fn`` (7) or more, else partial."""
    return Density.FULL if fn >= met_rules(rules).setting("fire_full_smoke_min_fn") else Density.PARTIAL


def fire_smoke_schedule(rules: RulesetData | None = None) -> tuple[Density, ...]:
    """Density of a fire's smoke in each period it burns."""
    rules = met_rules(rules)
    return tuple(fire_smoke_density(int(fn), rules) for fn in rules.setting("fire_fn_by_period"))


def _extent(geometry: BaseGeometry, fx: float, fy: float) -> tuple[float, float, float, float]:
    """Min and max of the geometry's coordinates along (fx, fy) and across it (right-hand normal)."""
    coords = shapely.get_coordinates(geometry)
    along = coords @ np.array([fx, fy])
    across = coords @ np.array([fy, -fx])
    return float(along.min()), float(along.max()), float(across.min()), float(across.max())


def fire_smoke_polygon(geometry: BaseGeometry, wind_from: float, rules: RulesetData | None = None) -> Polygon:
    """The MET-14 triangle of a burning feature with the wind from ``wind_from``."""
    rules = met_rules(rules)
    bearing = downwind_bearing(wind_from)
    fx, fy = bearing_vector(bearing)
    a0, a1, c0, c1 = _extent(geometry, fx, fy)
    length, width = a1 - a0, c1 - c0
    centre = geometry.centroid
    apex = (centre.x, centre.y)
    if rules.setting("fire_smoke_apex") == "upwind_edge":
        along_centre = centre.x * fx + centre.y * fy
        shift = a0 - along_centre
        apex = (centre.x + fx * shift, centre.y + fy * shift)
    return triangle(
        apex,
        bearing,
        float(exact(rules.setting("fire_smoke_length_factor"))) * length,
        float(exact(rules.setting("fire_smoke_width_factor"))) * width,
    )


def fire_screen(geometry: BaseGeometry, fire: Fire, wind_from: float, rules: RulesetData | None = None) -> Screen:
    """The fire's smoke as a screen at the fire's age (its schedule is the fire's FN schedule)."""
    rules = met_rules(rules)
    return Screen(fire_smoke_polygon(geometry, wind_from, rules), fire_smoke_schedule(rules), fire.age, f"fire {fire.feature}")


def ignition_probability(battery_fn: int, rules: RulesetData | None = None) -> Fraction:
    """P(an HE mission whose beaten zone covers a building sets it burning), MET-20.

    With ``building_hit_needs_roll`` the building is first hit like an element
    (d10 at or under the battery's FN), then catches with ``building_ignition``.
    """
    rules = met_rules(rules)
    p = exact(rules.setting("building_ignition"))
    if rules.setting("building_hit_needs_roll"):
        p *= Fraction(min(max(int(battery_fn), 0), DIE), DIE)
    return p


def ignition_outcomes(battery_fn: int, rules: RulesetData | None = None) -> Distribution[Ignition]:
    """The chance node of an HE landing on a building."""
    p = ignition_probability(battery_fn, rules)
    return Distribution({Ignition(True): p, Ignition(False): 1 - p})
