"""``python -m engine.scenario`` writes the scenario JSON Schema to stdout (saved as maps/scenario.schema.json)."""

import json

from . import scenario_json_schema

print(json.dumps(scenario_json_schema(), indent=2))
