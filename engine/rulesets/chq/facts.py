"""The fixed facts of one CHQ game, read once from a Scenario and its cards.

A game state changes only positions, dice and markers; everything else (unit
cards, terrain classes, settings, table) lives here, shared by every clone,
as OpenSpiel keeps a game apart from its states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Mapping

import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from engine.geometry import footprint
from engine.rulesets import RulesetData
from engine.scenario import Scenario

__all__ = [
    "DirectFire",
    "IndirectFire",
    "UnitFacts",
    "SightFeature",
    "CoverFeature",
    "GameFacts",
    "CORE",
    "HILL",
    "HEDGE",
    "PLAIN",
]

#: How a sight-blocking feature blocks (CHQ-30): the core of a wood, a hill, a hedge, anything else.
CORE, HILL, HEDGE, PLAIN = 0, 1, 2, 3

_EDGE_VECTORS = {"south": (0.0, -1.0), "north": (0.0, 1.0), "west": (-1.0, 0.0), "east": (1.0, 0.0)}
_EDGE_BEARING = {"south": 180.0, "north": 0.0, "west": 270.0, "east": 90.0}


@dataclass(frozen=True, slots=True)
class DirectFire:
    """A card's direct fire: close/effective/long ranges, FP and AT dice (CHQ-2, CHQ-8)."""

    ranges: tuple[float, float, float]
    fp: int
    at: int


@dataclass(frozen=True, slots=True)
class IndirectFire:
    """A card's indirect fire: minimum and maximum range, FP and AT dice (CHQ-9)."""

    min_range: float
    max_range: float
    fp: int
    at: int


@dataclass(frozen=True, slots=True)
class UnitFacts:
    """What a unit card and the scenario fix about one unit."""

    id: str
    side: str
    card: str
    nation: str
    kind: str
    armoured: bool
    move: str
    reaction: int
    direct: DirectFire | None
    indirect: IndirectFire | None
    high_suppression: bool
    base: tuple[float, float]
    cohesion: int
    battery: bool
    smoke: bool
    sheafs: tuple[str, ...]
    start: tuple[float, float] | None
    facing: float
    blind: str | None

    def dice_against(self, armoured: bool, indirect: bool = False) -> int:
        """FP dice against soft targets, AT dice against armoured ones (CHQ-3)."""
        weapon = self.indirect if indirect else self.direct
        if weapon is None:
            return 0
        return weapon.at if armoured else weapon.fp


@dataclass(frozen=True, slots=True)
class SightFeature:
    """A terrain polygon as the sight kernel sees it: ``kind`` is CORE, HILL, HEDGE or PLAIN."""

    id: str
    kind: int
    polygon: Polygon
    area: BaseGeometry
    height: float


@dataclass(frozen=True, slots=True)
class CoverFeature:
    id: str
    level: str
    area: BaseGeometry
    linear: bool


def _unit_facts(spec, rules: RulesetData) -> UnitFacts:
    card = spec.card
    direct = card.get("direct")
    indirect = card.get("indirect")
    return UnitFacts(
        id=spec.id,
        side=spec.side,
        card=card["name"],
        nation=card.get("nation", ""),
        kind=card.get("type", ""),
        armoured=bool(card.get("armoured", False)),
        move=card.get("move", "Average"),
        reaction=int(card.get("reaction", 0)),
        direct=None if direct is None else DirectFire(tuple(direct["ranges"]), int(direct["fp"]), int(direct["at"])),
        indirect=None
        if indirect is None
        else IndirectFire(indirect["min_range"], indirect["max_range"], int(indirect["fp"]), int(indirect["at"])),
        high_suppression=bool(card.get("high_suppression", False)),
        base=tuple(card.get("base", (2, 2))),
        cohesion=int(card.get("cohesion", rules.setting("cohesion"))),
        battery=card.get("type") == "Direct Support Battery",
        smoke=bool(card.get("smoke", False)),
        sheafs=tuple(card.get("sheafs", ())),
        start=None if spec.position is None else (float(spec.position[0]), float(spec.position[1])),
        facing=float(spec.facing),
        blind=spec.blind,
    )


class GameFacts:
    """Everything fixed about one CHQ game: cards, terrain classes, settings, table.

    Built once by ``new_game`` and shared (never copied) by every clone.
    """

    def __init__(self, scenario: Scenario):
        self.scenario = scenario
        self.rules = scenario.ruleset
        self.width = float(scenario.width)
        self.depth = float(scenario.depth)
        self.side_ids: tuple[str, str] = (scenario.sides[0].id, scenario.sides[1].id)
        self.sides = {side.id: side for side in scenario.sides}
        self.units: dict[str, UnitFacts] = {spec.id: _unit_facts(spec, self.rules) for spec in scenario.units}
        self.unit_ids: tuple[str, ...] = tuple(spec.id for spec in scenario.units)
        self.blinds = {blind.id: blind for blind in scenario.blinds}
        self.blind_ids = tuple(blind.id for blind in scenario.blinds)
        self.blind_unit = {u.blind: u.id for u in self.units.values() if u.blind}
        self.side_units = {s: tuple(u for u in self.unit_ids if self.units[u].side == s) for s in self.side_ids}
        self.side_blinds = {s: tuple(b for b in self.blind_ids if self.blinds[b].owner == s) for s in self.side_ids}
        self._batteries = {s: tuple(u for u in self.side_units[s] if self.units[u].battery) for s in self.side_ids}
        self.objectives = scenario.objectives
        self.memo: dict = {}  # content-keyed results (sight, lattices) shared by all states of these facts
        self._classify_terrain()

    # ---------------------------------------------------------------- settings and tables
    def s(self, name: str) -> Any:
        """The value of CHQ setting ``name`` (rules.toml)."""
        return self.rules.setting(name)

    def table(self, name: str) -> Mapping[str, Any]:
        return self.rules.table(name)

    # ---------------------------------------------------------------- sides
    def other(self, side: str) -> str:
        return self.side_ids[1] if side == self.side_ids[0] else self.side_ids[0]

    def edge_vector(self, side: str) -> tuple[float, float]:
        """Unit vector toward ``side``'s own table edge (forced back, CHQ-6)."""
        return _EDGE_VECTORS[self.sides[side].edge]

    def edge_bearing(self, side: str) -> float:
        return _EDGE_BEARING[self.sides[side].edge]

    def attacker(self) -> str:
        for side in self.side_ids:
            if self.sides[side].attacker:
                return side
        return self.side_ids[0]

    def batteries(self, side: str) -> tuple[str, ...]:
        return self._batteries.get(side, ())

    # ---------------------------------------------------------------- geometry helpers
    def base_of(self, unit_id: str, position, facing: float) -> Polygon:
        """A unit's base at ``position`` (memoised: the same few bases are asked for again and again)."""
        key = ("base", unit_id, tuple(position), facing)
        base = self.memo.get(key)
        if base is None:
            width, depth = self.units[unit_id].base
            base = footprint(position, max(width, 0.1), max(depth, 0.1), facing)
            self._remember(key, base)
        return base

    def blind_base(self, position) -> Polygon:
        key = ("blind-base", tuple(position))
        base = self.memo.get(key)
        if base is None:
            width, depth = self.s("blind_base")
            base = footprint(position, width, depth, 0.0)
            self._remember(key, base)
        return base

    def _remember(self, key, value) -> None:
        if len(self.memo) > 20_000:
            self.memo.clear()
        self.memo[key] = value

    def on_table(self, point) -> bool:
        x, y = point
        return 0.0 <= x <= self.width and 0.0 <= y <= self.depth

    def clip(self, point) -> tuple[float, float]:
        x, y = point
        return (min(max(float(x), 0.0), self.width), min(max(float(y), 0.0), self.depth))

    # ---------------------------------------------------------------- terrain
    def _classify_terrain(self) -> None:
        edge = float(self.s("edge_sight"))
        sight: list[SightFeature] = []
        cover: list[CoverFeature] = []
        difficult = []
        hills = []
        for feature in self.scenario.terrain:
            geometry = feature.geometry
            if feature.kind == "hill":
                hills.append((geometry, float(feature.height)))
            if feature.blocks_sight:
                woodlike = feature.kind == "woods" or (feature.kind == "buildings" and self.s("buildings_as_woods"))
                if woodlike:
                    core = geometry.buffer(-edge) if edge > 0 else geometry
                    for part in _polygons(core):
                        sight.append(SightFeature(feature.id, CORE, part, geometry, 0.0))
                elif feature.kind == "hill":
                    for part in _polygons(geometry):
                        sight.append(SightFeature(feature.id, HILL, part, geometry, float(feature.height)))
                elif feature.kind == "hedge":
                    for part in _polygons(geometry):
                        sight.append(SightFeature(feature.id, HEDGE, part, geometry, 0.0))
                else:
                    for part in _polygons(geometry):
                        sight.append(SightFeature(feature.id, PLAIN, part, geometry, 0.0))
            if feature.cover != "none":
                cover.append(CoverFeature(feature.id, feature.cover, geometry, feature.kind == "hedge"))
            if feature.difficult:
                difficult.append(geometry)
        self.sight_features: tuple[SightFeature, ...] = tuple(sight)
        self.cover_features: tuple[CoverFeature, ...] = tuple(cover)
        self.difficult = shapely.union_all(difficult) if difficult else None
        if self.difficult is not None:
            shapely.prepare(self.difficult)
        self.hills = tuple(hills)
        self.wood_areas = tuple(
            feature.geometry
            for feature in self.scenario.terrain
            if feature.blocks_sight and (feature.kind == "woods" or (feature.kind == "buildings" and self.s("buildings_as_woods")))
        )

    def height_at(self, point) -> float:
        """Level of the highest hill under ``point`` (0 on the flat), for CHQ-30."""
        p = shapely.Point(point)
        return max((height for area, height in self.hills if area.covers(p)), default=0.0)

    def cover_at(self, base: Polygon, indirect: bool) -> int:
        """Reaction dice from the best cover the unit is in (CHQ-7): area cover under the centre,
        a hedge when the base touches it; indirect fire ignores the levels of indirect_ignores_cover."""
        ignored = set(self.s("indirect_ignores_cover")) if indirect else set()
        table = self.table("cover")
        centre = base.centroid
        touch = float(self.s("hedge_touch"))
        best = 0
        for feature in self.cover_features:
            if feature.level in ignored:
                continue
            inside = feature.area.distance(base) <= touch if feature.linear else feature.area.covers(centre)
            if inside:
                best = max(best, int(table[feature.level]))
        return best

    def crosses_difficult(self, start, end) -> bool:
        if self.difficult is None:
            return False
        if start == end:
            return self.difficult.covers(shapely.Point(start))
        return self.difficult.intersects(shapely.LineString([start, end]))

    @cached_property
    def grid(self) -> tuple[tuple[float, float], ...]:
        """The canonical lattice of placements: spacing grid_spacing, offset half a step from the edges."""
        step = float(self.s("grid_spacing"))
        xs = [step / 2 + i * step for i in range(max(1, int(self.width // step)))]
        ys = [step / 2 + j * step for j in range(max(1, int(self.depth // step)))]
        return tuple((x, y) for y in ys for x in xs)


def _polygons(geometry) -> list[Polygon]:
    if geometry.is_empty:
        return []
    if geometry.geom_type == "Polygon":
        return [geometry]
    return [g for g in getattr(geometry, "geoms", []) if g.geom_type == "Polygon" and g.area > 0]


def distance(a, b) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])
