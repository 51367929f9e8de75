"""CHQ-29: Army Morale Points, objectives, collapse and the result."""

from __future__ import annotations

from engine.rulesets.chq.actions import D3
from engine.rulesets.chq.fire import FireResult
from engine.rulesets.chq.orders import check_objectives
from engine.rulesets.chq.victory import initial_morale

from .helpers import act, pulse, scenario, unit

RIFLE_US, RIFLE_DE = "US Rifle Platoon", "German Rifle Platoon"


def _state(**kw):
    units = [
        unit("us-1", RIFLE_US, "us", (20, 5)),
        unit("us-2", RIFLE_US, "us", (30, 5)),
        unit("us-3", RIFLE_US, "us", (40, 5)),
        unit("us-bty", "US 105mm Battery", "us"),
        unit("de-1", RIFLE_DE, "de", (20, 10)),
    ]
    objectives = [{"id": "hill", "position": [20, 20], "radius": 3, "points": 3}]
    return scenario(units, objectives=objectives, **kw).new_game(seed=9)


def test_chq_29_morale_points_are_half_the_units_rounded_up_plus_command_dice():
    """CHQ-29: morale points are half the units rounded up plus command dice."""
    state = _state()
    assert initial_morale(state.facts, "us") == 2 + 5  # three units (the battery is off table) -> 2, + 5 dice
    assert initial_morale(state.facts, "de") == 1 + 5
    given = _state(us={"morale_points": 9})
    assert given.morale["us"] == 9


def test_chq_29_objectives_first_capture_then_later_captures_move_points():
    """CHQ-29: objectives first capture then later captures move points."""
    state = _state()
    a, b = state.morale["us"], state.morale["de"]
    state.units["us-1"].pos = (20, 19)
    check_objectives(state)
    assert state.holders["hill"] == "us" and state.morale["us"] == a + 3
    state.units["de-1"].pos = (21, 21)
    check_objectives(state)  # contested: nobody holds it, nothing moves
    assert state.holders["hill"] == "us" and state.morale == {"us": a + 3, "de": b}
    state.units["us-1"].pos = (20, 5)
    state.units["de-1"].suppressed = True
    check_objectives(state)  # a suppressed unit does not hold
    assert state.morale == {"us": a + 3, "de": b}
    state.units["de-1"].suppressed = False
    check_objectives(state)
    assert state.holders["hill"] == "de" and state.morale == {"us": a, "de": b + 3}


def test_chq_29_dispersal_costs_d3_and_zero_morale_loses_at_the_end_of_the_turn():
    """CHQ-29: dispersal costs d3 and zero morale loses at the end of the turn."""
    state = _state(de={"morale_points": 2})
    pulse(state, chain="chain 4:3")
    state.units["de-1"].disruption = 2
    act(state, "group us-1")
    act(state, "fire us-1 de-1")
    if state.current_player() == "de":
        act(state, "pass")
    state.apply_action(FireResult(1, False, 6))
    state.apply_action(D3(2))
    assert state.morale["de"] == 0 and "de" in state.collapsed
    assert not state.is_terminal()  # the turn goes on; the loss is at its end
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            acts = state.legal_actions()
            from engine.rulesets.chq.actions import End, Pass

            state.apply_action(next((x for x in acts if isinstance(x, (End, Pass))), acts[0]))
    assert state.turn == 1 and state.returns() == {"us": 1.0, "de": -1.0}
    assert state.score()["us"] > 0 and state.score()["us"] == -state.score()["de"]


def test_chq_29_turn_limit_more_morale_wins_and_equal_is_a_draw():
    """CHQ-29: turn limit more morale wins and equal is a draw."""
    from engine.rulesets.chq.victory import result

    state = _state()
    assert result(state.facts, {"us": 5, "de": 4}, set()) == {"us": 1.0, "de": -1.0}
    assert result(state.facts, {"us": 4, "de": 4}, set()) == {"us": 0.0, "de": 0.0}
    assert result(state.facts, {"us": 0, "de": 0}, {"us", "de"}) == {"us": 0.0, "de": 0.0}
    assert state.returns() == {"us": 0.0, "de": 0.0}  # before the end
