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
