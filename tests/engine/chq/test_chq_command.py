"""CHQ-13 to CHQ-16 and CHQ-31: Command Dice, chains, Staff Orders, movement, opportunity fire."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.errors import IllegalActionError
from engine.rulesets.chq.actions import Chain, CommandRoll, Group, Move, MoveRoll, RollOff
from engine.rulesets.chq.command import command_roll_outcomes, first_pulse
from engine.rulesets.chq.fire import FireResult

from .helpers import act, counts, feature, outcome_map, pulse, rect, roll_command, scenario, unit

RIFLE_US, RIFLE_DE = "US Rifle Platoon", "German Rifle Platoon"


def _units():
    return [
        unit("us-1", RIFLE_US, "us", (20, 5)),
        unit("us-2", "US M4 Sherman Platoon", "us", (24, 5)),
        unit("us-3", RIFLE_US, "us", (40, 5)),
        unit("us-bty", "US 105mm Battery", "us"),
        unit("de-1", RIFLE_DE, "de", (20, 30)),
        unit("de-bty", "German 10.5cm Battery", "de"),
    ]


def _game(**kw):
    return scenario(_units(), **kw).new_game(seed=3)


def test_chq_13_command_dice_are_multisets_with_multinomial_odds():
    """CHQ-13: command dice are multisets with multinomial odds."""
    outcomes = dict(command_roll_outcomes("us", 6))
    assert len(outcomes) == 462 and sum(outcomes.values()) == 1
    assert outcomes[CommandRoll("us", (0, 0, 0, 0, 0, 6))] == Fraction(1, 6**6)
    assert outcomes[CommandRoll("us", (1, 1, 1, 1, 1, 1))] == Fraction(720, 6**6)
    assert outcomes[CommandRoll("us", (2, 0, 0, 0, 0, 4))] == Fraction(15, 6**6)


def test_chq_13_most_sixes_first_ties_by_fives_then_roll_off():
    """CHQ-13: most sixes first ties by fives then roll off."""
    assert first_pulse(counts(6, 6, 2), counts(6, 5, 5)) == 0
    assert first_pulse(counts(6, 5, 2), counts(6, 4, 4)) == 0
    assert first_pulse(counts(6, 4, 2), counts(6, 5, 2)) == 1
    state = _game()
    roll_command(state, (6, 4, 3, 2, 2), (6, 4, 3, 2, 2))
    assert state.pending()[0] == "rolloff"
    assert outcome_map(state) == {RollOff("us"): Fraction(1, 2), RollOff("de"): Fraction(1, 2)}
    state.apply_action(RollOff("de"))
    assert state.current_player() == "de"


def test_chq_13_command_failure_gives_ones_away_takes_second_pulse():
    """CHQ-13: command failure gives ones away takes second pulse."""
    state = _game()
    roll_command(state, (1, 1, 6, 4, 4), (6, 6, 6, 2, 2))  # us: two 1s, one 6: failure
    assert state.failed == frozenset({"us"})
    assert state.dice["de"].wild == 2  # the 1s go to the enemy as wild dice
    assert state.current_player() == "de"  # the failing side takes the second pulse
    assert Chain(2, 2, 3, 2) in state.legal_actions()


def test_chq_13_missions_end_on_failure_unless_a_staff_order_keeps_them():
    """CHQ-13: missions end on failure unless a staff order keeps them."""
    state = _game()
    pulse(state, chain="chain 4:3")
    act(state, "call us-bty @ 20,30 continuous regular")
    from engine.rulesets.chq.actions import Comms, Deviation

    state.apply_action(Comms(True))
    state.apply_action(Deviation(0.0, 0))
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.battery_mission("us-bty").status == "active"
    # play out the turn: everyone ends at once
    while state.turn == 1:
        if state.is_chance_node():
            outcomes = [o for o, _ in state.chance_outcomes()]
            state.apply_action(next((o for o in outcomes if getattr(o, "passed", False)), outcomes[-1]))
        else:
            actions = state.legal_actions()
            from engine.rulesets.chq.actions import End, Pass, Supply

            choice = next((a for a in actions if isinstance(a, (End, Pass))), None)
            choice = choice or next((a for a in actions if isinstance(a, Supply) and a.staff == 0), None) or actions[0]
            state.apply_action(choice)
        if state.pending() and state.pending()[0] == "command":
            break
    assert state.battery_mission("us-bty") is not None
    staff = state.staff["us"]
    roll_command(state, (1, 1, 1, 4, 4), (6, 2, 2, 3, 3))
    assert state.current_player() == "us" and {str(a) for a in state.legal_actions()} == {"keep us-bty", "drop us-bty"}
    act(state, "keep us-bty")
    assert state.staff["us"] == staff - 1 and state.battery_mission("us-bty") is not None


def test_chq_13_both_fail_and_the_turn_ends():
    """CHQ-13: both fail and the turn ends."""
    state = _game()
    roll_command(state, (1, 1, 6, 4, 4), (1, 2, 2, 3, 3))
    assert "both sides suffer a Command Failure: the turn ends" in state.log
    assert state.pulse is None and state.turn == 2 and state.pending()[0] == "command"


def test_chq_13_a_side_must_use_a_chain_no_passing():
    """CHQ-13: a side must use a chain no passing."""
    state = _game()
    roll_command(state, (6, 4, 4, 3, 2), (2, 2, 3, 3, 5))
    assert all(isinstance(a, Chain) for a in state.legal_actions())
    with pytest.raises(IllegalActionError):
        act(state, "end")


def test_chq_14_chains_sixes_wild_groups_and_no_second_activation():
    """CHQ-14: chains sixes wild groups and no second activation."""
    state = _game()
    pulse(state, us_faces=(6, 4, 4, 3, 2), chain="chain 4:2 6:1")
    assert "more than 6" in state.illegal_reason(Group(("us-3", "us-1")))
    assert state.pulse.dice_left == 3
    act(state, "group us-1,us-2")
    assert state.pulse.dice_left == 2
    assert "already been activated" in state.illegal_reason(Group(("us-1",)))
    state.units["us-3"].suppressed = True
    act(state, "unsuppress us-3")  # costs a die, not an activation
    assert not state.units["us-3"].suppressed and state.pulse.dice_left == 1
    with pytest.raises(IllegalActionError, match="one number"):
        act(state, "chain 4:1 3:1")


def test_chq_14_suppressed_units_cannot_group_and_move_only_the_variable_part():
    """CHQ-14: suppressed units cannot group and move only the variable part."""
    state = _game()
    state.units["us-2"].suppressed = True
    pulse(state, chain="chain 4:3")
    assert "suppressed and cannot join a group" in state.illegal_reason(Group(("us-1", "us-2")))
    act(state, "group us-2")
    assert "suppressed" in state.illegal_reason(Move((24, 20), 2))
    act(state, "move -> 24,30")
    kind, order = state.pending()
    assert kind == "move" and order.fixed == 0 and order.dice == 1


def test_chq_14_rally_removes_one_disruption_on_an_opposed_roll():
    """CHQ-14: rally removes one disruption on an opposed roll."""
    state = _game()
    state.units["us-1"].disruption = 2
    pulse(state, chain="chain 4:3")
    act(state, "group us-1")
    act(state, "rally")
    from engine.rulesets.chq.actions import Check

    assert outcome_map(state) == {Check("rally", True): Fraction(1, 2), Check("rally", False): Fraction(1, 2)}
    state.apply_action(Check("rally", True))
    assert state.units["us-1"].disruption == 1
    assert "rallies" in state.illegal_reason(Move((20, 20)))


def test_chq_15_staff_orders_from_doubles_next_turn_and_instant_from_sixes():
    """CHQ-15: staff orders from doubles next turn and instant from sixes."""
    state = _game()
    start = state.staff["us"]
    pulse(state, us_faces=(6, 6, 4, 4, 4), chain="chain 4:3")
    assert state.staff["us"] == start and state.staff_next["us"] == 2  # a triple: two, from next turn
    act(state, "end")
    act(state, "end")  # Logistics Phase
    act(state, "chain 2:2") if state.current_player() == "de" else None
    state2 = _game()
    pulse(state2, us_faces=(6, 6, 4, 4, 4), chain="chain 6:2")
    assert state2.staff["us"] == min(5, start + 1)  # a chain of 6s: instant, capped at the Command Dice
    state3 = _game()
    pulse(state3, chain="chain 3:1 so:1")  # Staff Orders as wild dice earn nothing
    assert state3.pulse.dice_left == 2 and state3.staff["us"] == start - 1 and state3.staff_next["us"] == 0


def test_chq_16_moves_fixed_plus_dice_slowest_unit_and_k_fold():
    """CHQ-16: moves fixed plus dice slowest unit and k fold."""
    state = _game()
    pulse(state, chain="chain 4:3")
    act(state, "group us-1,us-2")
    act(state, "move x2 -> 22,35")
    kind, order = state.pending()
    assert (order.fixed, order.dice) == (12, 2)  # Average 6"+1D, twice
    assert outcome_map(state)[MoveRoll(7)] == Fraction(6, 36)
    state.apply_action(MoveRoll(7))  # 12" + 7 = 19"
    while state.current_player() == "de":
        act(state, "pass")
    length = (2**2 + 30**2) ** 0.5  # toward 22,35: 19" of a 30.07" way
    assert state.units["us-1"].pos == pytest.approx((20 + 2 * 19 / length, 5 + 30 * 19 / length))
    assert state.units["us-2"].pos == pytest.approx((24 + 2 * 19 / length, 5 + 30 * 19 / length))  # the group keeps formation
    slow = scenario([unit("us-1", "German 8cm Mortar", "us", (20, 5)), unit("us-2", RIFLE_US, "us", (22, 5)), unit("de-1", RIFLE_DE, "de", (20, 30))]).new_game(seed=1)
    pulse(slow, chain="chain 4:3")
    act(slow, "group us-2,us-1")
    act(slow, "move -> 22,20")
    assert (slow.pending()[1].fixed, slow.pending()[1].dice) == (4, 1)  # Slow 4"+1D (house)


def test_chq_16_difficult_terrain_halves_the_move():
    """CHQ-16: difficult terrain halves the move."""
    wood = feature("wood", "woods", rect(15, 8, 25, 14), False, "medium", difficult=True)
    state = scenario(_units(), terrain=[wood]).new_game(seed=1)
    pulse(state, chain="chain 4:3")
    act(state, "group us-1")
    act(state, "move -> 20,30")
    state.apply_action(MoveRoll(6))  # 12", halved to 6"
    while state.current_player() == "de":
        act(state, "pass")
    assert state.units["us-1"].pos == pytest.approx((20.0, 11.0))


def test_chq_31_opportunity_fire_halts_a_mover_and_suppression_keeps_it_there():
    """CHQ-31: opportunity fire halts a mover and suppression keeps it there."""
    state = scenario([unit("us-1", RIFLE_US, "us", (20, 5)), unit("de-1", RIFLE_DE, "de", (20, 24))]).new_game(seed=1)
    pulse(state, chain="chain 4:3")
    act(state, "group us-1")
    act(state, "move -> 20,17")
    state.apply_action(MoveRoll(6))  # 12": path 5 -> 11 -> 17
    assert state.current_player() == "de" and {str(a) for a in state.legal_actions()} == {"opfire de-1 us-1", "pass"}
    act(state, "opfire de-1 us-1")
    fire = state.pending()[1]
    assert fire.halt == 1 and fire.tn == 5  # first seen in range at the path's middle, 13" away: long range
    state.apply_action(FireResult(0, True, 0))
    assert state.units["de-1"].fire_marker
    assert state.current_player() == "us"  # de-1 has fired; nobody else may
    assert state.units["us-1"].pos == (20.0, 11.0)  # suppressed: stays where it was fired on


def test_chq_31_fire_against_a_firer_is_simultaneous_and_suppressed_units_cannot_opfire():
    """CHQ-31: fire against a firer is simultaneous and suppressed units cannot opfire."""
    state = scenario([unit("us-1", RIFLE_US, "us", (20, 5)), unit("de-1", RIFLE_DE, "de", (20, 10)), unit("de-2", RIFLE_DE, "de", (26, 10))]).new_game(seed=1)
    state.units["de-2"].suppressed = True
    pulse(state, chain="chain 4:3")
    act(state, "group us-1")
    act(state, "fire us-1 de-1")
    assert {str(a) for a in state.legal_actions()} == {"opfire de-1 us-1", "pass"}
    act(state, "opfire de-1 us-1")
    act(state, "pass") if state.current_player() == "de" else None
    first = state.pending()[1]
    assert first.firer == "us-1"
    state.apply_action(FireResult(0, True, 0))  # de-1 suppressed by us-1 ...
    second = state.pending()[1]
    assert second.firer == "de-1" and second.target == "us-1"  # ... still fires: both fires are simultaneous
