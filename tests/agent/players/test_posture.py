"""PosturePlayer: one plain way of fighting, blind to hidden facts, the same game for a seed."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from agent.match import play_game
from agent.players import PosturePlayer, RandomPlayer
from engine.scenario import load_scenario

from .test_search import _flip_chq, _flip_met, _same_public_start

MAPS = Path(__file__).resolve().parents[3] / "maps"


def _first_choice(name: str):
    state = load_scenario(MAPS / f"{name}.json").new_game(seed=1)
    while state.is_chance_node():
        state.apply_action(state.sample_chance())
    return state


def test_each_posture_fights_its_own_way():
    """At the British first move on met_le_mesnil: assault closes on the objective, hold stays,
    withdraw moves back toward the British edge (south, y = 0)."""
    state = _first_choice("met_le_mesnil")
    assault, hold, withdraw = (PosturePlayer(name, seed=0).plan(state)[0] for name in ("assault", "hold", "withdraw"))
    assert state.action_kind(assault.action) == "move" and "closer to the objective" in assault.reason
    assert state.action_kind(hold.action) == "hold"
    element = state.elements[withdraw.action.element]
    assert state.action_kind(withdraw.action) == "move" and withdraw.action.y < element.position[1]
    objective = min(state.scenario.objectives, key=lambda o: math.dist(o.position, state.elements[assault.action.element].position))
    before = math.dist(state.elements[assault.action.element].position, objective.position)
    assert math.dist(assault.action.point, objective.position) < before


@pytest.mark.parametrize("name", ["chq_saint_aubin", "met_burning_village"])
def test_a_posture_plays_whole_games_legally_and_the_same_for_a_seed(name):
    scenario = load_scenario(MAPS / f"{name}.json")
    sides = [s.id for s in scenario.sides]
    records = [play_game(scenario.new_game(seed=4), {sides[0]: PosturePlayer("assault", seed=3),
                                                     sides[1]: RandomPlayer(5)}) for _ in range(2)]
    assert records[0].actions == records[1].actions  # play_game applies each order: an illegal one would raise
    assert records[0].decisions > 10


@pytest.mark.parametrize("ruleset", ["chq", "met"])
@pytest.mark.parametrize("posture", ["balanced", "assault", "hold"])
def test_a_posture_never_reads_the_enemys_hidden_facts(ruleset, posture, tmp_path):
    pair = _flip_chq(tmp_path) if ruleset == "chq" else _flip_met()
    first, second = _same_public_start(pair, "gb", seed=3)
    assert first.observation("de") != second.observation("de")
    assert PosturePlayer(posture, seed=7).plan(first) == PosturePlayer(posture, seed=7).plan(second)


def test_an_unknown_posture_is_named():
    with pytest.raises(ValueError, match="unknown posture 'charge'.*assault"):
        PosturePlayer("charge")


def test_every_posture_is_a_player_by_name():
    from agent.players.registry import ALL_PLAYERS, POSTURE_NAMES, make_player
    from agent.search.policy import POSTURES
    from engine.errors import FireplanError

    assert set(POSTURE_NAMES) == set(POSTURES) and set(POSTURE_NAMES) <= set(ALL_PLAYERS)
    made = make_player("hold", seed=3)
    assert isinstance(made.player, PosturePlayer) and made.name == "hold" and made.note == ""
    assert made.player.posture is POSTURES["hold"]
    with pytest.raises(FireplanError, match="got 'charge'.*withdraw|withdraw.*got 'charge'"):
        make_player("charge")
