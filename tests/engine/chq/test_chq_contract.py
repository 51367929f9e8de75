"""The game-state contract for CHQ: notation, illegal orders in words, observation, clone, hooks."""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction

import pytest

from engine.errors import IllegalActionError
from engine.options import SmokeOption
from engine.rulesets.chq.actions import Call, Comms, Deviation, Fire, Smoke, parse_action
from engine.scenario import load_scenario

from .helpers import act, pulse, scenario, unit

ROOT_MAPS = "maps/chq_saint_aubin.json"


@pytest.mark.parametrize(
    "text",
    [
        "chain 4:2 6:1 w:1 so:1",
        "chain 6:3",
        "chain w:2",
        "group us-rifle-1,us-sherman-1",
        "move -> 30,20",
        "move x2 -> 30.5,20",
        "fire us-rifle-1 de-rifle-1",
        "fire us-m4-105 de-pak-1 indirect",
        "spot us-rifle-1 de-b1",
        "rally",
        "unsuppress us-rifle-1",
        "end",
        "pass",
        "call us-bty-a @ 36,24 single regular",
        "call us-bty-a,us-bty-b @ 36,24 single converged fo us-rifle-1",
        "call us-bty-a @ 36,24 continuous regular",
        "smoke us-bty-a @ 36,24 bearing 90",
        "smoke us-bty-a @ 36,24 bearing 45 fo us-rifle-1",
        "adjust us-bty-a @ 30,24",
        "cancel us-bty-a",
        "keep us-bty-a",
        "drop us-bty-a",
        "supply us-bty-a +1",
        "barrage us-bty-a de-b1",
        "barrage us-bty-a smoke @ 36,24 bearing 90",
        "barrage us-bty-a hold",
        "opfire de-rifle-1 us-rifle-1",
    ],
)
def test_actions_print_and_parse_back(text):
    action = parse_action(text)
    assert str(action) == text
    assert parse_action(str(action)) == action
    assert hash(action) == hash(parse_action(text))
    fields = dataclasses.fields(action)
    if fields:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(action, fields[0].name, None)


def test_bad_text_and_unknown_ids_are_refused_in_words():
    with pytest.raises(IllegalActionError, match="cannot read the order"):
        parse_action("shoot everything")
    state = load_scenario(ROOT_MAPS).new_game(seed=0)
    with pytest.raises(IllegalActionError, match="no unit, blind or battery called 'us-ghost'"):
        parse_action("fire us-ghost de-rifle-1", state)


def _units():
    return [
        unit("us-1", "US Rifle Platoon", "us", (20, 5)),
        unit("us-bty", "US 105mm Battery", "us"),
        unit("us-bty2", "US 105mm Battery", "us"),
        unit("de-1", "German Rifle Platoon", "de", (20, 20)),
        unit("de-m", "German 8cm Mortar", "de", (21, 7)),
    ]


def test_illegal_orders_from_the_issue_raise_with_a_sentence():
    """CHQ-9, CHQ-12, CHQ-17, CHQ-24: the five orders the issue names."""
    state = pulse(scenario(_units(), us={"staff_orders": 1}).new_game(seed=1), chain="chain 4:3")
    # a mission without Staff Orders
    act(state, "smoke us-bty @ 40,30 bearing 0")
    state.apply_action(Comms(True))
    state.apply_action(Deviation(0.0, 0))
    with pytest.raises(IllegalActionError, match="needs 1 Staff Order and you have 0"):
        act(state, "call us-bty2 @ 20,20 single regular")
    state.staff["us"] = 2
    # smoke and fire from one battery in one turn
    with pytest.raises(IllegalActionError, match="may not fire smoke and a fire mission in the same turn"):
        act(state, "call us-bty @ 20,20 single regular")
    # an FO without sight
    state.units["us-1"].pos = (2, 2)
    with pytest.raises(IllegalActionError, match="no unit of yours sees the template centre"):
        state.apply_action(Call(("us-bty2",), (47.9, 35.9)))
    state.units["us-1"].pos = (20, 5)
    # a German time-on-target and a mortar inside its minimum range
    german = pulse(scenario(_units() + [unit("de-b1", "German 10.5cm Battery", "de"), unit("de-b2", "German 10.5cm Battery", "de")]).new_game(seed=1), us_faces=(2, 2, 3, 3, 5), de_faces=(4, 4, 4, 3, 6), chain="chain 4:3")
    with pytest.raises(IllegalActionError, match="cannot fire time-on-target"):
        act(german, "call de-b1,de-b2 @ 20,5 single regular")
    act(german, "group de-m")
    with pytest.raises(IllegalActionError, match="mortar and cannot fire at all inside its minimum range"):
        german.apply_action(Fire("de-m", "us-1", indirect=True))
    before = german.clone()
    with pytest.raises(IllegalActionError):
        german.apply_action(Fire("de-m", "us-1", indirect=True))
    assert german.units["de-m"].pos == before.units["de-m"].pos and german.pulse.dice_left == before.pulse.dice_left


def test_is_legal_accepts_off_lattice_placements():
    state = pulse(scenario(_units()).new_game(seed=1), chain="chain 4:3")
    off = Smoke("us-bty", (23.37, 14.21), 17.5)
    assert off not in state.legal_actions() and state.is_legal(off)
    assert not state.is_legal(Smoke("us-bty", (60, 14), 0)) and "on the table" in state.illegal_reason(Smoke("us-bty", (60, 14), 0))


def test_observation_hides_dummies_and_shares_nothing_mutable():
    state = load_scenario(ROOT_MAPS).new_game(seed=2)
    view = state.observation("us")
    assert all(b.dummy is None for b in view.enemy_blinds)
    assert {u.id for u in view.enemy_units} == {"de-mortar-1"}  # the only German unit not under a Blind
    assert dataclasses.is_dataclass(view) and isinstance(view.own_units, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.turn = 5
    before = repr(view)
    chooser = random.Random(2)
    for _ in range(60):
        state.apply_action(state.sample_chance() if state.is_chance_node() else chooser.choice(state.legal_actions()))
    assert repr(view) == before  # the true state moved on; the view did not


def test_clone_is_independent_and_replays_the_same_game():
    state = load_scenario(ROOT_MAPS).new_game(seed=3)
    copy = state.clone()
    chooser_a, chooser_b = random.Random(5), random.Random(5)
    for _ in range(80):
        a = state.sample_chance() if state.is_chance_node() else chooser_a.choice(state.legal_actions())
        b = copy.sample_chance() if copy.is_chance_node() else chooser_b.choice(copy.legal_actions())
        assert a == b
        state.apply_action(a)
        copy.apply_action(b)
    other = state.clone()
    pos = dict((u, s.pos) for u, s in state.units.items())
    while not other.is_terminal() and other.turn == state.turn:
        other.apply_action(other.sample_chance() if other.is_chance_node() else other.legal_actions()[-1])
    assert dict((u, s.pos) for u, s in state.units.items()) == pos


def test_threat_is_the_exact_expected_disruption():
    from engine.rulesets.chq.fire import fire_outcomes

    state = pulse(scenario(_units()).new_game(seed=1), chain="chain 4:3")
    # us-1 at 15" of de-1: long range 5+, 5D against 4D at 4+
    expected = sum(p * r.disruption for r, p in fire_outcomes(5, 5, 4, 4).items())
    assert state.threat("us-1", "de-1") == pytest.approx(float(expected))
    assert state.threat("de-m", "us-1") == 0.0  # inside the mortar's minimum range: no fire at all
    battery = state.threat("us-bty", "de-1")
    assert 0 < battery < float(sum(p * r.disruption for r, p in fire_outcomes(4, 4, 4, 4).items()))


def test_smoke_options_list_battery_screens_with_exact_deviation():
    state = pulse(scenario(_units()).new_game(seed=1), chain="chain 4:3")
    options = state.smoke_options("us")
    assert options and all(isinstance(o, SmokeOption) for o in options)
    first = options[0]
    assert sum(p for _, p in first.deviation) == 1 and dict(first.deviation)[(0.0, 0.0)] == Fraction(1, 3)
    assert len(first.screens) == 1 and first.screens[0][0].polygon.area == pytest.approx(12.0)
    assert all(state.is_legal(o.actions[0]) for o in options[:20])
    assert state.smoke_options("de") == []  # not the German pulse


def test_shared_memo_never_changes_a_game():
    """Results memoised by content (sight, lattices, outcomes) are shared by all games of a map;
    a game replayed with a cold memo takes exactly the same course."""
    from engine.rulesets.chq.game import game_facts

    scenario_ = load_scenario("maps/chq_tot_crossroads.json")

    def play(seed):
        state, chooser, out = scenario_.new_game(seed=seed), random.Random(seed), []
        while not state.is_terminal():
            action = state.sample_chance() if state.is_chance_node() else chooser.choice(state.legal_actions())
            out.append(str(action))
            state.apply_action(action)
        return out

    for seed in (1, 2):
        warm = play(seed)
        game_facts(scenario_).memo.clear()
        assert play(seed) == warm
