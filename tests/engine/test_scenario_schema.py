"""The JSON Schema in maps/ is the one the loader's models generate, and every map satisfies it."""

from __future__ import annotations

import json

import jsonschema
import pytest

from engine.scenario import scenario_json_schema
from tests.conftest import MAPS, SCENARIO_FILES

SCHEMA_FILE = MAPS / "scenario.schema.json"


def test_schema_file_is_up_to_date():
    """Regenerate with: .venv/bin/python -m engine.scenario > maps/scenario.schema.json"""
    assert json.loads(SCHEMA_FILE.read_text()) == scenario_json_schema()


def test_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(scenario_json_schema())


def test_every_map_satisfies_the_schema(scenario_path):
    jsonschema.validate(json.loads(scenario_path.read_text()), scenario_json_schema())


@pytest.mark.parametrize(
    "mutation",
    [
        lambda d: d.pop("ruleset"),
        lambda d: d["units"][0].update(position=[1, 2, 3]),
        lambda d: d["sides"][0].update(command_dice=-1),
        lambda d: d["terrain"]["features"][0]["properties"].update(kind="swamp"),
        lambda d: d.update(surprise=True),
    ],
    ids=["no-ruleset", "three-coordinates", "negative-dice", "unknown-kind", "extra-field"],
)
def test_schema_rejects_what_the_loader_rejects(mutation):
    data = json.loads(SCENARIO_FILES[0].read_text())
    mutation(data)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, scenario_json_schema())
