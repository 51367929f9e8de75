"""CHQ-17 to CHQ-24: on-call missions, comms, deviation, templates, supply, smoke, time-on-target."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.errors import IllegalActionError
from engine.rulesets.chq.actions import Call, Check, Comms, Deviation, Smoke, Supply
from engine.rulesets.chq.artillery import deviation_outcomes, make_template, smoke_polygon

from .helpers import act, outcome_map, pulse, scenario, unit

RIFLE_US, RIFLE_DE = "US Rifle Platoon", "German Rifle Platoon"


def _units(nation_bty="US 105mm Battery", n_bty=1, prefix="us"):
    us = [unit("us-1", RIFLE_US, "us", (20, 5)), unit("us-2", RIFLE_US, "us", (30, 5))]
    us += [unit(f"us-bty-{i}", nation_bty, "us") for i in range(1, n_bty + 1)]
    de = [unit("de-1", RIFLE_DE, "de", (20, 20)), unit("de-2", "German Panther Platoon", "de", (23, 20)), unit("de-bty", "German 10.5cm Battery", "de")]
    return us + de


def _state(n_bty=1, us=None, **kw):
    state = scenario(_units(n_bty=n_bty, nation_bty=kw.pop("card", "US 105mm Battery")), us=us, **kw).new_game(seed=4)
    return pulse(state, chain="chain 4:3")


def test_chq_17_a_mission_costs_a_staff_order_and_needs_an_fo_with_sight():
    """CHQ-17: a mission costs a staff order and needs an fo with sight."""
    state = _state()
    before = state.staff["us"]
    act(state, "call us-bty-1 @ 20,20 single regular")
    assert state.staff["us"] == before - 1 and state.pending()[0] == "comms"
    poor = _state(us={"staff_orders": 0})
    with pytest.raises(IllegalActionError, match="needs 1 Staff Order and you have 0"):
        act(poor, "call us-bty-1 @ 20,20 single regular")
    blind_fo = _state()
    blind_fo.units["us-1"].pos = None
    blind_fo.units["us-2"].pos = None
    assert "no unit of yours sees the template centre" in blind_fo.illegal_reason(Call(("us-bty-1",), (20, 20)))


def test_chq_17_a_battery_that_fired_for_effect_takes_no_second_mission():
    """CHQ-17: a battery that fired for effect takes no second mission."""
    state = _state()
    act(state, "call us-bty-1 @ 40,30 single regular")
    state.apply_action(Comms(True))
    state.apply_action(Deviation(0.0, 0))
    assert "already fired for effect this turn" in state.illegal_reason(Call(("us-bty-1",), (20, 20)))


def test_chq_18_comms_check_is_an_even_bet_and_failure_delays_to_the_logistics_phase():
    """CHQ-18: comms check is an even bet and failure delays to the logistics phase."""
    state = _state()
    act(state, "call us-bty-1 @ 20,20 single regular")
    assert outcome_map(state) == {Comms(True): Fraction(1, 2), Comms(False): Fraction(1, 2)}
    state.apply_action(Comms(False))
    assert state.battery_mission("us-bty-1").status == "delayed"
    act(state, "end")  # the pulse ends; the Logistics Phase opens with the delayed mission's deviation roll
    assert state.pending()[0] == "deviation"


def test_chq_18_a_delayed_mission_is_lost_to_a_command_failure_next_turn():
    """CHQ-18: a delayed mission is lost to a command failure next turn."""
    from engine.rulesets.chq.actions import CommandRoll

    state = _state()
    state.missions.clear()
    mid = state.new_mission(side="us", batteries=("us-bty-1",), kind="single", sheaf="regular", aim=(20, 20), bearing=0.0, fo="us-1", status="delayed")
    from engine.rulesets.chq.state import Entry

    state.agenda = [Entry("step", "turn_start")]  # jump to the next turn's Command Dice
    state._advance()
    from .helpers import counts

    state.apply_action(CommandRoll("us", counts(1, 1, 2, 3, 4)))
    state.apply_action(CommandRoll("de", counts(6, 2, 3, 3, 4)))
    assert mid not in state.missions


def test_chq_19_single_missions_go_and_continuous_ones_fire_again_in_the_next_logistics_phase():
    """CHQ-19: single missions go and continuous ones fire again in the next logistics phase."""
    state = _state()
    act(state, "call us-bty-1 @ 40,30 single regular")
    state.apply_action(Comms(True))
    state.apply_action(Deviation(0.0, 0))
    assert state.battery_mission("us-bty-1") is None
    state = _state()
    act(state, "call us-bty-1 @ 20,20 continuous regular")
    state.apply_action(Comms(True))
    state.apply_action(Deviation(0.0, 0))
    while state.is_chance_node():  # the first fire for effect
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.battery_mission("us-bty-1").status == "active"
    act(state, "end")  # into the Logistics Phase
    assert state.current_player() == "us" and "cancel us-bty-1" in {str(a) for a in state.legal_actions()}
    act(state, "end")  # the continuous mission fires again
    assert state.pending()[0] == "fire" and state.pending()[1].firer == "us-bty-1"


def test_chq_20_deviation_hit_two_in_six_else_direction_and_1d6_plus_3():
    """CHQ-20: deviation hit two in six else direction and 1d6 plus 3."""
    state = _state()
    outcomes = dict(deviation_outcomes(state.facts))
    assert sum(outcomes.values()) == 1 and outcomes[Deviation(0.0, 0)] == Fraction(1, 3)
    arrows = [d for d in outcomes if d.distance]
    assert len(arrows) == 8 * 6 and {d.distance for d in arrows} == set(range(4, 10))
    assert all(outcomes[d] == Fraction(2, 3) / 8 / 6 for d in arrows)
    assert Deviation(90.0, 6).offset == (6.0, 0.0)
    act(state, "call us-bty-1 @ 20,20 single regular")
    state.apply_action(Comms(True))
    state.apply_action(Deviation(90.0, 9))  # lands 9" east, at 29,20: nobody under it
    assert state.is_chance_node() is False


def test_chq_21_every_unit_under_the_template_is_attacked_fp_or_at():
    """CHQ-21: every unit under the template is attacked fp or at."""
    state = _state()
    act(state, "call us-bty-1 @ 21.5,20 single regular")
    state.apply_action(Comms(True))
    state.apply_action(Deviation(0.0, 0))
    first = state.pending()[1]
    attacked = [first.target]
    assert first.dice in (4, 2)
    state.apply_action(state.chance_outcomes()[0][0])
    second = state.pending()[1]
    attacked.append(second.target)
    fires = {first.target: first, second.target: second}
    assert set(attacked) == {"de-1", "de-2"}
    assert fires["de-1"].dice == 4 and fires["de-2"].dice == 2  # FP 4D against soft, AT 2D against armour
    assert (make_template(state.facts, (0, 0), "regular").width, make_template(state.facts, (0, 0), "converged").width) == (6, 4)


def test_chq_21_units_partly_under_a_regular_template_get_a_die_but_not_under_converged():
    """CHQ-21: units partly under a regular template get a die but not under converged."""
    state = _state()
    from engine.rulesets.chq.artillery import Mission
    from engine.rulesets.chq.orders import artillery_fire_on

    for sheaf, bonus in (("regular", 1), ("converged", 0)):
        centre = (20 + 2 + (3 if sheaf == "regular" else 2) - 0.5, 20)  # the template's west edge 0.5" into de-1's east end
        template = make_template(state.facts, centre, sheaf)
        mission = Mission(0, "us", ("us-bty-1",), "single", sheaf, centre, 0.0, None, "comms", centre)
        fire = artillery_fire_on(state, mission, template, "de-1", False)
        assert fire.reaction == 4 + bonus


def test_chq_22_supply_checks_at_the_end_of_turn():
    """CHQ-22: supply checks at the end of turn."""
    state = _state()
    act(state, "call us-bty-1 @ 40,30 continuous regular")
    state.apply_action(Comms(True))
    state.apply_action(Deviation(0.0, 0))
    # end the turn: pulses and logistics phases
    while not (state.current_player() == "us" and any(isinstance(a, Supply) for a in state.legal_actions())):
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            acts = state.legal_actions()
            from engine.rulesets.chq.actions import Chain, End, Pass

            state.apply_action(next((a for a in acts if isinstance(a, (End, Pass))), acts[0]))
    assert {str(a) for a in state.legal_actions()} == {"supply us-bty-1 +0", "supply us-bty-1 +1"}
    act(state, "supply us-bty-1 +0")
    assert outcome_map(state)[Check("supply", True)] == Fraction(163, 256)  # USA 5D against 3D
    state.apply_action(Check("supply", False))
    assert state.battery_mission("us-bty-1") is None
    from engine.rulesets.chq.artillery import supply_outcomes

    assert dict(supply_outcomes(3, 1, state.facts))[Check("supply", True)] == Fraction(1, 2)  # Germany 3D + 1 Staff Order


def test_chq_23_smoke_screen_is_12_by_1_and_lasts_until_the_next_friendly_logistics_phase():
    """CHQ-23: smoke screen is 12 by 1 and lasts until the next friendly logistics phase."""
    state = _state()
    act(state, "smoke us-bty-1 @ 20,12 bearing 90")
    state.apply_action(Comms(True))
    state.apply_action(Deviation(180.0, 5))  # deviates like a fire mission: 5" south
    mission = state.battery_mission("us-bty-1")
    assert mission.status == "screen" and mission.centre == (20.0, 7.0)
    poly = smoke_polygon(state.facts, mission.centre, mission.bearing)
    minx, miny, maxx, maxy = poly.bounds
    assert (maxx - minx, maxy - miny) == pytest.approx((12, 1))
    act(state, "end")  # the caller's Logistics Phase starts: the screen is gone
    assert state.battery_mission("us-bty-1") is None


def test_chq_23_smoke_arriving_in_the_logistics_phase_lasts_through_the_next_pulses():
    """CHQ-23: smoke arriving in the logistics phase lasts through the next pulses."""
    state = _state()
    act(state, "smoke us-bty-1 @ 20,12 bearing 90")
    state.apply_action(Comms(False))
    act(state, "end")
    state.apply_action(Deviation(0.0, 0))  # arrives now, in the Logistics Phase
    mission = state.battery_mission("us-bty-1")
    assert mission.status == "screen" and mission.expires_lp == state.lp_count["us"] + 1


def test_chq_24_time_on_target_adds_half_of_each_further_battery():
    """CHQ-24: time on target adds half of each further battery."""
    state = _state(n_bty=3, card="US 105mm Battery")
    before = state.staff["us"]
    act(state, "call us-bty-1,us-bty-2,us-bty-3 @ 20,20 single regular")
    assert state.staff["us"] == before - 3
    assert state.pending()[0] == "comms"  # one Comms Check for all
    state.apply_action(Comms(True))
    assert state.pending()[0] == "deviation"  # one deviation roll moves them all
    state.apply_action(Deviation(0.0, 0))
    fires = []
    while state.is_chance_node() and state.pending()[0] == "fire":
        fires.append(state.pending()[1])
        state.apply_action(state.chance_outcomes()[0][0])
    by_target = {f.target: f for f in fires}
    assert by_target["de-1"].dice == 8  # 4 + 2 + 2
    assert by_target["de-2"].dice == 2 + 1 + 1  # AT 2D: 2 + 1 + 1


def test_chq_24_no_german_time_on_target_and_staff_orders_per_battery():
    """CHQ-24: no german time on target and staff orders per battery."""
    sc = scenario(
        [unit("us-1", RIFLE_US, "us", (20, 5)), unit("de-1", RIFLE_DE, "de", (20, 20)), unit("de-b1", "German 10.5cm Battery", "de"), unit("de-b2", "German 10.5cm Battery", "de")]
    )
    state = pulse(sc.new_game(seed=1), us_faces=(2, 2, 3, 3, 5), de_faces=(4, 4, 4, 3, 6), chain="chain 4:3")
    with pytest.raises(IllegalActionError, match="Germany batteries cannot fire time-on-target"):
        act(state, "call de-b1,de-b2 @ 20,5 single regular")
    us = _state(n_bty=3, us={"staff_orders": 2})
    assert "needs 3 Staff Orders and you have 2" in us.illegal_reason(Call(("us-bty-1", "us-bty-2", "us-bty-3"), (20, 20)))
    assert "single mission" in us.illegal_reason(Call(("us-bty-1", "us-bty-2"), (20, 20), "continuous"))


def test_chq_23_smoke_missions_need_staff_orders_and_are_fired_by_one_battery():
    """CHQ-23: smoke missions need staff orders and are fired by one battery."""
    state = _state(n_bty=2, us={"staff_orders": 0})
    assert "needs 1 Staff Order" in state.illegal_reason(Smoke("us-bty-1", (20, 12), 90))
