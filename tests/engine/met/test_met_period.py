"""MET-19: the period sequence (movement A then B, simultaneous direct fire, artillery 5.1.4, ageing)."""

from __future__ import annotations

from engine.game import CHANCE, TERMINAL
from engine.rulesets.met.actions import End, Fire, Mission, Move
from engine.rulesets.met.resolution import HIT, Status

from .helpers import end_until, game, resolve_chance, unit


def _game(periods=3, gb_attacks=True):
    return game(
        [unit("gb-1", "Sherman V", "gb", (500, 300)), unit("gb-bty", "25pdr Field Battery", "gb"),
         unit("de-1", "Panzer IV H", "de", (500, 700), 180), unit("de-bty", "10.5cm leFH Battery", "de")],
        periods=periods, gb_attacks=gb_attacks,
    )


def test_met_19_period_sequence():
    state = _game()
    steps = []
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.legal_actions()[0])
            continue
        steps.append((state.period, state.phase, state.current_player()))
        state.apply_action(End())
    period_1 = [s for s in steps if s[0] == 1]
    assert period_1 == [
        (1, "move", "gb"), (1, "move", "de"), (1, "fire", "gb"), (1, "fire", "de"),
        (1, "artillery", "gb"), (1, "artillery", "de"),
    ]
    assert max(s[0] for s in steps) == 3
    assert state.current_player() == TERMINAL and state.period == 3


def test_met_19_the_attacker_moves_first():
    state = _game(gb_attacks=False)
    assert state.current_player() == "de" and state.phase == "move"


def test_met_19_direct_fire_is_declared_blind_and_applied_together():
    state = _game()
    end_until(state, "fire", "gb")
    state.apply_action(Fire("gb-1", "de-1"))  # gb has nothing more to order: de's part begins
    assert state.current_player() == "de"
    # the Germans do not see the British declaration
    assert state.observation("de").own_orders == ()
    assert state.observation("gb").own_orders == ("fire gb-1 de-1",)
    before = {str(a) for a in state.legal_actions()}
    other = _game()
    end_until(other, "fire", "de")
    assert {str(a) for a in other.legal_actions()} == before
    state.apply_action(Fire("de-1", "gb-1"))
    state.apply_action(HIT)  # the British shot suppresses the Panzer ...
    state.apply_action(HIT)  # ... whose own shot, fired at the same moment, still counts
    assert state.elements["de-1"].status is Status.SUPPRESSED
    assert state.elements["gb-1"].status is Status.SUPPRESSED


def test_met_19_artillery_lands_after_both_sides_order():
    state = _game()
    end_until(state, "artillery", "gb")
    state.apply_action(Mission("gb-bty", "he", 500, 700))
    assert state.current_player() == "de"
    assert state.observation("de").own_orders == ()
    state.apply_action(Mission("de-bty", "he", 500, 300))
    assert state.current_player() == CHANCE
    assert str(state.pending_event()).startswith("gb-bty HE")
    resolve_chance(state)
    assert state.period == 2


def test_met_19_a_move_is_checked_against_the_card():
    state = game([unit("gb-1", "Sherman V", "gb", (500, 300)), unit("gb-2", "Rifle Section", "gb", (300, 300)),
                  unit("de-1", "Panzer IV H", "de", (500, 700), 180)])
    assert "at most 200 m" in state.illegal_reason(Move("gb-1", 500, 520))
    assert "off the" in state.illegal_reason(Move("gb-1", -10, 300))
    assert state.is_legal(Move("gb-1", 512.25, 480.5))
    state.apply_action(Move("gb-1", 512.25, 480.5))
    assert state.elements["gb-1"].position == (512.25, 480.5)
    assert "already moved" in state.illegal_reason(Move("gb-1", 512.25, 490))
    assert "at most 100 m" in state.illegal_reason(Move("gb-2", 300, 420))
    state.elements["gb-2"].status = Status.SUPPRESSED
    state._version += 1
    assert "at most 50 m a period while suppressed" in state.illegal_reason(Move("gb-2", 300, 360))


def test_met_19_phases_with_nothing_to_order_are_skipped():
    state = game([unit("gb-1", "Sherman V", "gb", (500, 300)), unit("de-1", "PaK 40", "de", (500, 1400), 180)],
                 size=(1000, 1500))
    state.apply_action(End())  # gb movement
    state.apply_action(End())  # de movement; nobody can fire (out of range) and there is no battery
    assert state.period == 2 and state.phase == "move"


def test_met_19_reading_new_screens_age_at_once():
    """The other reading: a screen laid in step 3 ages in step 4 of the same period (its first density is lost)."""
    import dataclasses

    from engine.rulesets.met.deviation import ON_TARGET

    from .helpers import with_settings

    sc = _game(periods=4).scenario
    for setting, expected in ((False, ["partial", "partial"]), (True, ["full", "partial"])):
        state = dataclasses.replace(sc, ruleset=with_settings(new_screens_age_at_period_end=setting)).new_game(0)
        end_until(state, "artillery", "gb")
        state.apply_action(Mission("gb-bty", "smoke", 500, 500))
        state.apply_action(End())
        state.apply_action(ON_TARGET)
        resolve_chance(state)
        assert state.period == 2
        assert sorted(ms.screen.density.value for ms in state.screens) == expected
