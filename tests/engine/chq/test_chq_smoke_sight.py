"""CHQ-10 to CHQ-12 (smoke and target numbers) and CHQ-30 (sight)."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError
from engine.rulesets.chq.actions import Call, Comms, Deviation, Fire
from engine.rulesets.chq.combat import effective
from engine.rulesets.chq.fire import fire_outcomes
from engine.rulesets.chq.orders import fire_params

from .helpers import act, feature, pulse, rect, scenario, unit

RIFLE_US, RIFLE_DE = "US Rifle Platoon", "German Rifle Platoon"


def _state(de_pos=(20, 10), terrain=(), extra=(), us_pos=(20, 5)):
    units = [unit("us-1", RIFLE_US, "us", us_pos), unit("us-bty", "US 105mm Battery", "us"), unit("de-1", RIFLE_DE, "de", de_pos), *extra]
    state = pulse(scenario(units, terrain=terrain).new_game(seed=2), chain="chain 4:3")
    return state


def lay_smoke(state, text):
    act(state, text)
    state.apply_action(Comms(True))
    state.apply_action(Deviation(0.0, 0))


def test_chq_10_smoke_adds_two_to_firing_tn():
    """CHQ-10: smoke adds two to firing tn."""
    state = _state()
    assert fire_params(state, "us-1", "de-1").tn == 3
    lay_smoke(state, "smoke us-bty @ 20,7.5 bearing 90")
    assert state.sees("us-1", "de-1") == (True, 1)
    assert fire_params(state, "us-1", "de-1").tn == 5  # short range 3+ becomes 5+


def test_chq_10_spotting_rolls_through_smoke_too():
    """CHQ-10: spotting rolls through smoke too."""
    from engine.rulesets.chq.blinds import spot_probability

    facts = _state().facts
    spotter = facts.units["us-1"]
    assert spot_probability(facts, spotter, 10, smoke=0) == 1 - (1 - __import__("fractions").Fraction(1, 2)) ** 2
    assert spot_probability(facts, spotter, 10, smoke=1) == 1 - __import__("fractions").Fraction(5, 6) ** 2  # 4+ -> 6+


def test_chq_11_long_range_through_smoke_loses_a_die_and_rolls_6():
    """CHQ-11: long range through smoke loses a die and rolls 6."""
    state = _state(de_pos=(20, 22))  # 17": long range 5+
    lay_smoke(state, "smoke us-bty @ 20,12 bearing 90")
    fire = fire_params(state, "us-1", "de-1")
    assert fire.tn == 7 and effective(state.facts, fire.dice, fire.tn) == (4, 6)
    act(state, "group us-1")
    act(state, "fire us-1 de-1")
    if state.current_player() == "de":
        act(state, "pass")
    assert dict(state.chance_outcomes()) == dict(fire_outcomes(4, 6, 4, 4).items())
    assert effective(state.facts, 4, 1) == (5, 2)  # a TN below 2 stays 2 and adds a die
    assert effective(state.facts, 1, 8) == (0, 6)  # a pool reduced to zero cannot fire


def test_chq_11_zero_dice_cannot_fire():
    """CHQ-11: zero dice cannot fire."""
    state = _state(de_pos=(20, 22))
    lay_smoke(state, "smoke us-bty @ 20,12 bearing 90")
    state.pulse.folds["us-1"] = 5  # a quintuple move costs 4 dice, leaving 1D at 7+: no dice
    message = fire_params(state, "us-1", "de-1")
    assert "loses all its dice" in message


def test_chq_12_screen_obscures_but_fo_cannot_direct_fire_through_it():
    """CHQ-12: screen obscures but fo cannot direct fire through it."""
    state = _state(de_pos=(20, 22), extra=[unit("us-bty2", "US 105mm Battery", "us")])
    lay_smoke(state, "smoke us-bty @ 20,12 bearing 90")
    assert state.sees("us-1", "de-1")[0]  # obscured, not blocked
    reason = state.illegal_reason(Call(("us-bty2",), (20, 22), "single", "regular", fo="us-1"))
    assert reason == (
        "the Forward Observer us-1 has no line of sight to the template centre at 20,22"
        " (a Forward Observer cannot direct fire through a smoke screen, CHQ-12) (CHQ-17)"
    )
    assert state.is_legal(Call(("us-bty2",), (40, 22), "single", "regular", fo="us-1"))  # clear of the screen


def test_chq_12_smoke_and_fire_from_one_battery_in_one_turn_is_illegal():
    """CHQ-12: smoke and fire from one battery in one turn is illegal."""
    state = _state()
    lay_smoke(state, "smoke us-bty @ 30,20 bearing 0")
    with pytest.raises(IllegalActionError, match="may not fire smoke and a fire mission in the same turn"):
        act(state, "call us-bty @ 20,10 single regular")


def test_chq_30_woods_block_but_the_edge_band_sees_out():
    """CHQ-30: woods block but the edge band sees out."""
    wood = feature("wood", "woods", rect(10, 12, 30, 20), True, "medium")
    state = _state(de_pos=(20, 25), terrain=[wood])
    assert not state.sees("us-1", "de-1")[0]  # the wood lies across the line
    state.units["de-1"].pos = (20, 12.2)  # just inside the wood's edge: sees out and is seen
    assert state.sees("us-1", "de-1")[0]
    state.units["de-1"].pos = (20, 16)  # deep in the wood
    assert not state.sees("us-1", "de-1")[0]
    state.units["us-1"].pos = (20, 16.5)  # both inside, bases touching: see each other up to 1"
    state.units["us-1"].facing = 180.0
    assert state.sees("us-1", "de-1")[0]


def test_chq_30_hills_block_unless_on_them_or_higher():
    """CHQ-30: hills block unless on them or higher."""
    hill = feature("hill", "hill", rect(10, 12, 30, 16), True, height=1)
    high = feature("high", "hill", rect(0, 0, 8, 8), True, height=2)
    state = _state(de_pos=(20, 25), terrain=[hill, high])
    assert not state.sees("us-1", "de-1")[0]
    state.units["de-1"].pos = (20, 14)  # on the hill: not blocked by it
    assert state.sees("us-1", "de-1")[0]
    state.units["de-1"].pos = (20, 25)
    state.units["us-1"].pos = (4, 4)  # on the higher hill: sees over the lower one
    assert state.sees("us-1", "de-1")[0]


def test_chq_30_hedge_blocks_unless_touching_and_friendly_units_block():
    """CHQ-30: hedge blocks unless touching and friendly units block."""
    hedge = feature("hedge", "hedge", {"type": "LineString", "coordinates": [[10, 14], [30, 14]]}, True, "light", width=0.5)
    state = _state(de_pos=(20, 25), terrain=[hedge])
    assert not state.sees("us-1", "de-1")[0]
    state.units["us-1"].pos = (20, 12.5)  # base edge at 13.5, within 0.5" of the hedge: fires through it
    assert state.sees("us-1", "de-1")[0]
    state.units["us-1"].pos = (20, 5)
    state2 = _state(de_pos=(20, 25), extra=[unit("us-2", "US M4 Sherman Platoon", "us", (20, 14))])
    assert not state2.sees("us-1", "de-1")[0]  # a friendly unit in the way
    assert state2.sees("us-2", "de-1")[0]
    hill = feature("hill", "hill", rect(16, 0, 24, 8), True, height=1)
    state3 = _state(de_pos=(20, 25), terrain=[hill], extra=[unit("us-2", "US M4 Sherman Platoon", "us", (20, 14))])
    assert state3.sees("us-1", "de-1")[0]  # higher firer, friendly unit nearer to it than the target
