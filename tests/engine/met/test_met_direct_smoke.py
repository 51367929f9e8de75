"""MET-13: direct-fire smoke, a HEAT hit check and half the artillery deviation with +2."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.rulesets.met.actions import DirectSmoke, End, Fire
from engine.rulesets.met.deviation import ON_TARGET, Deviation, deviation_distribution
from engine.rulesets.met.direct_smoke import direct_smoke_deviation, direct_smoke_fn, direct_smoke_landing, direct_smoke_polygon
from engine.rulesets.met.events import SmokeCheck, SmokeDeviation
from engine.rulesets.met.resolution import HIT, MISS

from .helpers import assert_distribution, end_until, game, next_period, unit, with_settings


def _gun_game(**options):
    return game(
        [unit("gb-sherman", "Sherman V", "gb", (500, 200)), unit("gb-section", "Rifle Section", "gb", (300, 400)),
         unit("de-pak", "PaK 40", "de", (500, 500), 180), unit("de-pz", "Panzer IV H", "de", (900, 900), 180),
         unit("de-bty", "10.5cm leFH Battery", "de")],
        periods=4,
        **options,
    )


def test_met_13_area_75_by_50_across_the_line_of_fire():
    polygon = direct_smoke_polygon((500, 200), (500, 450))
    assert polygon.bounds == pytest.approx((462.5, 425.0, 537.5, 475.0))
    assert polygon.area == pytest.approx(75 * 50)
    side_on = direct_smoke_polygon((0, 0), (300, 0))
    assert side_on.bounds == pytest.approx((275.0, -37.5, 325.0, 37.5))


def test_met_13_hit_check_as_heat_by_range():
    assert [direct_smoke_fn(r) for r in (150, 200, 201, 500, 501, 1000)] == [7, 7, 5, 5, 3, 3]
    assert direct_smoke_fn(1001) is None
    assert direct_smoke_fn(300, partial_smoke=True) == 3


def test_met_13_apparent_miss_deviates_half_with_plus_two():
    half = direct_smoke_deviation()
    full = deviation_distribution(modifier=2)
    assert half[ON_TARGET] == full[ON_TARGET] == Fraction(72, 100)
    assert max(o.distance for o in half) == 70.0  # (11 - (2 + 2)) x 20 / 2
    for outcome, p in full.items():
        if outcome.distance:
            assert half[Deviation(outcome.distance / 2, outcome.bearing)] == p
    landing = direct_smoke_landing(300)  # FN 5: a hit half the time, else the deviation
    assert landing[ON_TARGET] == Fraction(1, 2) + Fraction(1, 2) * Fraction(72, 100)
    assert_distribution(landing.items())


def test_met_13_fired_at_an_acquired_enemy_in_the_fire_phase():
    state = _gun_game()
    end_until(state, "fire", "gb")
    aim = DirectSmoke("gb-sherman", 500, 450)  # 50 m in front of the PaK, 250 m from the Sherman
    assert aim in state.legal_actions()
    assert state.is_legal(DirectSmoke("gb-sherman", 540.5, 470))  # beside it, off the lattice
    reason = state.illegal_reason(DirectSmoke("gb-sherman", 100, 700))
    assert "MET-13" in reason and "acquired enemy" in reason
    assert "cannot fire smoke" in state.illegal_reason(DirectSmoke("gb-section", 500, 450))
    state.apply_action(aim)
    assert "already fired" in state.illegal_reason(Fire("gb-sherman", "de-pak"))
    end_until(state, "fire", "de")
    state.apply_action(End())
    event = state.pending_event()
    assert isinstance(event, SmokeCheck) and event.fn == 5
    assert dict(state.chance_outcomes()) == {HIT: Fraction(1, 2), MISS: Fraction(1, 2)}
    state.apply_action(HIT)
    (screen,) = [ms for ms in state.screens if ms.kind == "direct"]
    assert screen.screen.polygon.bounds == pytest.approx((462.5, 425.0, 537.5, 475.0))
    assert screen.screen.density.value == "full"
    assert state.sight("gb-section", "de-pak").name == "CLEAR"  # the screen is not on that line
    assert state.sight("gb-sherman", "de-pak").name == "BLOCKED"


def test_met_13_miss_deviates_the_screen():
    state = _gun_game()
    end_until(state, "fire", "gb")
    state.apply_action(DirectSmoke("gb-sherman", 500, 450))
    end_until(state, "fire", "de")
    state.apply_action(End())
    state.apply_action(MISS)
    assert isinstance(state.pending_event(), SmokeDeviation)
    assert_distribution(state.chance_outcomes())
    state.apply_action(Deviation(30.0, 90.0))
    (screen,) = [ms for ms in state.screens if ms.kind == "direct"]
    assert screen.screen.polygon.bounds == pytest.approx((492.5, 425.0, 567.5, 475.0))


def test_met_13_life_as_a_mortar_screen_or_by_the_wind():
    state = _gun_game()
    end_until(state, "fire", "gb")
    state.apply_action(DirectSmoke("gb-sherman", 500, 450))
    end_until(state, "fire", "de")
    state.apply_action(End())
    state.apply_action(HIT)
    next_period(state, "move", "gb")
    assert not [ms for ms in state.screens if ms.kind == "direct"]  # gone at the firer's next movement
    sc = _gun_game().scenario
    import dataclasses

    rules = with_settings(direct_smoke_life="artillery")
    state = dataclasses.replace(sc, ruleset=rules).new_game(0)
    end_until(state, "fire", "gb")
    state.apply_action(DirectSmoke("gb-sherman", 500, 450))
    end_until(state, "fire", "de")
    state.apply_action(End())
    state.apply_action(HIT)
    (screen,) = [ms for ms in state.screens if ms.kind == "direct"]
    assert [d.value for d in screen.screen.densities] == ["partial", "full", "full", "partial"]


def test_met_13_smoke_round_landing_on_its_firer_lies_across_the_firers_facing():
    """MET-13 regression (found by the property tests): a firer that moved onto its aim point has no line of
    fire; the 75 m x 50 m screen then lies across its facing instead of failing."""
    from engine.rulesets.met.direct_smoke import direct_smoke_polygon

    polygon = direct_smoke_polygon((100.0, 100.0), (100.0, 100.0), facing=90.0)
    minx, miny, maxx, maxy = polygon.bounds
    assert (maxx - minx, maxy - miny) == pytest.approx((50.0, 75.0))  # 50 deep along the facing (east), 75 across
