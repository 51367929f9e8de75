"""A loaded scenario: the fixed facts of one game, frozen, with shapely geometry.

A ``Scenario`` is to a game what OpenSpiel's game object is to its states: the
things that do not change while playing (table, sides, cards, terrain,
objectives, limits, weather). Game states will be created from it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import shapely
from shapely.geometry.base import BaseGeometry

from engine.rulesets import RulesetData

__all__ = ["Side", "UnitSpec", "Blind", "TerrainFeature", "Objective", "Weather", "Scenario"]


@dataclass(frozen=True, slots=True)
class Side:
    id: str
    name: str
    nation: str
    edge: str
    attacker: bool
    command_dice: int
    comms_dice: int
    supply_dice: int
    staff_orders: int
    morale_points: int | None


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """A unit as the scenario places it; ``position`` is None for off-table batteries."""

    id: str
    card: Mapping[str, Any]
    side: str
    position: tuple[float, float] | None
    facing: float
    blind: str | None

    @property
    def card_name(self) -> str:
        return self.card["name"]

    @property
    def off_table(self) -> bool:
        return self.position is None


@dataclass(frozen=True, slots=True)
class Blind:
    id: str
    owner: str
    position: tuple[float, float]
    dummy: bool


@dataclass(frozen=True, slots=True)
class TerrainFeature:
    """A terrain feature; LineString features (roads, rivers, hedges) are buffered to their width."""

    id: str
    kind: str
    geometry: BaseGeometry
    blocks_sight: bool
    cover: str
    height: float
    difficult: bool
    burning: bool
    name: str | None


@dataclass(frozen=True, slots=True)
class Objective:
    id: str
    position: tuple[float, float]
    radius: float
    points: int
    name: str | None


@dataclass(frozen=True, slots=True)
class Weather:
    wind_from: float
    wind_knots: float
    rain: bool


@dataclass(frozen=True, slots=True)
class Scenario:
    """Everything fixed about one game. Build it with ``engine.scenario.load_scenario``."""

    name: str
    description: str
    ruleset: RulesetData
    width: float
    depth: float
    length_unit: str
    sides: tuple[Side, Side]
    units: tuple[UnitSpec, ...]
    blinds: tuple[Blind, ...]
    terrain: tuple[TerrainFeature, ...]
    objectives: tuple[Objective, ...]
    turns: int | None
    periods: int | None
    mission: str | None
    weather: Weather | None
    path: Path | None = field(default=None, compare=False)

    @property
    def table(self) -> BaseGeometry:
        return shapely.box(0.0, 0.0, self.width, self.depth)

    def new_game(self, seed: int | None = 0):
        """A fresh game state of this scenario under its ruleset; same seed, same game.

        Each ruleset package provides ``engine.rulesets.<name>.game.new_game(scenario, seed)``.
        """
        module = importlib.import_module(f"engine.rulesets.{self.ruleset.name}.game")
        return module.new_game(self, seed)

    def other_side(self, side_id: str) -> Side:
        return self.sides[1] if self.sides[0].id == side_id else self.sides[0]

    def side(self, side_id: str) -> Side:
        for side in self.sides:
            if side.id == side_id:
                return side
        raise KeyError(side_id)

    def units_of(self, side_id: str) -> tuple[UnitSpec, ...]:
        return tuple(unit for unit in self.units if unit.side == side_id)

    def sight_blocking_terrain(self) -> tuple[TerrainFeature, ...]:
        return tuple(feature for feature in self.terrain if feature.blocks_sight)

    def summary(self) -> str:
        """One line a player reads to recognise the scenario."""
        limit = f"{self.turns} turns" if self.turns else f"{self.periods} periods"
        sides = " v ".join(f"{side.name} ({len(self.units_of(side.id))} units)" for side in self.sides)
        return (
            f"{self.name} [{self.ruleset.name}] {self.width:g} x {self.depth:g} {self.length_unit}, "
            f"{sides}, {len(self.blinds)} blinds, {len(self.terrain)} terrain features, {limit}"
        )
