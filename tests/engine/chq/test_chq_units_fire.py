"""CHQ-1 to CHQ-9: cards, fire, suppression, forced back, cover, direct and indirect fire."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from engine.errors import IllegalActionError
from engine.rulesets import load_ruleset
from engine.rulesets.chq.actions import Fire
from engine.rulesets.chq.fire import FireResult, fire_outcomes

from .helpers import act, feature, outcome_map, pulse, rect, scenario, unit

RIFLE_US, RIFLE_DE = "US Rifle Platoon", "German Rifle Platoon"


def _duel(de_pos=(20, 10), de_card=RIFLE_DE, terrain=(), us_card=RIFLE_US, us_pos=(20, 5), de_facing=180, extra=()):
    sc = scenario([unit("us-1", us_card, "us", us_pos), unit("de-1", de_card, "de", de_pos, de_facing), *extra], terrain=terrain)
    state = pulse(sc.new_game(seed=1), chain="chain 4:3")
    act(state, "group us-1")
    return state


def _declare(state, text):
    act(state, text)
    if state.current_player() == "de":  # the target side's opportunity-fire window
        act(state, "pass")
    kind, fire = state.pending()
    assert kind == "fire"
    return fire


def test_chq_2_seed_cards_exactly():
    """CHQ-2: seed cards exactly."""
    cards = load_ruleset("chq").cards
    m4 = cards["USA M4 105mm"]
    assert (m4["type"], m4["move"], m4["reliability"], m4["reaction"]) == ("Medium AFV (Close Support)", "Average", "Good", 5)
    assert (m4["weapon"], tuple(m4["direct"]["ranges"]), m4["direct"]["fp"], m4["direct"]["at"]) == ("105L23 howitzer", (9, 18, 36), 7, 3)
    assert (m4["indirect"]["min_range"], m4["indirect"]["max_range"], m4["indirect"]["fp"], m4["indirect"]["at"]) == (9, 72, 4, 2)
    assert m4["high_suppression"] is True
    mortar = cards["German 8cm Mortar"]
    assert (mortar["type"], mortar["move"], mortar["weapon"]) == ("Heavy Infantry Weapon", "Slow", "Medium Mortar")
    assert (mortar["indirect"]["min_range"], mortar["indirect"]["max_range"], mortar["indirect"]["fp"], mortar["indirect"]["at"]) == (3, 30, 4, 0)
    assert "direct" not in mortar and mortar["high_suppression"] is True
    for name in ("US Rifle Platoon", "US M4 Sherman Platoon", "German PaK 40 AT Gun", "British 25pdr Battery", "US 105mm Battery", "German 10.5cm Battery"):
        assert cards[name]["source"] == "house"


def test_chq_1_mortar_has_no_direct_fire_but_close_support_vehicle_has_both():
    """CHQ-1: mortar has no direct fire but close support vehicle has both."""
    state = _duel(us_card="USA M4 105mm", us_pos=(20, 5), de_pos=(20, 20))
    assert state.is_legal(Fire("us-1", "de-1")) and state.is_legal(Fire("us-1", "de-1", indirect=True))
    sc = scenario([unit("us-1", RIFLE_US, "us", (20, 5)), unit("de-m", "German 8cm Mortar", "de", (20, 20))])
    state = pulse(sc.new_game(seed=1), us_faces=(2, 2, 3, 3, 5), de_faces=(4, 4, 4, 3, 6), chain="chain 4:3")
    act(state, "group de-m")
    reason = state.illegal_reason(Fire("de-m", "us-1"))
    assert "no direct fire" in reason and "indirectly" in reason
    assert state.is_legal(Fire("de-m", "us-1", indirect=True))


def test_chq_3_fire_rolls_fp_then_reaction_and_net_successes_disrupt():
    """CHQ-3: fire rolls fp then reaction and net successes disrupt."""
    state = _duel()
    fire = _declare(state, "fire us-1 de-1")
    assert (fire.dice, fire.tn, fire.reaction, fire.reaction_tn) == (5, 3, 4, 4)  # 5" is close range: 3+
    odds = outcome_map(state)
    # five successes at 3+ (4/6 each) and no Reaction success at 4+ (1/2 each): (2/3)^5 (1/2)^4
    assert sum(p for r, p in odds.items() if r.disruption == 5) == Fraction(32, 243) * Fraction(1, 16)
    # a complete miss forces no Reaction Check: (1/3)^5 of the time nothing happens (and more)
    assert odds[FireResult(0, False, 0)] >= Fraction(1, 243)


def test_chq_3_at_dice_against_armoured_targets():
    """CHQ-3: at dice against armoured targets."""
    state = _duel(de_card="German Panther Platoon", de_pos=(20, 12))
    fire = _declare(state, "fire us-1 de-1")
    assert fire.dice == 1 and fire.reaction == 6  # AT 1D against a Panther's 6 Reaction dice


def test_chq_4_sixes_suppress_unless_matched_and_suppressed_targets_react_at_5():
    """CHQ-4: sixes suppress unless matched and suppressed targets react at 5."""
    # a PaK 40 (FP 2D, not High Suppression) at long range 5+ on a mortar (Reaction 3D)
    sc = scenario([unit("us-1", "German PaK 40 AT Gun", "us", (20, 5)), unit("de-1", "German 8cm Mortar", "de", (20, 45 - 10), 180)], depth=48)
    state = pulse(sc.new_game(seed=1), chain="chain 4:3")
    act(state, "group us-1")
    fire = _declare(state, "fire us-1 de-1")
    assert (fire.dice, fire.tn, fire.reaction) == (2, 5, 3)
    odds = outcome_map(state)
    p_supp = sum(p for r, p in odds.items() if r.suppressed)
    x1, x2 = Fraction(10, 36), Fraction(1, 36)  # one six, two sixes of two dice
    y0, y01 = Fraction(125, 216), Fraction(200, 216)  # Reaction sixes: none, at most one
    assert p_supp == x1 * y0 + x2 * y01
    state.apply_action(FireResult(0, True, 0))
    assert state.units["de-1"].suppressed
    from engine.rulesets.chq.orders import fire_params

    assert fire_params(state, "us-1", "de-1").reaction_tn == 5


def _multinomial(n, tn):
    """P(successes = s, sixes = x) for n dice at tn, by hand: three classes of faces."""
    out = {}
    for x in range(n + 1):
        for plain in range(n - x + 1):
            miss = n - x - plain
            out[(x + plain, x)] = Fraction(comb(n, x) * comb(n - x, plain) * (6 - tn) ** plain * (tn - 1) ** miss, 6**n)
    return out


def test_chq_5_high_suppression_ties_suppress():
    """CHQ-5: high suppression ties suppress."""
    sc = scenario([unit("us-1", "USA M4 105mm", "us", (20, 5)), unit("de-1", RIFLE_DE, "de", (20, 20), 180)])
    state = pulse(sc.new_game(seed=1), chain="chain 4:3")
    act(state, "group us-1")
    fire = _declare(state, "fire us-1 de-1 indirect")
    assert fire.high_suppression and (fire.dice, fire.tn, fire.reaction) == (4, 4, 4)
    fire_dist, react = _multinomial(4, 4), _multinomial(4, 4)
    expected = sum(
        p * q for (s, x), p in fire_dist.items() if s >= 1 for (r, y), q in react.items() if y <= x
    )
    assert sum(p for r, p in outcome_map(state).items() if r.suppressed) == expected


def test_chq_6_forced_back_toward_own_edge_and_dispersal():
    """CHQ-6: forced back toward own edge and dispersal."""
    state = _duel()
    _declare(state, "fire us-1 de-1")
    state.apply_action(FireResult(1, False, 6))
    assert state.units["de-1"].pos == (20.0, 16.0)  # German edge is north: 6" up
    assert state.units["de-1"].disruption == 1
    state.units["de-1"].disruption = 2
    # another fire that brings it to its Cohesion of 3 disperses it and costs D3 Morale Points
    state.pulse.fired.clear()
    morale = state.morale["de"]
    _declare(state, "fire us-1 de-1")
    state.apply_action(FireResult(1, False, 6))
    assert state.units["de-1"].pos is None and state.units["de-1"].dispersed
    kind, side = state.pending()
    assert kind == "d3_morale" and side == "de"
    assert outcome_map(state) == {o: Fraction(1, 3) for o in outcome_map(state)} and len(outcome_map(state)) == 3
    state.apply_action(state.chance_outcomes()[1][0])
    assert state.morale["de"] == morale - 2


def test_chq_7_cover_adds_reaction_dice_and_indirect_ignores_light():
    """CHQ-7: cover adds reaction dice and indirect ignores light."""
    terrain = [feature("wood", "woods", rect(15, 18, 25, 24), True, "medium"), feature("field", "field", rect(30, 26, 46, 34), False, "light")]
    state = _duel(de_pos=(20, 18.5), terrain=terrain, us_card="USA M4 105mm")
    from engine.rulesets.chq.orders import fire_params

    assert fire_params(state, "us-1", "de-1").reaction == 4 + 2  # medium cover +2D
    state.units["de-1"].pos = (38, 30)
    state.units["de-1"].hidden = False
    assert fire_params(state, "us-1", "de-1", indirect=True).reaction == 4  # light cover ignored by indirect fire
    assert fire_params(state, "us-1", "de-1").reaction == 5


def test_chq_8_range_bands_flank_and_double_move_penalty():
    """CHQ-8: range bands flank and double move penalty."""
    from engine.rulesets.chq.orders import fire_params

    state = _duel(de_pos=(20, 16))  # 11": effective 4+
    assert fire_params(state, "us-1", "de-1").tn == 4
    state.units["de-1"].pos = (20, 22)  # 17": long 5+
    assert fire_params(state, "us-1", "de-1").tn == 5
    state.units["de-1"].pos = (20, 24)  # 19": beyond long
    assert "beyond" in fire_params(state, "us-1", "de-1")
    state.units["de-1"].pos = (20, 16)
    state.units["de-1"].facing = 0.0  # facing away: a rear shot
    assert fire_params(state, "us-1", "de-1").tn == 3
    state.pulse.folds["us-1"] = 2
    assert fire_params(state, "us-1", "de-1").dice == 5 - 1
    state.pulse.folds["us-1"] = 3
    assert fire_params(state, "us-1", "de-1").dice == 5 - 2


def test_chq_9_minimum_ranges_mortar_and_close_support():
    """CHQ-9: minimum ranges mortar and close support."""
    sc = scenario([unit("us-1", "USA M4 105mm", "us", (20, 5)), unit("de-1", RIFLE_DE, "de", (20, 12), 180), unit("de-m", "German 8cm Mortar", "de", (30, 7), 180)])
    state = pulse(sc.new_game(seed=1), chain="chain 4:3")
    act(state, "group us-1")
    reason = state.illegal_reason(Fire("us-1", "de-1", indirect=True))
    assert "inside" in reason and "minimum" in reason and "directly" in reason
    assert state.is_legal(Fire("us-1", "de-1"))
    with pytest.raises(IllegalActionError, match="minimum"):
        state.apply_action(Fire("us-1", "de-1", indirect=True))
    from engine.rulesets.chq.orders import fire_params

    state.units["de-m"].pos = (21, 6)  # 1.4" away: inside the mortar's 3" minimum
    message = fire_params(state, "de-m", "us-1", indirect=True)
    assert "mortar" in message and "cannot fire at all" in message
    state.units["de-m"].pos = (20, 40)  # 35": beyond its 30" maximum
    assert "maximum" in fire_params(state, "de-m", "us-1", indirect=True)
