"""Checks a JSON Schema cannot make: cards, table bounds, geometry, blinds, ids, dice.

Each check yields ``Problem(path, message)``; the loader turns the first into
one sentence naming the file, the field path and what was expected.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass
from typing import Iterator

import shapely
from shapely.validation import explain_validity

from engine.rulesets import RulesetData

from .model import FeatureModel, ScenarioModel

__all__ = ["Problem", "scenario_problems", "feature_geometry"]


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    message: str


def feature_geometry(feature: FeatureModel):
    """The feature's area as a shapely geometry (lines are buffered to their width, default 1 unit)."""
    geometry = feature.geometry
    if geometry.type == "Polygon":
        exterior, *holes = geometry.coordinates
        return shapely.Polygon(exterior, holes)
    return shapely.LineString(geometry.coordinates).buffer((feature.width or 1.0) / 2, cap_style="flat")


def _on_table(point, model: ScenarioModel) -> bool:
    x, y = point
    return 0 <= x <= model.table.width and 0 <= y <= model.table.depth


def _suggest(name: str, choices) -> str:
    close = difflib.get_close_matches(name, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def scenario_problems(model: ScenarioModel, ruleset: RulesetData) -> Iterator[Problem]:
    """Every problem in a parsed scenario, in file order."""
    yield from _table_problems(model, ruleset)
    yield from _id_problems(model)
    yield from _side_problems(model, ruleset)
    yield from _unit_problems(model, ruleset)
    yield from _blind_problems(model)
    yield from _terrain_problems(model)
    yield from _objective_problems(model)
    yield from _limit_problems(model, ruleset)


def _table_problems(model, ruleset):
    if model.table.units != ruleset.length_unit:
        yield Problem("table.units", f"expected {ruleset.length_unit!r} for the {ruleset.name} ruleset, got {model.table.units!r}")


def _id_problems(model):
    groups = {"sides": model.sides, "units": model.units, "blinds": model.blinds, "objectives": model.objectives}
    for group, items in groups.items():
        seen: set[str] = set()
        for index, item in enumerate(items):
            if item.id in seen:
                yield Problem(f"{group}[{index}].id", f"expected a unique id, but {item.id!r} is used before")
            seen.add(item.id)
    unit_ids = {unit.id for unit in model.units}
    for index, blind in enumerate(model.blinds):
        if blind.id in unit_ids:
            yield Problem(f"blinds[{index}].id", f"expected an id not used by a unit, but {blind.id!r} names a unit too")


def _side_problems(model, ruleset):
    for index, side in enumerate(model.sides):
        if ruleset.uses_command_dice and side.command_dice == 0:
            yield Problem(f"sides[{index}].command_dice", "expected at least 1 Command Die for this ruleset")
        if ruleset.uses_command_dice and side.staff_orders > side.command_dice:
            yield Problem(
                f"sides[{index}].staff_orders",
                f"expected at most as many Staff Orders as Command Dice ({side.command_dice}, CHQ-15), got {side.staff_orders}",
            )
    if model.sides[0].edge == model.sides[1].edge:
        yield Problem("sides[1].edge", f"expected a table edge other than side {model.sides[0].id!r}'s ({model.sides[0].edge})")


def _unit_problems(model, ruleset):
    side_ids = {side.id for side in model.sides}
    blind_owner = {blind.id: blind.owner for blind in model.blinds}
    for index, unit in enumerate(model.units):
        path = f"units[{index}]"
        if unit.card not in ruleset.cards:
            yield Problem(f"{path}.card", f"expected a {ruleset.name} card name, got unknown card {unit.card!r}{_suggest(unit.card, ruleset.cards)}")
            continue
        if unit.side not in side_ids:
            yield Problem(f"{path}.side", f"expected one of the side ids {sorted(side_ids)}, got {unit.side!r}")
            continue
        card = ruleset.cards[unit.card]
        if card.get("off_table"):
            if unit.position is not None:
                yield Problem(f"{path}.position", f"expected no position: {unit.card!r} is an off-table battery")
            if unit.blind is not None:
                yield Problem(f"{path}.blind", f"expected no blind: {unit.card!r} is an off-table battery")
            continue
        if unit.position is None:
            yield Problem(f"{path}.position", f"expected a position [x, y] for the on-table unit {unit.id!r}")
        elif not _on_table(unit.position, model):
            yield Problem(f"{path}.position", f"expected a point on the {model.table.width:g} x {model.table.depth:g} table, got {list(unit.position)}")
        if unit.blind is not None:
            if unit.blind not in blind_owner:
                yield Problem(f"{path}.blind", f"expected the id of a blind, got unknown blind {unit.blind!r}")
            elif blind_owner[unit.blind] != unit.side and blind_owner[unit.blind] in side_ids:
                yield Problem(f"{path}.blind", f"expected a blind owned by side {unit.side!r}, but {unit.blind!r} belongs to {blind_owner[unit.blind]!r}")


def _blind_problems(model):
    side_ids = {side.id for side in model.sides}
    hidden = Counter(unit.blind for unit in model.units if unit.blind is not None)
    for index, blind in enumerate(model.blinds):
        path = f"blinds[{index}]"
        if blind.owner not in side_ids:
            yield Problem(f"{path}.owner", f"expected one of the side ids {sorted(side_ids)}, got {blind.owner!r}")
        if not _on_table(blind.position, model):
            yield Problem(f"{path}.position", f"expected a point on the {model.table.width:g} x {model.table.depth:g} table, got {list(blind.position)}")
        if blind.dummy and hidden[blind.id]:
            yield Problem(f"{path}.dummy", f"expected no unit under the dummy blind {blind.id!r}, but {hidden[blind.id]} unit(s) name it")
        if not blind.dummy and hidden[blind.id] != 1:
            yield Problem(f"{path}.dummy", f"expected exactly one unit under the blind {blind.id!r} (or \"dummy\": true), found {hidden[blind.id]}")


def _terrain_problems(model):
    table = shapely.box(0, 0, model.table.width, model.table.depth)
    for index, feature in enumerate(model.terrain.features):
        path = f"terrain.features[{index}].geometry"
        if feature.geometry.type == "Polygon":
            for ring_index, ring in enumerate(feature.geometry.coordinates):
                if tuple(ring[0]) != tuple(ring[-1]):
                    yield Problem(f"{path}.coordinates[{ring_index}]", "expected a closed ring (last point equal to the first)")
                    break
            else:
                geometry = feature_geometry(feature)
                validity = explain_validity(geometry)
                if geometry.is_empty or shapely.make_valid(geometry).area <= 0:
                    yield Problem(path, "expected a polygon with a positive area, got an empty or flat one")
                elif not geometry.is_valid:
                    yield Problem(path, f"expected a valid polygon, got an invalid one ({validity})")
                elif not geometry.intersects(table):
                    yield Problem(path, "expected a polygon at least partly on the table")
        else:
            if feature.properties.kind in ("woods", "buildings", "hill", "field"):
                yield Problem(f"{path}.type", f"expected a Polygon for {feature.properties.kind}, got a LineString")
            elif shapely.LineString(feature.geometry.coordinates).length <= 0:
                yield Problem(path, "expected a line with a positive length")


def _objective_problems(model):
    for index, objective in enumerate(model.objectives):
        if not _on_table(objective.position, model):
            yield Problem(f"objectives[{index}].position", f"expected a point on the {model.table.width:g} x {model.table.depth:g} table, got {list(objective.position)}")


def _limit_problems(model, ruleset):
    unit = ruleset.time_unit + "s"
    if getattr(model.limits, unit) is None:
        yield Problem("limits", f"expected '{unit}' for the {ruleset.name} ruleset")
    missions = ruleset.tables.get("missions")
    if missions is not None:
        if model.mission is None:
            yield Problem("mission", f"expected a mission type, one of {sorted(k for k in missions if k not in ('source', 'rule'))}")
        elif model.mission not in missions or model.mission in ("source", "rule"):
            choices = sorted(k for k in missions if k not in ("source", "rule"))
            yield Problem("mission", f"expected one of {choices}, got {model.mission!r}{_suggest(model.mission, choices)}")
    if ruleset.uses_weather and model.weather is None:
        yield Problem("weather", f"expected wind and rain ({{\"wind\": {{\"from\": ..., \"knots\": ...}}, \"rain\": false}}) for the {ruleset.name} ruleset")
    if not ruleset.uses_weather and model.weather is not None:
        yield Problem("weather", f"expected no weather: the {ruleset.name} ruleset does not use wind or rain")
