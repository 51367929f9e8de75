"""Loading scenario files: every map loads; every broken file gets one sentence naming file, field and expectation."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from agent.cli import main
from engine.errors import ScenarioError
from engine.scenario import load_scenario
from tests.conftest import MAPS, SCENARIO_FILES

GOOD_CHQ = json.loads((MAPS / "chq_saint_aubin.json").read_text())
GOOD_MET = json.loads((MAPS / "met_le_mesnil.json").read_text())


def test_every_map_loads(scenario_path):
    scenario = load_scenario(scenario_path)
    assert scenario.units and len(scenario.sides) == 2
    assert scenario.ruleset.name == scenario_path.name.split("_")[0]


def test_there_is_a_map_per_ruleset():
    assert {path.name.split("_")[0] for path in SCENARIO_FILES} >= {"chq", "met"}


def test_loaded_scenario_keeps_blinds_and_terrain():
    scenario = load_scenario(MAPS / "chq_saint_aubin.json")
    dummies = [blind.id for blind in scenario.blinds if blind.dummy]
    assert dummies == ["de-b4", "de-b5"]
    hedge = next(feature for feature in scenario.terrain if feature.kind == "hedge")
    assert hedge.geometry.area == pytest.approx(12.0416 * 0.5, rel=1e-3)  # a 0.5" wide line, ~12.04" long
    assert scenario.side("us").supply_dice == 5  # CHQ-22 USA 5D from the nation table
    assert [unit.id for unit in scenario.units if unit.off_table] == ["us-bty-a", "us-bty-b", "de-bty-a"]


def _set(path: str, value):
    """A mutation that sets ``path`` (dots and [i]) to ``value``."""

    def mutate(data):
        *parents, last = _parts(path)
        node = data
        for part in parents:
            node = node[part]
        node[last] = value

    return mutate


def _delete(path: str):
    def mutate(data):
        *parents, last = _parts(path)
        node = data
        for part in parents:
            node = node[part]
        del node[last]

    return mutate


def _parts(path: str):
    parts = []
    for piece in path.replace("]", "").split("."):
        name, *indices = piece.split("[")
        if name:
            parts.append(name)
        parts.extend(int(index) for index in indices)
    return parts


def _append_unit(unit):
    return lambda data: data["units"].append(unit)


BOWTIE = [[[10, 10], [20, 20], [20, 10], [10, 20], [10, 10]]]

# (case id, base map, mutation, field path named in the message, words the message must contain)
BROKEN = [
    ("unknown-card", GOOD_CHQ, _set("units[0].card", "US Rifle Platoonn"), "units[0].card", "did you mean 'US Rifle Platoon'"),
    ("unit-off-table", GOOD_CHQ, _set("units[1].position", [80, 10]), "units[1].position", "on the 72 x 48 table"),
    ("self-intersecting-polygon", GOOD_CHQ, _set("terrain.features[0].geometry.coordinates", BOWTIE), "terrain.features[0].geometry", "Self-intersection"),
    ("open-ring", GOOD_CHQ, _set("terrain.features[2].geometry.coordinates", [[[0, 0], [5, 0], [5, 5], [0, 5]]]), "terrain.features[2].geometry.coordinates[0]", "closed ring"),
    ("flat-polygon", GOOD_CHQ, _set("terrain.features[2].geometry.coordinates", [[[0, 0], [5, 0], [10, 0], [0, 0]]]), "terrain.features[2].geometry", "positive area"),
    ("negative-dice", GOOD_CHQ, _set("sides[0].command_dice", -2), "sides[0].command_dice", "greater than or equal to 0"),
    ("blind-without-owner", GOOD_CHQ, _delete("blinds[0].owner"), "blinds[0].owner", "is missing"),
    ("blind-owner-unknown", GOOD_CHQ, _set("blinds[0].owner", "fr"), "blinds[0].owner", "side ids"),
    ("duplicate-unit-id", GOOD_CHQ, _set("units[1].id", "us-rifle-1"), "units[1].id", "unique id"),
    ("duplicate-blind-id", GOOD_CHQ, _set("blinds[4].id", "de-b4"), "blinds[4].id", "unique id"),
    ("nan-coordinate", GOOD_CHQ, _set("units[0].position", [float("nan"), 3]), "line 1 column", "finite numbers, got NaN"),
    ("string-coordinate", GOOD_CHQ, _set("units[0].position", ["ten", 3]), "units[0].position[0]", "valid number"),
    ("unknown-ruleset", GOOD_CHQ, _set("ruleset", "asl"), "ruleset", "'chq' or 'met'"),
    ("wrong-length-unit", GOOD_CHQ, _set("table.units", "m"), "table.units", "expected 'in'"),
    ("staff-orders-over-command-dice", GOOD_CHQ, _set("sides[1].staff_orders", 9), "sides[1].staff_orders", "CHQ-15"),
    ("unknown-mission", GOOD_CHQ, _set("mission", "attack-defence"), "mission", "did you mean 'attack-defend'"),
    ("unknown-field", GOOD_CHQ, _set("units[3].speed", "fast"), "units[3].speed", "not a field"),
    ("dummy-with-unit", GOOD_CHQ, _set("units[6].blind", "de-b4"), "blinds[0].dummy", "exactly one unit"),
    ("blind-of-other-side", GOOD_CHQ, _set("units[0].blind", "de-b4"), "units[0].blind", "owned by side 'us'"),
    ("battery-with-position", GOOD_CHQ, _set("units[4].position", [3, 3]), "units[4].position", "off-table battery"),
    ("no-turn-limit", GOOD_CHQ, _set("limits", {"periods": 8}), "limits", "'turns'"),
    ("both-limits", GOOD_CHQ, _set("limits", {"turns": 6, "periods": 8}), "limits", "exactly one"),
    ("weather-in-chq", GOOD_CHQ, _set("weather", {"wind": {"from": 0, "knots": 5}}), "weather", "does not use wind"),
    ("met-without-weather", GOOD_MET, _delete("weather"), "weather", "wind and rain"),
    ("met-wind-bearing-360", GOOD_MET, _set("weather.wind.from", 360), "weather.wind.from", "less than 360"),
    ("wrong-format", GOOD_CHQ, _set("format", "fireplan-scenario/0"), "format", "fireplan-scenario/1"),
    ("one-side", GOOD_CHQ, lambda data: data["sides"].pop(), "sides", "at least 2 items"),
    ("woods-as-line", GOOD_CHQ, _set("terrain.features[1].geometry", {"type": "LineString", "coordinates": [[0, 0], [5, 5]]}), "terrain.features[1].geometry.type", "Polygon for woods"),
    ("objective-off-table", GOOD_CHQ, _set("objectives[0].position", [38, -4]), "objectives[0].position", "on the 72 x 48 table"),
    ("bad-id", GOOD_CHQ, _set("units[0].id", "rifle platoon #1"), "units[0].id", "match pattern"),
]


@pytest.mark.parametrize("case, base, mutate, field, words", BROKEN, ids=[case[0] for case in BROKEN])
def test_broken_file_is_refused_with_one_sentence(tmp_path: Path, case, base, mutate, field, words):
    data = copy.deepcopy(base)
    mutate(data)
    path = tmp_path / f"{case}.json"
    path.write_text(json.dumps(data))  # json.dumps writes NaN for the NaN case, as a careless editor would
    with pytest.raises(ScenarioError) as raised:
        load_scenario(path)
    message = str(raised.value)
    assert message.startswith(f"{path}: {field}"), message
    assert words in message, message
    assert message.count("\n") == 0 and message.endswith(".")


def test_broken_files_cover_at_least_fifteen_distinct_problems():
    assert len({case[3] for case in BROKEN}) >= 15


@pytest.mark.parametrize(
    "text, words",
    [
        ("{\"format\": ", "line 1 column 12: expected valid JSON"),
        ("", "expected valid JSON"),
        ("[1, 2, 3]", "(top level): expected a valid dictionary"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
    ids=["truncated", "empty", "not-an-object", "deeply-nested"],
)
def test_malformed_json_is_refused(tmp_path: Path, text, words):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=None) as raised:
        load_scenario(path)
    assert words in str(raised.value)


def test_missing_file_and_binary_file(tmp_path: Path):
    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario(tmp_path / "absent.json")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(ScenarioError, match="UTF-8"):
        load_scenario(binary)


def test_check_command_exits_2_with_one_line(tmp_path: Path, capsys):
    data = copy.deepcopy(GOOD_CHQ)
    data["units"][0]["card"] = "Tiger Tank"
    path = tmp_path / "tiger.json"
    path.write_text(json.dumps(data))
    assert main(["check", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().count("\n") == 0
    assert "units[0].card: expected a chq card name, got unknown card 'Tiger Tank'" in captured.err
    assert "Traceback" not in captured.err


def test_check_command_accepts_every_map(capsys):
    assert main(["check", *map(str, SCENARIO_FILES)]) == 0
    assert capsys.readouterr().out.count(": ok: ") == len(SCENARIO_FILES)
