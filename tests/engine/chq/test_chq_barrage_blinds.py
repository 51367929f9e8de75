"""CHQ-25 to CHQ-28: the initial barrage, its rounds, combined batteries and Blinds."""

from __future__ import annotations

from fractions import Fraction

from engine.rulesets.chq.actions import D3, Barrage, Check, Spot

from .helpers import act, outcome_map, pulse, scenario, unit

RIFLE_US, RIFLE_DE = "US Rifle Platoon", "German Rifle Platoon"


def _scenario(mission="attack-defend"):
    units = [
        unit("us-1", RIFLE_US, "us", (20, 5)),
        unit("us-bty-1", "US 105mm Battery", "us"),
        unit("us-bty-2", "US 105mm Battery", "us"),
        unit("de-1", RIFLE_DE, "de", (20, 25), blind="de-b1"),
        unit("de-2", RIFLE_DE, "de", (34, 26)),
        unit("de-bty", "German 10.5cm Battery", "de"),
    ]
    blinds = [{"id": "de-b1", "owner": "de", "position": [20, 25]}, {"id": "de-b2", "owner": "de", "position": [8, 25], "dummy": True}]
    return scenario(units, blinds=blinds, mission=mission)


def test_chq_25_initial_barrage_costs_nothing_never_deviates_and_fires_at_once():
    """CHQ-25: initial barrage costs nothing never deviates and fires at once."""
    state = _scenario().new_game(seed=5)
    staff = dict(state.staff)
    assert state.current_player() == "us" and all(isinstance(a, Barrage) for a in state.legal_actions())
    act(state, "barrage us-bty-1 de-b1")
    act(state, "barrage us-bty-2 de-b1")
    kind, fire = state.pending()  # straight to the fire: no Comms Check, no deviation roll
    assert kind == "fire" and fire.kind == "barrage" and fire.target == "de-1"
    assert state.staff == staff


def test_chq_26_rounds_by_mission_type():
    """CHQ-26: rounds by mission type."""
    state = _scenario("attack-defend").new_game(seed=5)
    rounds = {}
    while state.turn == 0:
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
            continue
        if state.barrage is not None:
            rounds[state.barrage.side] = state.barrage.rounds
        acts = state.legal_actions()
        state.apply_action(next((a for a in acts if a.blind is None and a.at is None), acts[0]))
    assert rounds == {"us": 2, "de": 1}
    state = _scenario("take-and-hold").new_game(seed=5)
    assert state.pending()[0] == "d3_rounds" and outcome_map(state) == {D3(1): Fraction(1, 3), D3(2): Fraction(1, 3), D3(3): Fraction(1, 3)}
    state.apply_action(D3(3))
    assert state.barrage.rounds == 3
    meeting = _scenario("meeting-engagement").new_game(seed=5)
    assert meeting.pending()[0] == "command"  # 0 / 0 rounds: straight to turn 1


def test_chq_27_combined_batteries_add_half_and_may_split_and_smoke_in_the_last_round():
    """CHQ-27: combined batteries add half and may split and smoke in the last round."""
    state = _scenario().new_game(seed=5)
    act(state, "barrage us-bty-1 de-b1")
    assert Barrage("us-bty-2", None, (20, 20), 90) not in state.legal_actions()  # no smoke before the last round
    assert "last Initial Barrage Round" in state.illegal_reason(Barrage("us-bty-2", None, (20, 20), 90))
    act(state, "barrage us-bty-2 de-b1")
    assert state.pending()[1].dice == 4 + 2
    state.apply_action(state.chance_outcomes()[0][0])
    # round 2, the last: smoke is allowed; batteries may also split onto different Blinds
    assert state.barrage.number == 2
    act(state, "barrage us-bty-1 smoke @ 20,14 bearing 90")
    act(state, "barrage us-bty-2 de-b2")
    screens = [m for m in state.missions.values() if m.status == "screen"]
    assert len(screens) == 1 and screens[0].barrage and screens[0].expires_lp == 1


def test_chq_28_artillery_removes_a_dummy_and_reveals_a_real_blind_with_plus_one_reaction():
    """CHQ-28: artillery removes a dummy and reveals a real blind with plus one reaction."""
    state = _scenario().new_game(seed=5)
    act(state, "barrage us-bty-1 de-b2")
    act(state, "barrage us-bty-2 de-b1")
    assert not state.blinds["de-b2"].alive and "de-b2 revealed as a dummy" in state.log
    fire = state.pending()[1]
    assert fire.target == "de-1" and fire.reaction == 4 + 1 and fire.dice == 4
    assert not state.units["de-1"].hidden


def test_chq_28_spotting_and_what_the_enemy_may_know():
    """CHQ-28: spotting and what the enemy may know."""
    state = _scenario("meeting-engagement").new_game(seed=5)
    view = state.observation("us")
    assert {b.id: b.dummy for b in view.enemy_blinds} == {"de-b1": None, "de-b2": None}
    assert "de-1" not in {u.id for u in view.enemy_units}
    assert {b.id: b.dummy for b in state.observation("de").own_blinds} == {"de-b1": False, "de-b2": True}
    pulse(state, chain="chain 4:3")
    act(state, "group us-1")
    assert "beyond us-1's spotting range" in state.illegal_reason(Spot("us-1", "de-b1"))  # 20" > 18"
    state.units["us-1"].pos = (20, 9)
    assert Spot("us-1", "de-b1") in state.legal_actions()
    act(state, "spot us-1 de-b1")  # 16": long range of the rifle's 6/12/18 bands
    assert outcome_map(state)[Check("spotting", True)] == 1 - Fraction(2, 3) ** 2  # 2D at 5+
    state.apply_action(Check("spotting", True))
    assert not state.units["de-1"].hidden and "de-1" in {u.id for u in state.observation("us").enemy_units}


def test_chq_28_a_hidden_unit_that_fires_is_revealed():
    """CHQ-28: a hidden unit that fires is revealed."""
    state = _scenario("meeting-engagement").new_game(seed=5)
    state.units["us-1"].pos = (20, 12)
    pulse(state, us_faces=(2, 2, 3, 3, 5), de_faces=(4, 4, 4, 3, 6), chain="chain 4:3")
    act(state, "group de-b1")
    act(state, "fire de-b1 us-1")
    assert not state.units["de-1"].hidden and not state.blinds["de-b1"].alive
