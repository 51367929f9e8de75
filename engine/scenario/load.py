"""Reading a scenario file: JSON, then shape (pydantic), then meaning (checks), then a frozen Scenario.

Every failure is one ``ScenarioError`` whose message is a sentence naming the
file, the field path and what was expected, e.g.::

    maps/x.json: units[2].position: expected a point on the 72 x 48 table, got [80.0, 10.0].
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.errors import ScenarioError
from engine.files import read_user_text
from engine.rulesets import load_ruleset

from .checks import Problem, feature_geometry, scenario_problems
from .model import ScenarioModel
from .scenario import Blind, Objective, Scenario, Side, TerrainFeature, UnitSpec, Weather

__all__ = ["load_scenario", "parse_scenario", "MAX_FILE_BYTES"]

#: A scenario is a few hundred kilobytes at most; a bigger file is refused before parsing.
MAX_FILE_BYTES = 5_000_000


def load_scenario(path: str | Path) -> Scenario:
    """Load and validate the scenario file at ``path``.

    Examples
    --------
    >>> load_scenario("maps/chq_saint_aubin.json").ruleset.name
    'chq'
    """
    path = Path(path)
    text = read_user_text(path, what="scenario file", max_bytes=MAX_FILE_BYTES, error=ScenarioError)
    return parse_scenario(text, source=str(path), path=path)


def parse_scenario(text: str, *, source: str = "<scenario>", path: Path | None = None) -> Scenario:
    """Validate scenario JSON ``text``; ``source`` names it in error messages."""
    data = _parse_json(text, source)
    try:
        model = ScenarioModel.model_validate(data)
    except ValidationError as error:
        problems = tuple(_format_pydantic(source, item) for item in error.errors())
        raise ScenarioError(problems[0], problems=problems) from None
    ruleset = load_ruleset(model.ruleset)
    problems = tuple(_sentence(source, problem) for problem in scenario_problems(model, ruleset))
    if problems:
        raise ScenarioError(problems[0], problems=problems)
    return _build(model, ruleset, path)


def _parse_json(text: str, source: str) -> Any:
    try:
        return json.loads(text, parse_constant=lambda name: _reject_constant(name, text))
    except json.JSONDecodeError as error:
        raise ScenarioError(f"{source}: line {error.lineno} column {error.colno}: expected valid JSON ({error.msg}).") from None
    except RecursionError:
        raise ScenarioError(f"{source}: expected a scenario object, got JSON nested too deeply to be one.") from None
    except ValueError as error:
        raise ScenarioError(f"{source}: {error}.") from None


def _reject_constant(name: str, text: str):
    """JSON has no NaN or Infinity; Python's json reads them, so refuse them where they stand."""
    match = re.search(rf"(?<![\w\"]){re.escape(name)}(?![\w\"])", text)
    offset = match.start() if match else 0
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    raise ValueError(f"line {line} column {column}: expected finite numbers, got {name} (not valid JSON)")


def _location(loc: tuple) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part in ("Polygon", "LineString", "function-after[_exactly_one(), LimitsModel]"):
            continue  # pydantic's names for union branches, not fields
        else:
            path += ("." if path else "") + str(part)
    return path or "(top level)"


def _format_pydantic(source: str, item: dict) -> str:
    kind, message, value = item["type"], item["msg"], item.get("input")
    where = _location(item["loc"])
    if kind == "missing":
        text = "is missing; expected a value"
    elif kind == "extra_forbidden":
        text = "is not a field of the scenario format; remove it or check its spelling"
    else:
        message = message.removeprefix("Value error, ").removeprefix("Input should be ").removeprefix("Input ")
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        text = f"expected {message}, got {shown}"
    return _sentence(source, Problem(where, text))


def _sentence(source: str, problem: Problem) -> str:
    text = f"{source}: {problem.path}: {problem.message}"
    return text if text.endswith(".") else text + "."


def _build(model: ScenarioModel, ruleset, path: Path | None) -> Scenario:
    supply_table = ruleset.tables.get("supply_dice", {})
    default_comms = ruleset.settings["comms_response_dice"].value if "comms_response_dice" in ruleset.settings else 0
    sides = tuple(
        Side(
            id=side.id,
            name=side.name,
            nation=side.nation,
            edge=side.edge,
            attacker=side.attacker,
            command_dice=side.command_dice,
            comms_dice=default_comms if side.comms_dice is None else side.comms_dice,
            supply_dice=supply_table.get(side.nation, 0) if side.supply_dice is None else side.supply_dice,
            staff_orders=side.staff_orders,
            morale_points=side.morale_points,
        )
        for side in model.sides
    )
    units = tuple(
        UnitSpec(unit.id, ruleset.cards[unit.card], unit.side, unit.position, unit.facing, unit.blind)
        for unit in model.units
    )
    blinds = tuple(Blind(blind.id, blind.owner, blind.position, blind.dummy) for blind in model.blinds)
    terrain = tuple(
        TerrainFeature(
            id=feature.id or f"feature-{index}",
            kind=feature.properties.kind,
            geometry=feature_geometry(feature),
            blocks_sight=feature.properties.blocks_sight,
            cover=feature.properties.cover,
            height=feature.properties.height,
            difficult=feature.properties.difficult,
            burning=feature.properties.burning,
            name=feature.properties.name,
        )
        for index, feature in enumerate(model.terrain.features)
    )
    objectives = tuple(Objective(o.id, o.position, o.radius, o.points, o.name) for o in model.objectives)
    weather = None
    if model.weather is not None:
        weather = Weather(model.weather.wind.from_bearing, model.weather.wind.knots, model.weather.rain)
    return Scenario(
        name=model.name,
        description=model.description,
        ruleset=ruleset,
        width=model.table.width,
        depth=model.table.depth,
        length_unit=model.table.units,
        sides=sides,
        units=units,
        blinds=blinds,
        terrain=terrain,
        objectives=objectives,
        turns=model.limits.turns,
        periods=model.limits.periods,
        mission=model.mission,
        weather=weather,
        path=path,
    )
