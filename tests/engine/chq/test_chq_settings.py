"""The other readings, switched by settings in rules.toml, change play as their notes say."""

from __future__ import annotations

import doctest
import importlib

import pytest

from engine.rulesets.chq.actions import Barrage, Comms, Deviation

from .helpers import act, pulse, scenario, unit, with_settings

MODULES = ["actions", "artillery", "blinds", "command", "game", "movement"]


@pytest.mark.parametrize("name", MODULES)
def test_module_examples_run(name):
    module = importlib.import_module(f"engine.rulesets.chq.{name}")
    failures, _ = doctest.testmod(module)
    assert failures == 0


def _barrage():
    units = [
        unit("us-1", "US Rifle Platoon", "us", (20, 5)),
        unit("us-bty-1", "US 105mm Battery", "us"),
        unit("us-bty-2", "US 105mm Battery", "us"),
        unit("de-1", "German Rifle Platoon", "de", (20, 25), blind="de-b1"),
    ]
    blinds = [{"id": "de-b1", "owner": "de", "position": [20, 25]}, {"id": "de-b2", "owner": "de", "position": [8, 25], "dummy": True}]
    return scenario(units, blinds=blinds, mission="attack-defend")


def test_chq_27_barrage_one_blind_per_round_setting():
    """CHQ-27: with barrage_one_blind_per_round the batteries of a round cannot split."""
    state = with_settings(_barrage(), barrage_one_blind_per_round=True)
    act(state, "barrage us-bty-1 de-b1")
    assert "all batteries of a round fire on one Blind" in state.illegal_reason(Barrage("us-bty-2", "de-b2"))
    split = with_settings(_barrage())
    act(split, "barrage us-bty-1 de-b1")
    assert split.is_legal(Barrage("us-bty-2", "de-b2"))


def test_chq_23_smoke_extra_pulse_setting_keeps_a_screen_one_logistics_phase_longer():
    """CHQ-23: smoke_extra_pulse."""
    units = [unit("us-1", "US Rifle Platoon", "us", (20, 5)), unit("us-bty", "US 105mm Battery", "us"), unit("de-1", "German Rifle Platoon", "de", (20, 25))]
    for extra, lasts in ((False, 1), (True, 2)):
        state = pulse(with_settings(scenario(units), smoke_extra_pulse=extra), chain="chain 4:3")
        act(state, "smoke us-bty @ 20,12 bearing 90")
        state.apply_action(Comms(True))
        state.apply_action(Deviation(0.0, 0))
        assert state.battery_mission("us-bty").expires_lp == state.lp_count["us"] + lasts


def test_chq_5_high_suppression_on_miss_setting():
    """CHQ-5: with high_suppression_on_miss a complete miss still suppresses a target without sixes."""
    from engine.rulesets.chq.combat import PendingFire, fire_distribution

    units = [unit("us-1", "USA M4 105mm", "us", (20, 5)), unit("de-1", "German Rifle Platoon", "de", (20, 25))]
    fire = PendingFire("us-1", "de-1", 1, 4, 1, 4, True, "indirect")
    default = dict(fire_distribution(with_settings(scenario(units)).facts, fire))
    other = dict(fire_distribution(with_settings(scenario(units), high_suppression_on_miss=True).facts, fire))
    p_default = sum(p for r, p in default.items() if r.suppressed)
    p_other = sum(p for r, p in other.items() if r.suppressed)
    from fractions import Fraction

    # 1D at 4+ against 1D at 4+: the miss (1/2) now suppresses unless the target rolls a six (5/6)
    assert p_other - p_default == Fraction(1, 2) * Fraction(5, 6)


def _artillery_units():
    return [
        unit("us-1", "US Rifle Platoon", "us", (20, 5)),
        unit("us-2", "US Rifle Platoon", "us", (40, 2)),
        unit("us-bty", "US 105mm Battery", "us"),
        unit("de-1", "German Rifle Platoon", "de", (20, 20)),
    ]


def _continuous(state):
    act(state, "call us-bty @ 20,20 continuous regular")
    state.apply_action(Comms(True))
    state.apply_action(Deviation(0.0, 0))
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    act(state, "end")  # into the Logistics Phase


@pytest.mark.parametrize("refire", [False, True])
def test_chq_19_continuous_refire_deviates_setting(refire):
    """CHQ-19: a continuous mission's later fires deviate only with continuous_refire_deviates."""
    state = pulse(with_settings(scenario(_artillery_units()), continuous_refire_deviates=refire), chain="chain 4:3")
    _continuous(state)
    act(state, "end")
    assert state.pending()[0] == ("deviation" if refire else "fire")


@pytest.mark.parametrize("deviates", [False, True])
def test_chq_15_adjust_deviates_setting(deviates):
    """CHQ-15: an adjusted template (one Staff Order) deviates only with adjust_deviates."""
    state = pulse(with_settings(scenario(_artillery_units()), adjust_deviates=deviates), chain="chain 4:3")
    _continuous(state)
    staff = state.staff["us"]
    act(state, "adjust us-bty @ 20,21")
    assert state.staff["us"] == staff - 1
    act(state, "end")
    assert state.pending()[0] == ("deviation" if deviates else "fire")


def test_chq_9_indirect_spotter_setting():
    """CHQ-9: with indirect_spotter 'firer' a friendly unit's sight no longer serves."""
    from engine.rulesets.chq.combat import PendingFire
    from engine.rulesets.chq.orders import fire_params

    from .helpers import feature, rect

    units = [unit("us-m4", "USA M4 105mm", "us", (20, 5)), unit("us-1", "US Rifle Platoon", "us", (40, 20)), unit("de-1", "German Rifle Platoon", "de", (20, 30))]
    wood = feature("wood", "woods", rect(10, 12, 30, 20), True, "medium")
    default = with_settings(scenario(units, terrain=[wood]))
    assert isinstance(fire_params(default, "us-m4", "de-1", True), PendingFire)  # us-1 sees it
    strict = with_settings(scenario(units, terrain=[wood]), indirect_spotter="firer")
    assert "indirect_spotter is 'firer'" in fire_params(strict, "us-m4", "de-1", True)


@pytest.mark.parametrize("clip", [True, False])
def test_chq_6_forced_back_clip_setting(clip):
    """CHQ-6: a unit forced back past its own edge stops there, or (forced_back_clip false) is dispersed."""
    from engine.rulesets.chq.fire import FireResult

    units = [unit("us-1", "US Rifle Platoon", "us", (20, 20)), unit("de-1", "German Rifle Platoon", "de", (20, 33))]
    state = pulse(with_settings(scenario(units), forced_back_clip=clip), chain="chain 4:3")
    act(state, "group us-1")
    act(state, "fire us-1 de-1")
    if state.current_player() == "de":
        act(state, "pass")
    state.apply_action(FireResult(1, True, 7))
    if clip:
        assert state.units["de-1"].pos == (20.0, 36.0)
    else:
        assert state.units["de-1"].pos is None and state.pending()[0] == "d3_morale"


def test_chq_15_calls_in_pulse_only_setting():
    """CHQ-15: missions are called in the pulse; with calls_in_pulse_only false also in the Logistics Phase."""
    from engine.rulesets.chq.actions import Call

    for only, legal in ((True, False), (False, True)):
        state = pulse(with_settings(scenario(_artillery_units()), calls_in_pulse_only=only), chain="chain 4:3")
        act(state, "end")  # into the Logistics Phase
        call = Call(("us-bty",), (20, 20))
        assert state.is_legal(call) == legal
        if legal:
            state.apply_action(call)
            assert state.pending()[0] == "comms"
        else:
            assert "called in your own pulse" in state.illegal_reason(call)
