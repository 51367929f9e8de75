"""Burning buildings: MET-14 (the smoke triangle and its density) and MET-20 (fires and ignition)."""

from __future__ import annotations

from fractions import Fraction

import pytest
import shapely

from engine.geometry import Density, rectangle
from engine.rulesets.met.actions import Mission
from engine.rulesets.met.deviation import ON_TARGET
from engine.rulesets.met.events import IgnitionCheck
from engine.rulesets.met.fires import (
    Fire,
    Ignition,
    fire_fn,
    fire_screen,
    fire_smoke_density,
    fire_smoke_polygon,
    ignition_outcomes,
    ignition_probability,
)

from .helpers import box, end_until, feature, game, next_period, unit, with_settings


# ---------------------------------------------------------------- MET-14
def test_met_14_triangle_apex_on_the_fire_twice_length_downwind_twice_width_at_the_base():
    building = rectangle((100, 100), width=10, depth=20, bearing=90)  # 20 m east-west, 10 m north-south
    smoke = fire_smoke_polygon(building, wind_from=270)
    coords = list(smoke.exterior.coords)[:3]
    assert coords[0] == pytest.approx((100.0, 100.0))  # apex on the fire's centre
    assert smoke.bounds == pytest.approx((100.0, 90.0, 140.0, 110.0))  # 2 x 20 m downwind, base 2 x 10 m
    assert smoke.area == pytest.approx(0.5 * 40 * 20)


def test_met_14_turns_with_the_wind():
    building = rectangle((0, 0), width=10, depth=20, bearing=90)
    smoke = fire_smoke_polygon(building, wind_from=0)  # blows south: length is the north-south extent, 10 m
    assert smoke.bounds == pytest.approx((-20.0, -20.0, 20.0, 0.0))


def test_met_14_apex_reading_is_a_setting():
    building = rectangle((100, 100), width=10, depth=20, bearing=90)
    smoke = fire_smoke_polygon(building, 270, rules=with_settings(fire_smoke_apex="upwind_edge"))
    assert smoke.bounds == pytest.approx((90.0, 90.0, 130.0, 110.0))


def test_met_14_partial_at_fn_6_or_less_full_at_7_to_10():
    assert [fire_smoke_density(fn).value for fn in (4, 5, 6, 7, 8, 9, 10)] == ["partial"] * 3 + ["full"] * 4
    building = rectangle((0, 0), 10, 10)
    densities = [fire_screen(building, Fire("b", age), 270).density for age in range(7)]
    assert densities == [Density.PARTIAL, Density.FULL, Density.FULL, Density.FULL, Density.FULL, Density.PARTIAL, Density.PARTIAL]
    assert fire_screen(building, Fire("b", 7), 270).is_gone


def _village(**options):
    terrain = [feature("house", "buildings", box(480, 480, 520, 520), cover="heavy", burning=True)]
    return game(
        [unit("gb-1", "Sherman V", "gb", (530, 300)), unit("de-1", "Grenadier Section", "de", (530, 800), 180),
         unit("gb-bty", "25pdr Field Battery", "gb")],
        terrain=terrain, wind=(180, 10), periods=9, **options,
    )


def test_met_14_burning_building_smoke_blocks_sight_while_fierce():
    state = _village()  # wind from the south: the triangle runs north from the house, 80 m long, 80 m wide
    assert state.sight("gb-1", "de-1").name == "PARTIAL"  # FN 5: partial smoke across x = 530 at y 560..580
    next_period(state)
    assert state.sight("gb-1", "de-1").name == "BLOCKED"  # FN 7
    for _ in range(4):
        next_period(state)
    assert state.period == 6 and state.sight("gb-1", "de-1").name == "PARTIAL"  # FN 6


# ---------------------------------------------------------------- MET-20
def test_met_20_fire_fn_runs_5_7_9_10_8_6_4_then_out():
    assert [fire_fn(age) for age in range(8)] == [5, 7, 9, 10, 8, 6, 4, None]
    state = _village()
    seen = []
    while not state.is_terminal():
        fires = state.observation("gb").fires
        seen.append(fires[0][1] if fires else None)
        if state.period == 9:
            break
        next_period(state)
    assert seen == [5, 7, 9, 10, 8, 6, 4, None, None]
    assert "house" in state.burnt_out


def test_met_20_he_on_a_building_sets_it_burning_one_time_in_five():
    assert ignition_probability(5) == Fraction(1, 10)  # hit d10 <= 5, then 1/5
    assert ignition_probability(5, with_settings(building_hit_needs_roll=False)) == Fraction(1, 5)
    assert dict(ignition_outcomes(6)) == {Ignition(True): Fraction(3, 25), Ignition(False): Fraction(22, 25)}
    terrain = [feature("barn", "buildings", box(480, 480, 520, 520), cover="heavy")]
    state = game([unit("gb-1", "Sherman V", "gb", (560, 300)), unit("gb-bty", "25pdr Field Battery", "gb"),
                  unit("de-1", "Grenadier Section", "de", (900, 900), 180)], terrain=terrain, periods=4)
    end_until(state, "artillery", "gb")
    state.apply_action(Mission("gb-bty", "he", 500, 500))
    state.apply_action(ON_TARGET)
    assert isinstance(state.pending_event(), IgnitionCheck)
    assert dict(state.chance_outcomes()) == {Ignition(True): Fraction(1, 10), Ignition(False): Fraction(9, 10)}
    state.apply_action(Ignition(True))
    assert state.period == 2 and "barn" in state.fires
    assert state.observation("de").fires == (("barn", 5),)  # starts at FN 5 in the next period
    smoke = [s for s in state.observation("de").screens if s.kind == "fire"]
    assert len(smoke) == 1 and smoke[0].density == "partial"
    assert shapely.Polygon(smoke[0].polygon).area == pytest.approx(0.5 * 80 * 80)
