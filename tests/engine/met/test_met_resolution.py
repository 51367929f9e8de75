"""MET-18: d10 at or under the FN, -2 partial smoke and -2 cover; suppressed, neutralised, destroyed."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.rulesets.met.actions import End, Fire, Move
from engine.rulesets.met.events import FireCheck
from engine.rulesets.met.resolution import HIT, MISS, Status, after_hits, fire_number, heat_fn, hit_probability, roll_outcomes

from .helpers import box, end_until, feature, game, next_period, unit


def test_met_18_fire_number_modifiers():
    assert fire_number(6) == 6
    assert fire_number(6, partial_smoke=True) == 4
    assert fire_number(6, in_cover=True) == 4
    assert fire_number(6, partial_smoke=True, in_cover=True) == 2
    assert fire_number(1, partial_smoke=True, in_cover=True) == -3


def test_met_18_d10_at_or_under_the_fn_hits():
    assert [hit_probability(fn) for fn in (-3, 0, 1, 5, 10, 12)] == [0, 0, Fraction(1, 10), Fraction(1, 2), 1, 1]
    assert dict(roll_outcomes(7)) == {HIT: Fraction(7, 10), MISS: Fraction(3, 10)}
    assert dict(roll_outcomes(0)) == {MISS: Fraction(1)}  # a sure result is one outcome


def test_met_18_hits_suppress_neutralise_destroy():
    assert after_hits(Status.OK, 1) is Status.SUPPRESSED
    assert after_hits(Status.SUPPRESSED, 1) is Status.NEUTRALISED
    assert after_hits(Status.NEUTRALISED, 1) is Status.DESTROYED
    assert after_hits(Status.OK, 5) is Status.DESTROYED
    assert after_hits(Status.SUPPRESSED, 0) is Status.SUPPRESSED


def test_met_18_heat_hit_check_bands():
    assert [heat_fn(r) for r in (0, 200, 350, 500, 800, 1000, 1001)] == [7, 7, 5, 5, 3, 3, None]


def _duel(**options):
    return game(
        [unit("gb-1", "Sherman V", "gb", (500, 300)), unit("gb-2", "Sherman V", "gb", (600, 300)),
         unit("gb-inf", "Rifle Section", "gb", (520, 500)),
         unit("de-pak", "PaK 40", "de", (500, 700), 180), unit("de-pz", "Panzer IV H", "de", (700, 650), 180)],
        periods=5, **options,
    )


def test_met_18_direct_fire_is_one_chance_node_per_fire():
    state = _duel()
    end_until(state, "fire", "gb")
    assert "cannot harm armoured" in state.illegal_reason(Fire("gb-inf", "de-pz"))
    assert Fire("gb-inf", "de-pak") in state.legal_actions()
    state.apply_action(Fire("gb-1", "de-pak"))
    state.apply_action(End())
    state.apply_action(Fire("de-pak", "gb-inf"))
    state.apply_action(End())
    first = state.pending_event()
    assert isinstance(first, FireCheck) and first.fn == 6
    assert dict(state.chance_outcomes()) == {HIT: Fraction(6, 10), MISS: Fraction(4, 10)}
    state.apply_action(MISS)
    assert state.pending_event().fn == 4  # the PaK's FN against soft targets
    assert dict(state.chance_outcomes()) == {HIT: Fraction(4, 10), MISS: Fraction(6, 10)}


def test_met_18_two_hits_in_one_phase_neutralise_and_a_third_destroys():
    state = _duel()
    end_until(state, "fire", "gb")
    state.apply_action(Fire("gb-1", "de-pak"))
    state.apply_action(Fire("gb-2", "de-pak"))
    state.apply_action(End())
    end_until(state, "fire", "de")
    state.apply_action(End())
    state.apply_action(HIT)
    assert state.elements["de-pak"].status is Status.OK  # results are applied together, at the end
    state.apply_action(HIT)
    assert state.elements["de-pak"].status is Status.NEUTRALISED
    end_until(state, "move", "de")
    assert state.period == 2
    assert state.elements["de-pak"].status is Status.NEUTRALISED  # hit last period: no recovery yet
    assert "neutralised and cannot" in state.illegal_reason(Move("de-pak", 500, 690))
    assert not any(getattr(a, "element", None) == "de-pak" for a in state.legal_actions())
    end_until(state, "fire", "gb")
    state.apply_action(Fire("gb-1", "de-pak"))
    state.apply_action(End())
    end_until(state, "fire", "de")
    assert "neutralised and cannot fire" in state.illegal_reason(Fire("de-pak", "gb-1"))
    state.apply_action(End())
    state.apply_action(HIT)
    assert state.elements["de-pak"].status is Status.DESTROYED


def test_met_18_cover_and_partial_smoke_lower_the_fn():
    woods = [feature("woods", "woods", box(460, 690, 540, 770), cover="medium")]  # the PaK 10 m inside
    state = _duel(terrain=woods)
    assert state.in_cover("de-pak")
    assert state.exact_threat("gb-1", "de-pak") == Fraction(4, 10)
    assert state.exact_threat("gb-1", "de-pz") == Fraction(6, 10)


def test_met_18_suppressed_elements_do_not_fire_and_recover_when_left_alone():
    state = _duel()
    end_until(state, "fire", "gb")
    state.apply_action(Fire("gb-1", "de-pz"))
    state.apply_action(End())
    end_until(state, "fire", "de")
    state.apply_action(End())
    state.apply_action(HIT)
    end_until(state, "move", "gb")
    assert state.period == 2 and state.elements["de-pz"].status is Status.SUPPRESSED
    end_until(state, "fire", "de")
    assert "suppressed and cannot fire" in state.illegal_reason(Fire("de-pz", "gb-1"))
    assert "MET-18" in state.illegal_reason(Fire("de-pz", "gb-1"))
    next_period(state, "move", "gb")
    assert state.elements["de-pz"].status is Status.OK  # not hit in period 2


@pytest.mark.parametrize("fn", range(-2, 13))
def test_met_18_outcomes_sum_to_one(fn):
    assert sum(p for _, p in roll_outcomes(fn).items()) == 1
