"""CHQ search hooks: plan_scope, resample_hidden (CHQ-28 blinds), features, describe_actions."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from agent.players import RandomPlayer
from engine.rulesets.chq import artillery as art
from engine.rulesets.chq.actions import Call, Fire
from engine.rulesets.chq.combat import expected_disruption
from engine.rulesets.chq.fire import comms_odds
from engine.rulesets.chq.orders import artillery_fire_on, fire_params
from engine.scenario import load_scenario, parse_scenario

MAPS = Path(__file__).resolve().parents[3] / "maps"
CHQ_MAPS = sorted(p for p in MAPS.glob("chq_*.json"))


def _walk(state, seed, steps):
    """Random play for ``steps`` decisions; yields the state at each decision."""
    player = RandomPlayer(seed)
    done = 0
    while not state.is_terminal() and done < steps:
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
            continue
        yield state
        state.apply_action(player.act(state))
        done += 1


def flipped_blind_barrage() -> tuple:
    """chq_blind_barrage and a copy whose hidden truth differs: de-rifle-1 hides under the Blind
    that was a dummy (de-b3), and its own Blind (de-b1) is the dummy. Same table for gb."""
    data = json.loads((MAPS / "chq_blind_barrage.json").read_text())
    flip = json.loads(json.dumps(data))
    blinds = {b["id"]: b for b in flip["blinds"]}
    rifle = next(u for u in flip["units"] if u["id"] == "de-rifle-1")
    rifle["blind"] = "de-b3"
    rifle["position"] = list(blinds["de-b3"]["position"])
    blinds["de-b3"]["dummy"] = False
    blinds["de-b1"]["dummy"] = True
    return parse_scenario(json.dumps(data)), parse_scenario(json.dumps(flip))


def _signature(state):
    """Everything a world fixes: pieces, hidden truth, dice, morale, the agenda's kinds."""
    units = tuple((u, s.pos, s.hidden, s.disruption, s.suppressed) for u, s in sorted(state.units.items()))
    return (
        units,
        tuple(sorted(state.facts.blind_unit.items())),
        tuple(sorted((b, state.facts.blinds[b].dummy) for b in state.facts.blind_ids)),
        tuple(sorted(state.morale.items())),
        tuple(e.kind for e in state.agenda),
        tuple(str(a) for a in state.legal_actions()),
    )


@pytest.mark.parametrize("path", CHQ_MAPS, ids=lambda p: p.stem)
def test_resample_hidden_keeps_the_observation(path):
    state = load_scenario(path).new_game(seed=4)
    rng = np.random.default_rng(0)
    for k, seen in enumerate(_walk(state, 4, 60)):
        side = seen.current_player()
        world = seen.resample_hidden(side, rng)
        assert world.observation(side) == seen.observation(side)
        assert world.plan_scope(side) == seen.plan_scope(side)
        assert world.current_player() == side
        if k % 20 == 0:  # the world is a playable game
            other = world.clone()
            player = RandomPlayer(k)
            while not other.is_terminal():
                other.apply_action(other.sample_chance() if other.is_chance_node() else player.act(other))


def test_resample_hidden_never_reads_the_dummies():
    """CHQ-28: two games whose only difference is which Blind hides the rifles give gb the same
    worlds, draw for draw; the enemy's own view still differs, so the truths really differ."""
    first, second = (s.new_game(seed=2) for s in flipped_blind_barrage())
    assert first.observation("gb") == second.observation("gb")
    assert first.observation("de") != second.observation("de")
    for seed in range(5):
        a = first.resample_hidden("gb", np.random.default_rng(seed))
        b = second.resample_hidden("gb", np.random.default_rng(seed))
        assert _signature(a) == _signature(b)


def test_resample_hidden_draws_every_consistent_assignment():
    state = load_scenario(MAPS / "chq_blind_barrage.json").new_game(seed=2)
    rng = np.random.default_rng(1)
    placements = set()
    for _ in range(200):
        world = state.resample_hidden("gb", rng)
        live = world.live_blinds("de")
        real = tuple(sorted((b, world.facts.blind_unit[b]) for b in live if not world.facts.blinds[b].dummy))
        assert len(real) == 2  # two hidden units, four Blinds
        for b, u in real:
            assert world.units[u].pos == world.blinds[b].pos and world.units[u].hidden
        placements.add(real)
    assert len(placements) == 12  # 4 x 3 ordered choices of Blinds for the rifles and the PaK


def test_resample_hidden_leaves_the_true_state_alone():
    state = load_scenario(MAPS / "chq_blind_barrage.json").new_game(seed=2)
    before = _signature(state)
    for seed in range(3):
        state.resample_hidden("gb", np.random.default_rng(seed))
    assert _signature(state) == before


def test_plan_scope_is_one_pulse_opportunity_fire_included():
    state = load_scenario(MAPS / "chq_saint_aubin.json").new_game(seed=1)
    scopes = []
    for seen in _walk(state, 1, 150):
        side = seen.current_player()
        scopes.append((side, seen._top().kind, seen.plan_scope(side), seen.pulse.side if seen.pulse else None))
    for side, kind, scope, pulse_side in scopes:
        assert scope is not None
        if kind in ("chain", "pulse"):
            assert scope[0] == "pulse" and scope[2] == side
        if kind == "opfire":
            assert scope[0] == "opfire" and pulse_side != side
    pulses = [s for _, k, s, _ in scopes if k in ("chain", "pulse")]
    assert len(set(pulses)) > 3  # different pulses, different scopes
    for side, kind, scope, _ in scopes:  # every chain opens a pulse scope
        if kind == "chain":
            assert scope == ("pulse",) + scope[1:]


def test_features_are_antisymmetric():
    state = load_scenario(MAPS / "chq_tot_crossroads.json").new_game(seed=3)
    a, b = state.facts.side_ids
    for seen in _walk(state, 3, 80):
        fa, fb = seen.features(a), seen.features(b)
        for key in ("morale", "objectives", "pressure", "risk", "fire"):
            assert fa[key] == pytest.approx(-fb[key])
        assert fa["scale"] == fb["scale"] and 0 <= fa["remaining"] <= 1


def test_describe_fire_is_the_exact_expected_disruption():
    state = load_scenario(MAPS / "chq_smoke_advance.json").new_game(seed=1)
    checked = 0
    for seen in _walk(state, 1, 400):
        actions = seen.legal_actions()
        for action, info in zip(actions, seen.describe_actions(actions)):
            if isinstance(action, Fire):
                fire = fire_params(seen, action.unit, action.target, action.indirect)
                assert info["kind"] == "fire"
                assert info["harm"] == pytest.approx(float(expected_disruption(seen.facts, fire)))
                checked += 1
    assert checked > 0


def test_describe_call_is_the_exact_sum_over_comms_deviation_and_fire():
    """The bulk (vectorised) valuation of a mission equals the plain loop over deviation outcomes."""
    state = load_scenario(MAPS / "chq_saint_aubin.json").new_game(seed=2)
    checked = 0
    for seen in _walk(state, 2, 250):
        actions = seen.legal_actions()
        infos = seen.describe_actions(actions)
        for action, info in zip(actions, infos):
            if not isinstance(action, Call) or info.get("harm", 0) <= 0 or checked >= 40:
                continue
            side = seen.current_player()
            facts = seen.facts
            mission = art.Mission(0, side, action.batteries, "single", action.sheaf, action.at, 0.0, None, "comms", action.at)
            total = Fraction(0)
            for deviation, p in art.deviation_outcomes(facts):
                centre = (action.at[0] + deviation.offset[0], action.at[1] + deviation.offset[1])
                template = art.make_template(facts, centre, action.sheaf)
                for u in facts.unit_ids:
                    unit = seen.units[u]
                    if unit.pos is None or unit.hidden or facts.units[u].side == side or facts.units[u].battery:
                        continue
                    if seen.base(u).intersects(template.polygon):
                        fire = artillery_fire_on(seen, mission, template, u, False)
                        if fire is not None:
                            total += p * expected_disruption(facts, fire)
            exact = float(comms_odds(facts.sides[side].comms_dice, rules=facts.rules) * total)
            assert info["harm"] == pytest.approx(exact, rel=1e-9, abs=1e-12)
            checked += 1
    assert checked >= 10
