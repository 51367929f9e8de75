"""Narration: an order's sentence says who does what, and where, in plain grammar."""

from __future__ import annotations

from agent.narrate import _what, order_sentence
from agent.players import GreedyPlayer
from engine.rulesets.met.actions import Mission
from engine.scenario import load_scenario


def _met_artillery_decision():
    state = load_scenario("maps/met_le_mesnil.json").new_game(seed=1)
    players = {"gb": GreedyPlayer(1), "de": GreedyPlayer(2)}
    while state.is_chance_node() or state.phase != "artillery":
        state.apply_action(state.sample_chance() if state.is_chance_node() else players[state.current_player()].act(state))
    return state


def test_a_battery_order_names_the_battery_and_its_point():
    state = _met_artillery_decision()
    he = Mission("gb-25pdr", "he", 725.0, 995.0)
    smoke = Mission("gb-25pdr", "smoke", 725.0, 995.0)
    assert state.is_legal(he) and state.is_legal(smoke)
    assert order_sentence(state, he).endswith(": gb-25pdr brings down artillery on 725,995.")
    assert order_sentence(state, smoke).endswith(": gb-25pdr lays smoke at 725,995.")


def test_without_actors_the_side_is_the_subject():
    assert _what({"kind": "artillery"}) == "brings down artillery"
    assert _what({"kind": "fire", "target": "de-pak-1"}) == "fires at de-pak-1"
    assert _what({"kind": "hold", "actors": ("gb-sherman-1",)}) == "gb-sherman-1 holds"
    assert _what({"kind": "group", "actors": ()}) == "activates its units"
