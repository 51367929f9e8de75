"""Scenario files: the documented JSON format (maps/FORMAT.md), its schema, and loading with validation."""

from .load import load_scenario, parse_scenario
from .model import FORMAT_VERSION, ScenarioModel
from .scenario import Blind, Objective, Scenario, Side, TerrainFeature, UnitSpec, Weather

__all__ = [
    "FORMAT_VERSION",
    "ScenarioModel",
    "Scenario",
    "Side",
    "UnitSpec",
    "Blind",
    "TerrainFeature",
    "Objective",
    "Weather",
    "load_scenario",
    "parse_scenario",
    "scenario_json_schema",
]


def scenario_json_schema() -> dict:
    """The JSON Schema of the scenario format, generated from the models (maps/scenario.schema.json)."""
    schema = ScenarioModel.model_json_schema(by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://fireplan.example/maps/scenario.schema.json",
        **schema,
    }
