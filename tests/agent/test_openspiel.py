"""The OpenSpiel adapter: every map is a pyspiel game passing random_sim_test; MCTSBot plays it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from agent.openspiel_adapter import GAME_NAMES, OpenSpielMCTSPlayer, game_for  # noqa: E402
from agent.players import RandomPlayer  # noqa: E402
from engine.scenario import load_scenario  # noqa: E402

MAPS = Path(__file__).resolve().parents[2] / "maps"
ALL_MAPS = sorted(p for p in MAPS.glob("*.json") if not p.name.endswith(".schema.json"))


def _load(path):
    return pyspiel.load_game(GAME_NAMES[load_scenario(path).ruleset.name], {"map": path.stem})


@pytest.mark.parametrize("path", ALL_MAPS, ids=lambda p: p.stem)
def test_random_sim_test(path):
    pyspiel.random_sim_test(_load(path), num_sims=1, serialize=False, verbose=False)


def test_game_facts():
    game = _load(MAPS / "chq_saint_aubin.json")
    info = game.get_type()
    assert info.short_name == "fireplan_chq"
    assert info.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert info.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.num_players() == 2 and game.max_utility() == 1.0 and game.min_utility() == -1.0
    with pytest.raises(Exception):
        pyspiel.load_game("fireplan_chq", {"map": "met_calm_bocage"})  # a MET map is not a CHQ game


def test_action_ids_are_indices_of_the_engine_list():
    game = _load(MAPS / "met_le_mesnil.json")
    state = game.new_initial_state()
    engine = load_scenario(MAPS / "met_le_mesnil.json").new_game(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        if state.is_terminal():
            break
        assert state.legal_actions() == list(range(len(engine.legal_actions())))
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert [a for a, _ in outcomes] == sorted(a for a, _ in outcomes)
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            ids = [a for a, _ in outcomes]
            k = ids[int(rng.integers(len(ids)))]
        else:
            k = int(rng.integers(len(state.legal_actions())))
        assert state.action_to_string(state.current_player(), k) == str(engine.legal_actions()[k])
        engine.apply_action(engine.legal_actions()[k])
        state.apply_action(k)
        assert state.engine.observation("gb") == engine.observation("gb")


def test_clone_is_independent():
    game = _load(MAPS / "chq_smoke_advance.json")
    state = game.new_initial_state()
    copy = state.clone()
    state.apply_action(state.legal_actions()[0])
    assert copy.history() == [] and len(state.history()) == 1
    assert copy.engine is not state.engine


def test_observer_reads_the_observation():
    game = _load(MAPS / "chq_blind_barrage.json")
    state = game.new_initial_state()
    assert "enemy_blinds" in state.observation_string(0)
    tensor = state.observation_tensor(0)
    assert len(tensor) == 8 and tensor[4] == 4  # the four German Blinds, seen as Blinds


def test_mcts_player_plays_legal_and_reproducible_moves():
    scenario = load_scenario(MAPS / "met_calm_bocage.json")
    state = scenario.new_game(seed=3)
    while state.is_chance_node() or len(state.legal_actions()) < 2:
        state.apply_action(state.sample_chance() if state.is_chance_node() else state.legal_actions()[0])
    first = OpenSpielMCTSPlayer(seed=1, time_per_decision=None, max_simulations=3).act(state)
    second = OpenSpielMCTSPlayer(seed=1, time_per_decision=None, max_simulations=3).act(state)
    assert state.is_legal(first) and first == second
    assert game_for(scenario).scenario is scenario


def test_mcts_player_finishes_a_game():
    scenario = load_scenario(MAPS / "met_strong_ridge.json")
    state = scenario.new_game(seed=0)
    sides = [s.id for s in scenario.sides]
    bot = OpenSpielMCTSPlayer(seed=0, time_per_decision=None, max_simulations=2)
    players = {sides[0]: bot, sides[1]: RandomPlayer(0)}
    from agent.match import play_game

    record = play_game(state, players)
    assert state.is_terminal() and bot.simulations and max(bot.simulations) <= 2
    assert sorted(record.returns.values()) in ([-1.0, 1.0], [0.0, 0.0])
