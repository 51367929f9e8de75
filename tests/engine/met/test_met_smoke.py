"""Artillery smoke with the wind: MET-1 .. MET-6 (shape, schedule, wind table, rain, laying in the game)."""

from __future__ import annotations

import math

import pytest
import shapely

from engine.geometry import Density
from engine.rulesets.met.actions import End, Mission
from engine.rulesets.met.deviation import ON_TARGET, Deviation
from engine.rulesets.met.smoke import WindBand, artillery_smoke, long_axis_bearing, wind_band

from .helpers import assert_distribution, end_until, game, resolve_chance, unit, with_settings

P, F = Density.PARTIAL, Density.FULL


def _by_density(period):
    out = {}
    for density, polygon in period:
        out.setdefault(density, []).append(polygon)
    return out


# ---------------------------------------------------------------- MET-3: shape
def test_met_3_normal_wind_doubles_the_area_downwind_turned_to_the_wind():
    laying = artillery_smoke((500, 500), 0, (200, 100), wind_from=270, wind_knots=10)
    assert laying.laid and laying.band is WindBand.NORMAL
    whole = shapely.union_all([part.polygon for part in laying.parts])
    assert whole.area == pytest.approx(2 * 20_000, abs=1e-9)
    # long axis east-west: 100 m wide (the beaten zone's shorter side), 400 m long
    assert whole.bounds == pytest.approx((400.0, 450.0, 800.0, 550.0))
    assert laying.axis == 90.0
    assert long_axis_bearing(whole.envelope) == 90.0


def test_met_3_upwind_half_of_the_beaten_zone_is_partial_only():
    laying = artillery_smoke((500, 500), 0, (200, 100), wind_from=270, wind_knots=10)
    upwind = [part for part in laying.parts if part.name == "upwind"]
    assert len(upwind) == 1
    assert upwind[0].polygon.bounds == pytest.approx((400.0, 450.0, 500.0, 550.0))
    assert upwind[0].polygon.area == pytest.approx(10_000)
    assert set(upwind[0].densities) == {P}
    period_2 = _by_density(laying.by_period()[1])
    assert [p.area for p in period_2[F]] == [pytest.approx(30_000)]
    assert period_2[F][0].bounds == pytest.approx((500.0, 450.0, 800.0, 550.0))
    assert [p.area for p in period_2[P]] == [pytest.approx(10_000)]


def test_met_3_line_of_fire_does_not_matter_once_turned_to_the_wind():
    a = artillery_smoke((500, 500), 0, (200, 100), 270, 10)
    b = artillery_smoke((500, 500), 63, (200, 100), 270, 10)
    for pa, pb in zip(a.parts, b.parts):
        assert pa.polygon.equals(pb.polygon) and pa.densities == pb.densities


def test_met_3_north_wind_stretches_the_screen_south():
    laying = artillery_smoke((500, 500), 90, (200, 100), wind_from=0, wind_knots=12)
    whole = shapely.union_all([part.polygon for part in laying.parts])
    assert whole.bounds == pytest.approx((450.0, 200.0, 550.0, 600.0))
    upwind = next(p for p in laying.parts if p.name == "upwind")
    assert upwind.polygon.bounds == pytest.approx((450.0, 500.0, 550.0, 600.0))


def test_met_3_diagonal_wind_exact_area_and_bearing():
    laying = artillery_smoke((0, 0), 0, (200, 100), wind_from=225, wind_knots=8)
    whole = shapely.union_all([part.polygon for part in laying.parts])
    assert whole.area == pytest.approx(40_000, rel=1e-12)
    assert laying.axis == pytest.approx(45.0)
    # the far (downwind) end lies 300 m north-east of the POA
    far = max(whole.exterior.coords, key=lambda c: c[0] + c[1])
    assert math.hypot(*far) == pytest.approx(math.hypot(300, 50))


def test_met_3_other_reading_keeps_the_longer_side_across_the_wind():
    rules = with_settings(screen_width_side="longer")
    laying = artillery_smoke((500, 500), 0, (200, 100), 270, 10, rules=rules)
    whole = shapely.union_all([part.polygon for part in laying.parts])
    assert whole.bounds == pytest.approx((450.0, 400.0, 650.0, 600.0))
    assert whole.area == pytest.approx(40_000)


# ---------------------------------------------------------------- MET-4: normal schedule
def test_met_4_normal_wind_partial_full_full_partial_then_gone():
    laying = artillery_smoke((500, 500), 0, (200, 100), 270, 10)
    rest = next(p for p in laying.parts if p.name != "upwind")
    assert rest.densities == (P, F, F, P)
    upwind = next(p for p in laying.parts if p.name == "upwind")
    assert upwind.densities == (P, P, P, P)
    assert laying.life == 4
    periods = laying.by_period()
    assert [sorted(d.value for d, _ in period) for period in periods] == [
        ["partial"], ["full", "partial"], ["full", "partial"], ["partial"],
    ]
    # merged periods are one rectangle of the whole screen
    assert periods[0][0][1].area == pytest.approx(40_000)


def test_met_4_six_and_fifteen_knots_are_normal():
    assert wind_band(6) is WindBand.NORMAL
    assert wind_band(15) is WindBand.NORMAL
    assert artillery_smoke((0, 0), 0, (200, 100), 90, 15).life == 4


# ---------------------------------------------------------------- MET-5: wind table
@pytest.mark.parametrize(
    "knots, band",
    [(0, WindBand.CALM), (5, WindBand.CALM), (5.5, WindBand.NORMAL), (16, WindBand.STRONG),
     (30, WindBand.STRONG), (30.5, WindBand.TOO_STRONG), (31, WindBand.TOO_STRONG)],
)
def test_met_5_wind_table_bands(knots, band):
    assert wind_band(knots) is band


def test_met_5_calm_covers_the_beaten_zone_only_partially_one_period_longer():
    laying = artillery_smoke((500, 500), 0, (200, 100), wind_from=270, wind_knots=3)
    assert laying.band is WindBand.CALM
    (part,) = laying.parts
    assert part.polygon.bounds == pytest.approx((400.0, 450.0, 600.0, 550.0))  # 200 across, 100 along north
    assert part.polygon.area == pytest.approx(20_000)
    assert part.densities == (P,) * 5
    assert laying.life == artillery_smoke((500, 500), 0, (200, 100), 270, 10).life + 1


def test_met_5_calm_zone_lies_along_the_line_of_fire():
    laying = artillery_smoke((0, 0), 90, (200, 100), wind_from=0, wind_knots=2)
    assert laying.parts[0].polygon.bounds == pytest.approx((-50.0, -100.0, 50.0, 100.0))


def test_met_5_strong_wind_full_one_period_beaten_zone_partial():
    laying = artillery_smoke((500, 500), 0, (200, 100), wind_from=270, wind_knots=20)
    parts = {p.name: p for p in laying.parts}
    assert parts["upwind+zone"].polygon.bounds == pytest.approx((400.0, 450.0, 600.0, 550.0))
    assert parts["upwind+zone"].densities == (P, P)
    assert parts["extension"].polygon.bounds == pytest.approx((600.0, 450.0, 800.0, 550.0))
    assert parts["extension"].densities == (F, P)
    assert laying.life == 2
    periods = laying.by_period()
    assert [(d, round(p.area)) for d, p in periods[0]] == [(P, 20_000), (F, 20_000)]
    assert [(d, round(p.area)) for d, p in periods[1]] == [(P, 40_000)]


def test_met_5_no_smoke_over_thirty_knots():
    laying = artillery_smoke((500, 500), 0, (200, 100), wind_from=270, wind_knots=31)
    assert not laying.laid
    assert laying.parts == () and laying.by_period() == []
    assert "31-knot" in laying.reason and "MET-5" in laying.reason


def test_met_5_smoke_missions_refused_in_a_gale():
    state = game([unit("gb-bty", "25pdr Field Battery", "gb"), unit("de-1", "PaK 40", "de", (500, 900), 180)],
                 wind=(270, 35))
    end_until(state, "artillery", "gb")
    actions = state.legal_actions()
    assert not any(isinstance(a, Mission) and a.kind == "smoke" for a in actions)
    assert any(isinstance(a, Mission) and a.kind == "he" for a in actions)
    reason = state.illegal_reason(Mission("gb-bty", "smoke", 500, 500))
    assert "35-knot" in reason and "MET-5" in reason


# ---------------------------------------------------------------- MET-6: rain and WP
def test_met_6_rain_makes_be_smoke_full_in_the_period_it_is_laid():
    laying = artillery_smoke((500, 500), 0, (200, 100), 270, 10, rain=True, smoke_type="BE")
    rest = next(p for p in laying.parts if p.name != "upwind")
    upwind = next(p for p in laying.parts if p.name == "upwind")
    assert rest.densities == (F, F, F, P)
    assert upwind.densities == (P, P, P, P)
    assert laying.by_period()[0][1][0] is F


def test_met_6_wp_behaves_like_be():
    for rain in (False, True):
        be = artillery_smoke((500, 500), 0, (200, 100), 270, 10, rain=rain, smoke_type="BE")
        wp = artillery_smoke((500, 500), 0, (200, 100), 270, 10, rain=rain, smoke_type="WP")
        assert [p.densities for p in be.parts] == [p.densities for p in wp.parts]
    rules = with_settings(wp_in_rain_like_be=False)
    wp = artillery_smoke((500, 500), 0, (200, 100), 270, 10, rain=True, smoke_type="WP", rules=rules)
    assert next(p for p in wp.parts if p.name != "upwind").densities == (P, F, F, P)


def test_met_6_rain_changes_nothing_in_calm_or_strong_wind():
    for knots in (3, 22):
        dry = artillery_smoke((500, 500), 0, (200, 100), 270, knots)
        wet = artillery_smoke((500, 500), 0, (200, 100), 270, knots, rain=True)
        assert [p.densities for p in dry.parts] == [p.densities for p in wet.parts]


# ---------------------------------------------------------------- MET-1: laying in the game
def _battery_game(**options):
    return game(
        [
            unit("gb-bty", "25pdr Field Battery", "gb"),
            unit("gb-heavy", "7.2in Heavy Battery", "gb"),
            unit("gb-1", "Sherman V", "gb", (100, 50)),
            unit("de-1", "PaK 40", "de", (900, 950), 180),
        ],
        periods=8,
        **options,
    )


def test_met_1_smoke_is_an_artillery_phase_mission_for_one_period():
    state = _battery_game()
    assert state.phase == "move"
    assert "artillery order" in state.illegal_reason(Mission("gb-bty", "smoke", 500, 500))
    end_until(state, "artillery", "gb")
    smoke = Mission("gb-bty", "smoke", 500, 500)
    assert smoke in state.legal_actions()
    assert state.is_legal(Mission("gb-bty", "smoke", 512.5, 487.25))  # any point on the table
    assert "off the table" in state.illegal_reason(Mission("gb-bty", "smoke", 1200, 500))
    state.apply_action(smoke)
    assert "already been given a mission" in state.illegal_reason(Mission("gb-bty", "he", 300, 300))
    assert "no smoke rounds" in state.illegal_reason(Mission("gb-heavy", "smoke", 500, 500))
    state.apply_action(End())  # the heavy battery stays silent; the Germans have no battery
    # the mission deviates (MET-2): one chance node with exact outcomes
    assert state.is_chance_node()
    assert_distribution(state.chance_outcomes())
    state.apply_action(ON_TARGET)
    resolve_chance(state)
    artillery = [ms for ms in state.screens if ms.kind == "artillery"]
    assert len(artillery) == 2
    assert shapely.union_all([ms.screen.polygon for ms in artillery]).bounds == pytest.approx((400, 450, 800, 550))
    # next period: the battery is free again, and nothing fires by itself (no repeat)
    end_until(state, "artillery", "gb")
    assert Mission("gb-bty", "smoke", 300, 300) in state.legal_actions()
    assert len([ms for ms in state.screens if ms.kind == "artillery"]) == 2


def test_met_1_screen_life_in_the_game_follows_the_schedule():
    """Laid in period 1's artillery phase, the screen's first density holds through period 2; gone in period 6."""
    state = _battery_game()
    end_until(state, "artillery", "gb")
    state.apply_action(Mission("gb-bty", "smoke", 500, 500))
    end_until(state, "move", "gb", outcome=lambda outcomes: ON_TARGET)
    seen = []
    while state.period <= 6:
        assert state.phase == "move"
        densities = sorted(ms.screen.density.value for ms in state.screens if ms.kind == "artillery")
        seen.append((state.period, densities))
        if state.period == 6:
            break
        state.apply_action(End())
        end_until(state, "move", "gb")
    assert seen == [
        (2, ["partial", "partial"]),
        (3, ["full", "partial"]),
        (4, ["full", "partial"]),
        (5, ["partial", "partial"]),
        (6, []),
    ]


def test_met_1_deviation_moves_the_whole_screen():
    state = _battery_game()
    end_until(state, "artillery", "gb")
    state.apply_action(Mission("gb-bty", "smoke", 500, 500))
    state.apply_action(End())
    assert Deviation(60.0, 90.0) in state.legal_actions()
    state.apply_action(Deviation(60.0, 90.0))
    bounds = shapely.union_all([ms.screen.polygon for ms in state.screens]).bounds
    assert bounds == pytest.approx((460, 450, 860, 550))


def test_met_1_screen_blocks_sight_when_full():
    state = game(
        [unit("gb-bty", "25pdr Field Battery", "gb"), unit("gb-1", "Sherman V", "gb", (500, 300)),
         unit("de-1", "PaK 40", "de", (500, 700), 180)],
        periods=6,
    )
    assert state.sight("gb-1", "de-1").name == "CLEAR"
    end_until(state, "artillery", "gb")
    state.apply_action(Mission("gb-bty", "smoke", 450, 500))  # the full part covers x 450..750 on y 450..550
    end_until(state, "move", "gb", outcome=lambda outcomes: ON_TARGET)
    assert state.sight("gb-1", "de-1").name == "PARTIAL"  # period 2: first density, partial
    end_until(state, "fire", "gb")
    end_until(state, "move", "gb")
    assert state.period == 3
    assert state.sight("gb-1", "de-1").name == "BLOCKED"
