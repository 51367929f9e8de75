"""MET-21: victory as CHQ-29, with elements destroyed in place of units dispersed."""

from __future__ import annotations

from fractions import Fraction

from engine.rulesets.met.actions import End, Fire, Move
from engine.rulesets.met.events import MoraleCheck
from engine.rulesets.met.resolution import HIT, MoraleLoss, Status

from .helpers import end_until, game, play_out, unit


def test_met_21_starting_morale_is_half_the_elements_rounded_up():
    state = game([unit("gb-1", "Sherman V", "gb", (100, 100)), unit("gb-2", "Sherman V", "gb", (200, 100)),
                  unit("gb-3", "Sherman V", "gb", (300, 100)), unit("gb-bty", "25pdr Field Battery", "gb"),
                  unit("de-1", "PaK 40", "de", (500, 900), 180)])
    assert state.morale == {"gb": 2, "de": 1}  # batteries do not count (setting morale_counts_batteries)


def test_met_21_a_destroyed_element_costs_a_d3():
    state = game([unit("gb-1", "Sherman V", "gb", (500, 300)), unit("de-1", "PaK 40", "de", (500, 700), 180),
                  unit("de-2", "PaK 40", "de", (700, 700), 180)], morale=(5, 5))
    state.elements["de-1"].status = Status.NEUTRALISED
    end_until(state, "fire", "gb")
    state.apply_action(Fire("gb-1", "de-1"))
    end_until(state, "fire", "de")
    state.apply_action(End())
    state.apply_action(HIT)
    assert state.elements["de-1"].status is Status.DESTROYED
    assert isinstance(state.pending_event(), MoraleCheck)
    assert dict(state.chance_outcomes()) == {MoraleLoss(k): Fraction(1, 3) for k in (1, 2, 3)}
    state.apply_action(MoraleLoss(2))
    assert state.morale["de"] == 3


def test_met_21_morale_at_zero_loses_at_the_end_of_the_period():
    state = game([unit("gb-1", "Sherman V", "gb", (500, 300)), unit("de-1", "PaK 40", "de", (500, 700), 180),
                  unit("de-bty", "10.5cm leFH Battery", "de")], periods=6)
    state.elements["de-1"].status = Status.NEUTRALISED
    end_until(state, "fire", "gb")
    state.apply_action(Fire("gb-1", "de-1"))
    state.apply_action(HIT)
    state.apply_action(MoraleLoss(1))
    assert state.morale["de"] == 0
    assert not state.is_terminal()  # the period is not over yet: the German battery still fires
    assert state.current_player() == "de" and state.phase == "artillery"
    state.apply_action(End())
    assert state.is_terminal() and state.period == 1
    assert state.returns() == {"gb": 1.0, "de": -1.0}
    assert state.winner() == "gb"


def test_met_21_objectives_first_capture_then_points_move():
    objective = {"id": "farm", "position": [500, 500], "radius": 60, "points": 3}
    state = game([unit("gb-1", "Sherman V", "gb", (500, 330)), unit("de-1", "Grenadier Section", "de", (500, 700), 180)],
                 objectives=[objective], periods=4, morale=(4, 4))
    state.apply_action(Move("gb-1", 500, 480))
    end_until(state, "move", "gb")
    assert state.period == 2 and state.holders["farm"] == "gb"
    assert state.morale == {"gb": 7, "de": 4}
    state.apply_action(Move("gb-1", 500, 330))
    state.apply_action(Move("de-1", 500, 600))
    end_until(state, "move", "de")
    state.apply_action(Move("de-1", 500, 520))
    end_until(state, "move", "gb")
    assert state.period == 4 and state.holders["farm"] == "de"
    assert state.morale == {"gb": 4, "de": 7}  # a later capture moves the points
    play_out(state)
    assert state.returns() == {"gb": -1.0, "de": 1.0}
    assert state.point_difference()["de"] > 0


def test_met_21_equal_points_at_the_limit_is_a_draw():
    state = game([unit("gb-1", "Sherman V", "gb", (100, 100)), unit("de-1", "PaK 40", "de", (900, 900), 180)], periods=2)
    play_out(state)
    assert state.returns() == {"gb": 0.0, "de": 0.0} and state.winner() is None


def test_met_21_capture_points_setting():
    import dataclasses

    from .helpers import with_settings

    objective = {"id": "farm", "position": [500, 500], "radius": 60, "points": 1}
    sc = game([unit("gb-1", "Sherman V", "gb", (500, 480)), unit("de-1", "PaK 40", "de", (900, 900), 180)],
              objectives=[objective], morale=(4, 4)).scenario
    for setting, expected in (("objective", 5), (3, 7)):
        state = dataclasses.replace(sc, ruleset=with_settings(capture_points=setting)).new_game(0)
        end_until(state, "move", "de")
        state.apply_action(End())
        while state.period == 1:
            state.apply_action(End() if not state.is_chance_node() else state.legal_actions()[0])
        assert state.morale["gb"] == expected
