"""The MET order notation: every order and chance outcome prints and parses back to itself."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import FireplanError, IllegalActionError
from engine.rulesets.met.actions import (
    DirectSmoke, Discharge, End, Fire, Grenade, Hold, Launch, Mission, Move, Reload, Thrower, parse_action,
)
from engine.rulesets.met.deviation import ON_TARGET, Deviation
from engine.rulesets.met.fires import Ignition
from engine.rulesets.met.resolution import HIT, MISS, MoraleLoss
from engine.scenario import load_scenario

from ..met.helpers import game, unit

EXAMPLES = [
    (End(), "end"),
    (Move("gb-1", 500, 180), "move gb-1 500,180"),
    (Move("gb-1", 500.25, 180.5), "move gb-1 500.25,180.5"),
    (Hold("gb-1"), "hold gb-1"),
    (Reload("gb-1"), "reload gb-1"),
    (Discharge("gb-1", "left"), "discharge gb-1 left"),
    (Grenade("gb-2", "rear"), "grenade gb-2 rear"),
    (Launch("de-pz", 700, 650), "launch de-pz 700,650"),
    (Fire("gb-1", "de-1"), "fire gb-1 de-1"),
    (Thrower("de-panther"), "thrower de-panther"),
    (Thrower("de-panther", "gb-2"), "thrower de-panther gb-2"),
    (DirectSmoke("gb-1", 500, 450), "dsmoke gb-1 500,450"),
    (Mission("gb-bty", "he", 650, 900), "he gb-bty 650,900"),
    (Mission("gb-bty", "smoke", 650, 900), "smoke gb-bty 650,900"),
    (Mission("gb-bty", "smoke", 650, 900, "WP"), "smoke gb-bty 650,900 WP"),
    (HIT, "hit"),
    (MISS, "miss"),
    (ON_TARGET, "on-target"),
    (Deviation(40, 90), "dev 40@90"),
    (Deviation(12.5, 22.5), "dev 12.5@22.5"),
    (Ignition(True), "ignites"),
    (Ignition(False), "no-fire"),
    (MoraleLoss(2), "morale -2"),
]


@pytest.mark.parametrize("action, text", EXAMPLES, ids=[t for _, t in EXAMPLES])
def test_met_actions_print_and_parse(action, text):
    assert str(action) == text
    assert parse_action(text) == action
    assert hash(parse_action(text)) == hash(action)


def test_met_actions_parse_is_forgiving_about_spaces_and_case():
    assert parse_action("  Smoke   gb-bty 650,900  wp ") == Mission("gb-bty", "smoke", 650, 900, "WP")
    assert parse_action("DISCHARGE gb-1 FRONT") == Discharge("gb-1", "front")


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty order"),
        ("advance gb-1", "unknown order"),
        ("move gb-1", "expected 'move ELEMENT X,Y'"),
        ("move gb-1 500", "expected a point X,Y"),
        ("move gb-1 a,b", "expected a point X,Y"),
        ("move gb-1 nan,5", "finite"),
        ("discharge gb-1 up", "expected a face"),
        ("he gb-bty 1,2 WP", "expected 'he BATTERY X,Y'"),
        ("dev 40", "expected 'dev METRES@BEARING'"),
        ("morale two", "expected 'morale -N'"),
    ],
)
def test_met_actions_bad_text_is_one_clear_error(text, words):
    with pytest.raises(FireplanError, match=words):
        parse_action(text)


def test_met_actions_ids_are_checked_against_the_state():
    state = game([unit("gb-1", "Sherman V", "gb", (500, 300)), unit("de-1", "PaK 40", "de", (500, 700), 180)])
    assert parse_action("fire gb-1 de-1", state) == Fire("gb-1", "de-1")
    with pytest.raises(FireplanError, match="no element, battery or blind named 'gb-9'"):
        parse_action("hold gb-9", state)
    with pytest.raises(IllegalActionError, match="off the 1000 x 1000 m table"):
        state.apply_text("move gb-1 500,1200")


@pytest.mark.parametrize("name", ["met_le_mesnil", "met_burning_village"])
def test_met_actions_every_legal_action_round_trips(name):
    state = load_scenario(f"maps/{name}.json").new_game(seed=3)
    rng = np.random.default_rng(3)
    checked = 0
    while not state.is_terminal() and checked < 3000:
        actions = state.legal_actions()
        for action in actions:
            assert parse_action(str(action), state) == action
            checked += 1
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
        else:
            state.apply_action(actions[rng.integers(len(actions))])
    assert checked > 100
