"""agent/maps.py: the bundled scenarios by name, and the one message for a name that is not a map."""

from __future__ import annotations

import doctest

import pytest

import agent.maps
from agent.maps import MAPS_DIR, map_names, map_path
from engine.scenario import load_scenario

from .experiments import load_experiment


def test_the_modules_examples_hold():
    assert doctest.testmod(agent.maps).failed == 0


def test_every_scenario_file_is_a_map_and_the_schema_is_not():
    files = sorted(p.stem for p in MAPS_DIR.iterdir() if p.suffix == ".json" and p.stem != "scenario.schema")
    assert map_names() == files and "scenario.schema" not in map_names()
    assert len(files) == 8


def test_a_ruleset_lists_the_maps_that_play_it():
    assert map_names("met") == ["met_burning_village", "met_calm_bocage", "met_le_mesnil", "met_strong_ridge"]
    assert map_names("chq") == ["chq_blind_barrage", "chq_saint_aubin", "chq_smoke_advance", "chq_tot_crossroads"]
    assert all(load_scenario(map_path(name)).ruleset.name == "chq" for name in map_names("chq"))
    assert map_names("nothing") == []


def test_a_name_or_a_file_is_a_scenario_and_anything_else_is_named(tmp_path):
    assert map_path("met_le_mesnil") == MAPS_DIR / "met_le_mesnil.json"
    assert map_path(MAPS_DIR / "chq_saint_aubin.json") == MAPS_DIR / "chq_saint_aubin.json"
    for wrong in ("atlantis", "scenario.schema", str(tmp_path / "gone.json")):
        with pytest.raises(ValueError, match=r"no map '.*': give a scenario file or one of chq_blind_barrage, "):
            map_path(wrong)


@pytest.mark.parametrize("script, argv", [
    ("tournament", ["--maps", "atlantis", "--pairs", "ai:random"]),
    ("seat_ceiling", ["--maps", "atlantis"]),
    ("fit_evaluation", ["--maps", "met_le_mesnil", "atlantis"]),
])
def test_an_experiment_names_a_map_that_is_not_one(script, argv, capsys):
    with pytest.raises(SystemExit) as stop:
        load_experiment(script).main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "unknown map 'atlantis': one of chq_blind_barrage" in err


def test_the_stress_benchmark_names_a_map_that_is_not_one(capsys):
    with pytest.raises(SystemExit) as stop:
        load_experiment("bench_stress").main(["--map", "atlantis"])
    assert stop.value.code == 2 and "no map 'atlantis'" in capsys.readouterr().err
