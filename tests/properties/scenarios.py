"""Generated scenarios for the property tests: every map, varied the way a designer varies one.

A generated scenario starts from one of the maps and changes what a scenario
designer changes: where the units stand (each moved a few inches or tens of
metres, or in a scattered variant every unit, Blind and objective put anywhere
on the table and faced anywhere; a Blind moves with the unit under it), which units take part (some
left out, at least one on the table per side), the turn or period limit, the
command resources (CHQ), the weather (MET), and any of the ruleset's on/off
settings (the other readings of rules the sources leave open). Every variant
goes through ``parse_scenario``, so it is a scenario our loader accepts.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from dataclasses import dataclass
from types import MappingProxyType

from hypothesis import strategies as st

from engine.scenario import Scenario, load_scenario, parse_scenario
from tests.conftest import SCENARIO_FILES

__all__ = ["GeneratedScenario", "generated_scenarios", "MAP_NAMES"]

MAP_NAMES = tuple(path.stem for path in SCENARIO_FILES)
_SOURCES = {path.stem: path.read_text(encoding="utf-8") for path in SCENARIO_FILES}
_BOOLEAN_SETTINGS = {
    name: tuple(key for key, setting in load_scenario(path).ruleset.settings.items() if isinstance(setting.value, bool))
    for name, path in zip(MAP_NAMES, SCENARIO_FILES)
}
#: The longest game a property plays: short games keep the suite fast; every phase still happens.
MAX_TURNS = 3


@dataclass(frozen=True)
class GeneratedScenario:
    """A scenario, the seed of its game and the seed of the random legal choices played on it."""

    scenario: Scenario
    base: str
    game_seed: int
    choice_seed: int
    flipped: tuple[str, ...]

    def __repr__(self) -> str:  # what hypothesis prints for a failing example
        return f"GeneratedScenario({self.base}, game_seed={self.game_seed}, choice_seed={self.choice_seed}, flipped={self.flipped})"

    def _repr_pretty_(self, printer, cycle) -> None:  # hypothesis's printer: the short form, not the whole scenario
        printer.text(repr(self))


def _clip(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


@st.composite
def _variant(draw, base: str) -> dict:
    data = copy.deepcopy(json.loads(_SOURCES[base]))
    width, depth = float(data["table"]["width"]), float(data["table"]["depth"])
    step = 4.0 if data["ruleset"] == "chq" else 60.0
    margin = step / 4
    blinds = {blind["id"]: blind for blind in data.get("blinds", [])}
    scattered = draw(st.booleans())

    def anywhere() -> list[float]:
        return [round(draw(st.floats(0.05 * width, 0.95 * width)), 2), round(draw(st.floats(0.05 * depth, 0.95 * depth)), 2)]

    if scattered:
        for blind in blinds.values():
            blind["position"] = anywhere()
        for objective in data.get("objectives", []):
            objective["position"] = anywhere()
    kept = []
    for unit in data["units"]:
        on_table = unit.get("position") is not None
        if on_table and unit.get("blind") is None and draw(st.integers(0, 4)) == 0:
            continue  # left out of this game
        if on_table and scattered:
            unit["position"] = list(blinds[unit["blind"]]["position"]) if unit.get("blind") in blinds else anywhere()
            unit["facing"] = draw(st.floats(0, 359.9))
        elif on_table:
            dx = draw(st.floats(-step, step, allow_nan=False))
            dy = draw(st.floats(-step, step, allow_nan=False))
            x = _clip(unit["position"][0] + dx, margin, width - margin)
            y = _clip(unit["position"][1] + dy, margin, depth - margin)
            unit["position"] = [round(x, 2), round(y, 2)]
            if unit.get("blind") in blinds:
                blinds[unit["blind"]]["position"] = list(unit["position"])
        kept.append(unit)
    for side in data["sides"]:
        if not any(u["side"] == side["id"] and u.get("position") is not None for u in kept):
            kept.append(next(u for u in data["units"] if u["side"] == side["id"] and u.get("position") is not None))
    data["units"] = kept
    limits = data.setdefault("limits", {})
    for key in ("turns", "periods"):
        if key in limits:
            limits[key] = draw(st.integers(1, min(int(limits[key]), MAX_TURNS)))
    if data["ruleset"] == "chq":
        for side in data["sides"]:
            side["command_dice"] = draw(st.integers(3, 6))
            side["staff_orders"] = draw(st.integers(0, min(4, side["command_dice"])))
    weather = data.get("weather")
    if weather is not None:
        weather["wind"] = {"from": draw(st.integers(0, 359)), "knots": draw(st.integers(0, 30))}
        weather["rain"] = draw(st.booleans())
    return data


def _with_settings_flipped(scenario: Scenario, names: tuple[str, ...]) -> Scenario:
    rules = scenario.ruleset
    settings = dict(rules.settings)
    for name in names:
        settings[name] = dataclasses.replace(settings[name], value=not settings[name].value)
    return dataclasses.replace(scenario, ruleset=dataclasses.replace(rules, settings=MappingProxyType(settings)))


@st.composite
def generated_scenarios(draw, maps: tuple[str, ...] = MAP_NAMES) -> GeneratedScenario:
    """A scenario varied from one of ``maps``, with its game and choice seeds."""
    base = draw(st.sampled_from(maps))
    data = draw(_variant(base))
    scenario = parse_scenario(json.dumps(data), source=f"generated from {base}")
    flipped = tuple(draw(st.lists(st.sampled_from(_BOOLEAN_SETTINGS[base]), unique=True, max_size=4))) if _BOOLEAN_SETTINGS[base] else ()
    scenario = _with_settings_flipped(scenario, flipped)
    return GeneratedScenario(scenario, base, draw(st.integers(0, 2**31 - 1)), draw(st.integers(0, 2**31 - 1)), flipped)
