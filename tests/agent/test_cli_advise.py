"""``fireplan advise``: its JSON agrees with the planners it asks; a picture; one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agent.cli import main
from agent.saves import load_game, new_save, write_save
from engine.scenario import load_scenario

BARRAGE = Path("maps/chq_blind_barrage.json")
PULSE = Path("maps/chq_smoke_advance.json")


def _advise(capsys, *argv):
    assert main(["advise", *map(str, argv)]) == 0
    return json.loads(capsys.readouterr().out)


def test_barrage_before_turn_one_equals_plan_barrage(capsys):
    from agent.fires import plan_barrage

    out = _advise(capsys, BARRAGE, "--side", "gb", "--json")
    assert out["side"] == "gb" and "Initial Barrage" in out["decision"]
    direct = plan_barrage(load_scenario(BARRAGE).new_game(seed=0), "gb", time_limit=2.0, random_seed=0)
    top = out["plans"][0]
    assert top["source"] == "barrage" and top["rank"] == 1
    assert top["actions"] == [str(a) for a in direct.actions()]
    assert top["expected_value"] == pytest.approx(direct.expected_value)
    assert set(top["odds"]) and all("p_suppress" in o and "p_disperse" in o for o in top["odds"].values())
    assert top["reasons"][1:] == direct.explain().splitlines()[1:]  # the first line holds the wall time


@pytest.fixture(scope="module")
def pulse_save(tmp_path_factory):
    """A seeded random game of the smoke map, saved at a pulse of us in turn 2 (fires and smoke apply)."""
    state = load_scenario(PULSE).new_game(seed=1)
    rng = np.random.default_rng(1)
    actions = []
    for _ in range(200):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            action = outcomes[rng.choice(len(outcomes), p=[p for _, p in outcomes])][0]
        else:
            legal = state.legal_actions()
            kinds = {i["kind"] for i in state.describe_actions(legal, detail=False)}
            if state.current_player() == "us" and state.turn >= 2 and {"artillery", "smoke"} <= kinds:
                break
            action = legal[rng.integers(len(legal))]
        actions.append(str(action))
        state.apply_action(action)
    else:
        pytest.fail("no us pulse with artillery reached")
    save = new_save(PULSE, seed=1, human="us", dice="computer", players={})
    return write_save(save.with_actions(actions, state.rng), tmp_path_factory.mktemp("advise") / "pulse.save.json")


def test_pulse_json_agrees_with_plan_fires_and_plan_smoke(pulse_save, capsys):
    from agent.fires import plan_fires
    from agent.smoke.planner import plan_smoke

    out = _advise(capsys, pulse_save, "--side", "us", "--json", "--top", "10")
    state = load_game(pulse_save).state
    by_source = {}
    for plan in out["plans"]:
        by_source.setdefault((plan["source"], plan["method"]), plan)
    assert [p["rank"] for p in out["plans"]] == list(range(1, len(out["plans"]) + 1))
    values = [p["expected_value"] for p in out["plans"]]
    assert values == sorted(values, reverse=True)
    fires = plan_fires(state, "us", method="cpsat", time_limit=2.0, random_seed=0)
    if fires.actions():
        got = by_source[("fires", "cpsat")]
        assert got["actions"] == [str(a) for a in fires.actions()]
        assert got["expected_value"] == pytest.approx(fires.expected_value)
    smoke = plan_smoke(state, "us", method="greedy", seed=0)
    if smoke.actions:
        got = next(p for p in out["plans"] if p["source"] == "smoke" and p["actions"] == [str(a) for a in smoke.actions])
        assert got["expected_value"] == pytest.approx(smoke.objective)
        assert got["threat_removed"] == pytest.approx(smoke.threat_blocked)
        assert sorted(map(tuple, got["sight_lines_cut"])) == sorted({(b.observer_id, b.target_id) for b in smoke.blocked})
    assert {p["source"] for p in out["plans"]} == {"fires", "smoke"}
    assert fires.actions() and smoke.actions


def test_no_planner_names_the_decision(pulse_save, capsys):
    out = _advise(capsys, pulse_save, "--side", "de", "--json")
    assert out["plans"] == [] and "us" in out["decision"] and "no planner" in out["decision"]


def test_png_is_written(pulse_save, tmp_path, capsys):
    png = tmp_path / "advice.png"
    assert main(["advise", str(pulse_save), "--side", "us", "--png", str(png), "--time-limit", "1"]) == 0
    assert png.stat().st_size > 1000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "#1" in capsys.readouterr().out


def test_bad_side_is_one_line(capsys):
    assert main(["advise", str(BARRAGE), "--side", "xx"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--side" in err and "gb" in err


def test_chq_25_barrage_ahead_hook_follows_the_initial_barrage():
    """CHQ-25: the fire-planning hook says whether a side's Initial Barrage is still to come; it is
    ahead for the barraging side before turn 1 and over once turn 1 starts."""
    state = load_scenario(BARRAGE).new_game(seed=0)
    assert state.fire_planning().barrage_ahead("gb")
    rng = np.random.default_rng(0)
    while state.turn == 0:
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
    assert not state.fire_planning().barrage_ahead("gb")
    assert not any(state.fire_planning().barrage_ahead(side.id) for side in state.scenario.sides)


def test_turn_plans_are_the_searchs_candidates_with_their_routes(capsys, tmp_path):
    """MET at the British movement: whole-turn plans best first, each route starting where its unit
    stands and ending where one of the plan's move orders sends it; the picture has a panel a plan."""
    scenario = Path("maps/met_le_mesnil.json")
    png = tmp_path / "turn.png"
    out = _advise(capsys, scenario, "--side", "gb", "--json", "--iterations", "8", "--png", png)
    plans = out["turn_plans"]
    assert 1 <= len(plans) <= 3 and [p["rank"] for p in plans] == list(range(1, len(plans) + 1))
    assert [p["value"] for p in plans] == sorted((p["value"] for p in plans), reverse=True)
    assert all(-1.0 <= p["value"] <= 1.0 and p["simulations"] >= 1 for p in plans)
    assert sum(p["simulations"] for p in plans) <= 8
    start = {p["id"]: list(map(float, p["position"])) for p in load_scenario(scenario).new_game(seed=0).known_pieces("gb")}
    routed = [p for p in plans if p["routes"]]
    assert routed, "no plan moves a unit"
    for plan in routed:
        for unit, points in plan["routes"].items():
            assert points[0] == start[unit] and len(points) >= 2
            assert f"move {unit} {points[-1][0]:g},{points[-1][1]:g}" in plan["actions"]
    from PIL import Image

    assert Image.open(png).size[0] == 2000  # two panels a row, each 10 inches at 100 dpi


def test_no_turn_plans_when_asked_for_none_or_not_to_move(capsys):
    assert _advise(capsys, Path("maps/met_le_mesnil.json"), "--side", "gb", "--json", "--iterations", "0")["turn_plans"] == []
    assert _advise(capsys, Path("maps/met_le_mesnil.json"), "--side", "de", "--json")["turn_plans"] == []
