"""``action_kind`` is ``describe_actions``' kind without the values, on every map and ruleset."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.players import RandomPlayer
from engine.scenario import load_scenario

MAPS = sorted((Path(__file__).resolve().parents[2] / "maps").glob("[cm]*_*.json"))


@pytest.mark.parametrize("path", MAPS, ids=lambda p: p.stem)
def test_action_kind_names_what_describe_actions_names(path):
    state = load_scenario(path).new_game(seed=3)
    player, decisions, kinds = RandomPlayer(3), 0, set()
    while not state.is_terminal() and decisions < 120:
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
            continue
        actions = state.legal_actions()
        described = [info["kind"] for info in state.describe_actions(actions)]
        assert [state.action_kind(a) for a in actions] == described
        kinds.update(described)
        state.apply_action(player.act(state))
        decisions += 1
    assert {"move", "fire"} <= kinds and kinds & {"smoke", "artillery", "barrage"}, kinds


@pytest.mark.parametrize("path", MAPS, ids=lambda p: p.stem)
def test_a_cheap_description_names_the_same_kind_actors_and_point_as_the_full_one(path):
    """``detail=False`` leaves the values out, never who acts or where (narration reads them)."""
    state = load_scenario(path).new_game(seed=3)
    player, decisions, batteries = RandomPlayer(3), 0, 0
    while not state.is_terminal() and decisions < 60:
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
            continue
        actions = state.legal_actions()
        for cheap, full in zip(state.describe_actions(actions, detail=False), state.describe_actions(actions)):
            assert {k: cheap.get(k) for k in ("kind", "actors", "at")} == {k: full.get(k) for k in ("kind", "actors", "at")}
            batteries += full["kind"] in ("artillery", "smoke") and full.get("at") is not None
        state.apply_action(player.act(state))
        decisions += 1
    assert batteries, "some battery order was compared"
