"""Vehicle and infantry smoke (MET-7 .. MET-12): where the screens lie and who may use what.

- **Dischargers** (MET-7, 8, 9): fired at the start of the element's movement, a
  50 m x 25 m screen touching its front (``dischargers = "hull"``) or any face
  (``"turret"``), full at once until the start of that element's next movement phase;
  only when under direct fire or to escape impending fire from a previously located
  enemy; reloading takes a full period stationary, unsuppressed and not firing.
- **2-inch mortars and German launchers** (MET-10): the same, but 75 m x 50 m and
  centred 50-200 m from the firer, and reloaded under cover at no time cost.
- **The AP grenade thrower** (MET-11): infantry direct area fire with FN 5 at infantry
  that moved to within 50 m, in the first fire phase after that movement.
- **Infantry smoke grenades** (MET-12): 50 m x 25 m adjacent to the section, full until
  its next movement phase, once per game.

This module is pure geometry and card reading; the game state checks the timing and
conditions and says why an order is refused.

Examples
--------
>>> p = discharger_screen((0, 0), facing=0, base=(10, 15), face="front")
>>> p.bounds
(-25.0, 7.5, 25.0, 32.5)
>>> launcher_screen((0, 0), (0, 100)).bounds
(-37.5, 75.0, 37.5, 125.0)
>>> launcher_distance_problem((0, 0), (0, 30))
'the screen must lie 50-200 m from the firer, not 30 m (MET-10)'
"""

from __future__ import annotations

import enum
import math
from typing import Any, Mapping

from shapely.geometry import Polygon

from engine.errors import FireplanError
from engine.geometry import bearing_between, bearing_vector, rectangle
from engine.rulesets import RulesetData

from .data import FACES, met_rules

__all__ = [
    "Kit",
    "FACES",
    "face_bearing",
    "allowed_faces",
    "adjacent_screen",
    "discharger_screen",
    "grenade_screen",
    "launcher_screen",
    "launcher_distance_problem",
    "has_dischargers",
    "has_launcher",
    "has_grenades",
    "has_thrower",
    "launcher_name",
]


class Kit(enum.StrEnum):
    """State of a smoke device: ready, empty (fired), reloading (MET-9), or used up (grenades)."""

    READY = "ready"
    EMPTY = "empty"
    RELOADING = "reloading"
    USED = "used"


def face_bearing(facing: float, face: str) -> float:
    """Outward bearing of one of an element's faces."""
    if face not in FACES:
        raise FireplanError(f"a face is one of {', '.join(FACES)}, got {face!r}")
    return (float(facing) + FACES[face]) % 360.0


def allowed_faces(card: Mapping[str, Any]) -> tuple[str, ...]:
    """Faces a discharger screen may touch: the front for hull-mounted, any for turret-mounted (MET-7)."""
    mount = card.get("dischargers")
    if mount == "turret":
        return tuple(FACES)
    if mount == "hull":
        return ("front",)
    return ()


def adjacent_screen(position, facing: float, base, face: str, size) -> Polygon:
    """A ``size = (width, depth)`` screen touching ``face`` of a base: width along the face, depth outward."""
    width, depth = (float(v) for v in size)
    base_width, base_depth = (float(v) for v in base)
    bearing = face_bearing(facing, face)
    reach = (base_depth if face in ("front", "rear") else base_width) / 2.0
    fx, fy = bearing_vector(bearing)
    x, y = position
    centre = (x + fx * (reach + depth / 2.0), y + fy * (reach + depth / 2.0))
    return rectangle(centre, width, depth, bearing)


def discharger_screen(position, facing: float, base, face: str, rules: RulesetData | None = None) -> Polygon:
    """MET-7: 50 m wide x 25 m deep, touching the face."""
    return adjacent_screen(position, facing, base, face, met_rules(rules).setting("discharger_size"))


def grenade_screen(position, facing: float, base, face: str, rules: RulesetData | None = None) -> Polygon:
    """MET-12: 50 m x 25 m adjacent to the section."""
    return adjacent_screen(position, facing, base, face, met_rules(rules).setting("grenade_size"))


def launcher_distance_problem(position, point, rules: RulesetData | None = None) -> str | None:
    """Why a launcher screen centred on ``point`` is out of reach, or None (MET-10: 50-200 m)."""
    low, high = met_rules(rules).setting("launcher_range")
    distance = math.dist(position, point)
    if low <= distance + 1e-9 and distance <= high + 1e-9:
        return None
    return f"the screen must lie {low:g}-{high:g} m from the firer, not {distance:.0f} m (MET-10)"


def launcher_screen(position, point, rules: RulesetData | None = None) -> Polygon:
    """MET-10: a 75 m x 50 m screen centred on ``point``, wide across the line from the firer."""
    width, depth = met_rules(rules).setting("launcher_size")
    bearing = bearing_between(position, point)
    return rectangle(point, width, depth, bearing)


def has_dischargers(card: Mapping[str, Any]) -> bool:
    return bool(card.get("dischargers"))


def has_launcher(card: Mapping[str, Any]) -> bool:
    """German smoke grenade launchers or a 2-inch smoke mortar (MET-10)."""
    return bool(card.get("launchers") or card.get("mortar_2in"))


def launcher_name(card: Mapping[str, Any]) -> str:
    return "2-inch smoke mortar" if card.get("mortar_2in") else "smoke grenade launchers"


def has_grenades(card: Mapping[str, Any]) -> bool:
    return bool(card.get("smoke_grenades"))


def has_thrower(card: Mapping[str, Any]) -> bool:
    """A German grenade thrower bought with anti-personnel rounds (MET-11)."""
    return bool(card.get("grenade_thrower"))
