"""Planner hooks on the MET state: exact threat and the smoke options of each phase."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from engine.geometry import Density, Screen, rectangle
from engine.options import SmokeOption
from engine.rulesets.met.actions import DirectSmoke, Discharge, Grenade, Mission
from engine.rulesets.met.deviation import deviation_distribution
from engine.rulesets.met.elements import MetScreen
from engine.rulesets.met.resolution import Status

from .helpers import end_until, game, unit


def _game(**options):
    return game(
        [unit("gb-1", "Sherman V", "gb", (500, 300)), unit("gb-inf", "Rifle Section", "gb", (200, 300)),
         unit("gb-bty", "25pdr Field Battery", "gb"), unit("gb-heavy", "7.2in Heavy Battery", "gb"),
         unit("de-pak", "PaK 40", "de", (500, 700), 180), unit("de-far", "PaK 40", "de", (900, 1900), 180),
         unit("de-hidden", "Grenadier Section", "de", (700, 700), 180, blind="de-b")],
        blinds=[{"id": "de-b", "owner": "de", "position": [700, 700]}], size=(1000, 2000), **options,
    )


def test_met_threat_of_direct_fire_is_the_exact_hit_probability():
    state = _game()
    assert state.threat("gb-1", "de-pak") == 0.6
    assert state.exact_threat("de-pak", "gb-1") == Fraction(6, 10)
    assert state.exact_threat("de-pak", "gb-inf") == Fraction(4, 10)  # fn_soft
    assert state.threat("gb-1", "de-far") == 0.0  # beyond range
    assert state.threat("gb-1", "de-hidden") == 0.0  # not located
    assert state.threat("gb-inf", "de-pak") == 0.0  # 447 m: beyond a section's 300 m
    state.screens.append(MetScreen(Screen(rectangle((500, 500), 200, 50), (Density.PARTIAL,)), "artillery", "x", "gb", 1))
    state._smoke_version += 1
    assert state.exact_threat("gb-1", "de-pak") == Fraction(4, 10)
    state.elements["gb-1"].status = Status.SUPPRESSED
    assert state.threat("gb-1", "de-pak") == 0.0


def test_met_threat_of_a_battery_sums_the_deviation_outcomes():
    state = _game()
    expected = Fraction(0)
    for deviation, p in deviation_distribution().items():
        dx = deviation.distance * math.sin(math.radians(deviation.bearing))
        dy = deviation.distance * math.cos(math.radians(deviation.bearing))
        if abs(dx) <= 100 + 1e-9 and abs(dy) <= 50 + 1e-9:  # 200 across x 100 along the line of fire (north)
            expected += p
    expected *= Fraction(5, 10)
    assert state.exact_threat("gb-bty", "de-pak") == expected
    assert Fraction(1, 3) < expected < Fraction(1, 2)


def test_met_smoke_options_battery_smoke_at_every_lattice_point():
    state = _game()
    end_until(state, "artillery", "gb")
    options = state.smoke_options("gb")
    points = state.aim_points("gb")
    assert len(options) == len(points)  # the heavy battery has no smoke rounds
    assert {tuple(p) for p in points} >= {(700.0, 700.0), (500.0, 700.0)}  # the blind and the sighted PaK
    for option in options[:20]:
        assert isinstance(option, SmokeOption)
        (action,) = option.actions
        assert isinstance(action, Mission) and action.kind == "smoke" and state.is_legal(action)
        assert sum(p for _, p in option.deviation) == 1
        assert all(isinstance(p, Fraction) for _, p in option.deviation)
        # the rest of this period and the next both show the first density; gone after four more
        densities = [[s.density for s in tick] for tick in option.screens]
        assert densities == [[Density.PARTIAL] * 2, [Density.PARTIAL] * 2, [Density.PARTIAL, Density.FULL],
                             [Density.PARTIAL, Density.FULL], [Density.PARTIAL] * 2]
        assert option.resources == (("gb-bty", 1),)


def test_met_smoke_options_of_the_movement_phase():
    state = _game()
    options = state.smoke_options("gb")
    kinds = sorted(type(o.actions[0]).__name__ for o in options)
    assert kinds.count("Discharge") == 4  # turret-mounted, threatened by the located PaK
    assert kinds.count("Grenade") == 4
    for option in options:
        assert state.is_legal(option.actions[0])
        (screen,) = option.screens[0]
        assert screen.density is Density.FULL
    discharge = next(o for o in options if o.actions[0] == Discharge("gb-1", "front"))
    assert discharge.screens[0][0].polygon.bounds == pytest.approx((475.0, 307.5, 525.0, 332.5))
    assert len(discharge.screens) == 1  # gb moves first: gone at its next movement
    assert any(isinstance(o.actions[0], Grenade) for o in options)


def test_met_smoke_options_of_the_fire_phase():
    state = _game()
    end_until(state, "fire", "gb")
    options = state.smoke_options("gb")
    assert options and all(isinstance(o.actions[0], DirectSmoke) for o in options)
    for option in options:
        assert state.is_legal(option.actions[0])
        assert sum(p for _, p in option.deviation) == 1
    assert state.smoke_options("gb", phase="artillery")  # asked for a later phase, on today's geometry
