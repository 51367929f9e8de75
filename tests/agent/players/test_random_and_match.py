"""The shared game loop: every map plays to the end between random players, and replays exactly."""

from __future__ import annotations

import pytest

from agent.match import play_game
from agent.players import RandomPlayer
from engine.scenario import load_scenario


def _play(path, seed):
    scenario = load_scenario(path)
    state = scenario.new_game(seed=seed)
    players = {side.id: RandomPlayer(seed * 10 + index) for index, side in enumerate(scenario.sides)}
    return state, play_game(state, players)


def test_random_players_finish_every_map(scenario_path):
    state, record = _play(scenario_path, seed=1)
    assert state.is_terminal()
    assert sorted(record.returns.values()) in ([-1.0, 1.0], [0.0, 0.0])
    assert set(record.score) == {side.id for side in load_scenario(scenario_path).sides}
    assert record.decisions > 0


@pytest.mark.parametrize("seed", [0, 3])
def test_same_seeds_same_game(scenario_path, seed):
    _, first = _play(scenario_path, seed)
    _, second = _play(scenario_path, seed)
    assert first.actions == second.actions and first.returns == second.returns


def test_different_seeds_give_different_games(scenario_path):
    _, first = _play(scenario_path, 0)
    _, second = _play(scenario_path, 1)
    assert first.actions != second.actions
