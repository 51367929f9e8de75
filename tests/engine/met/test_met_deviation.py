"""MET-2: 2d10 deviation against 11, in 20 m steps, direction discretised; the beaten zone of HE."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.rulesets.met.actions import Mission
from engine.rulesets.met.deviation import ON_TARGET, Deviation, deviation_bearings, deviation_distribution
from engine.rulesets.met.events import ArtilleryHit

from .helpers import assert_distribution, end_until, game, unit, with_settings


def test_met_2_eleven_or_more_lands_on_the_point_of_aim():
    d = deviation_distribution()
    assert d[ON_TARGET] == Fraction(55, 100)  # 2d10 >= 11: 10 + 9 + ... + 1 = 55 of 100
    assert_distribution(d.items())


def test_met_2_distance_is_eleven_minus_roll_times_twenty_metres():
    d = deviation_distribution()
    by_distance: dict[float, Fraction] = {}
    for outcome, p in d.items():
        by_distance[outcome.distance] = by_distance.get(outcome.distance, Fraction(0)) + p
    # a roll of r (2..10) comes up r - 1 times in 100 and moves (11 - r) x 20 m
    expected = {float((11 - r) * 20): Fraction(r - 1, 100) for r in range(2, 11)}
    expected[0.0] = Fraction(55, 100)
    assert by_distance == expected
    assert max(by_distance) == 180.0


def test_met_2_direction_uniform_over_the_discretisation():
    d = deviation_distribution()
    assert deviation_bearings() == (0.0, 45.0, 90.0, 135.0, 180.0, 225.0, 270.0, 315.0)
    assert len(d) == 1 + 9 * 8
    for bearing in deviation_bearings():
        assert d[Deviation(20.0, bearing)] == Fraction(9, 100) / 8
    assert Deviation(20.0, 90.0).offset == (20.0, 0.0)
    assert Deviation(40.0, 180.0).offset == (0.0, -40.0)


def test_met_2_directions_are_a_setting():
    rules = with_settings(deviation_directions=12)
    d = deviation_distribution(rules=rules)
    assert len(d) == 1 + 9 * 12
    assert deviation_bearings(rules)[1] == 30.0
    assert_distribution(d.items())


def test_met_2_modifiers_add_to_the_roll():
    d = deviation_distribution(modifier=2)
    assert d[ON_TARGET] == Fraction(72, 100)  # 2d10 >= 9
    assert max(o.distance for o in d) == 140.0  # (11 - (2 + 2)) x 20
    assert deviation_distribution(modifier=-3)[ON_TARGET] == Fraction(28, 100)  # 2d10 >= 14


def test_met_2_beaten_zone_is_200_across_by_100_along_the_line_of_fire():
    """gb fires from the south edge (line of fire 0): 200 m east-west, 100 m north-south."""
    units = [
        unit("gb-bty", "25pdr Field Battery", "gb"),
        unit("gb-1", "Sherman V", "gb", (100, 50)),
        unit("de-in-east", "Grenadier Section", "de", (595, 500), 180),
        unit("de-in-south", "Grenadier Section", "de", (500, 451), 180),
        unit("de-out-north", "Grenadier Section", "de", (500, 560), 180),
        unit("de-out-east", "Grenadier Section", "de", (610, 500), 180),
    ]
    state = game(units)
    end_until(state, "artillery", "gb")
    state.apply_action(Mission("gb-bty", "he", 500, 500))  # its only battery: the phase resolves at once
    assert_distribution(state.chance_outcomes())
    state.apply_action(ON_TARGET)
    hit_on = []
    while state.is_chance_node() and isinstance(state.pending_event(), ArtilleryHit):
        event = state.pending_event()
        hit_on.append(event.target)
        assert event.fn == 5
        assert dict(state.chance_outcomes())[state.legal_actions()[0]] in (Fraction(1, 2),)
        state.apply_action(state.legal_actions()[0])
    assert sorted(hit_on) == ["de-in-east", "de-in-south"]


def test_met_2_deviated_he_lands_off_its_point_of_aim():
    units = [unit("gb-bty", "25pdr Field Battery", "gb"), unit("gb-1", "Sherman V", "gb", (100, 50)),
             unit("de-1", "Grenadier Section", "de", (500, 640), 180)]
    state = game(units)
    end_until(state, "artillery", "gb")
    state.apply_action(Mission("gb-bty", "he", 500, 500))  # its only battery: the phase resolves at once
    state.apply_action(Deviation(140.0, 0.0))  # lands at 500,640
    assert isinstance(state.pending_event(), ArtilleryHit)
    assert state.pending_event().target == "de-1"


@pytest.mark.parametrize("modifier", [0, 2, 5])
def test_met_2_probabilities_are_exact_fractions(modifier):
    assert_distribution(deviation_distribution(modifier=modifier).items())
