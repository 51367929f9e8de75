"""Every CHQ map played to the end 50 times with random legal actions (CHQ-1 to CHQ-31 together).

At every chance node the outcomes are exact Fractions summing to 1; after
every action no unit is off the table, no dice pool or Staff Order count is
negative, and no smoke screen outlives its end (CHQ-23: gone at the start of
its caller's next Logistics Phase).
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from engine.scenario import load_scenario
from tests.conftest import SCENARIO_FILES

CHQ_MAPS = [path for path in SCENARIO_FILES if path.name.startswith("chq_")]
GAMES = 50


def test_there_are_at_least_four_chq_maps():
    names = {path.stem for path in CHQ_MAPS}
    assert {"chq_saint_aubin", "chq_blind_barrage", "chq_smoke_advance", "chq_tot_crossroads"} <= names


def _check_invariants(state):
    facts = state.facts
    for uid, unit in state.units.items():
        if unit.pos is not None:
            assert facts.on_table(unit.pos), f"{uid} off the table at {unit.pos}"
        assert unit.disruption >= 0
    for blind, mark in state.blinds.items():
        assert facts.on_table(mark.pos), blind
    for side, pool in state.dice.items():
        assert pool.wild >= 0 and min(pool.faces.values()) >= 0, (side, pool)
        assert state.staff[side] >= 0 and state.staff_next[side] >= 0
        assert state.staff[side] <= facts.sides[side].command_dice
    if state.pulse is not None:
        assert state.pulse.dice_left >= 0
    for mission in state.missions.values():
        if mission.status == "screen":
            assert mission.expires_lp > state.lp_count[mission.side], f"a screen outlived its life: {mission}"


@pytest.mark.parametrize("path", CHQ_MAPS, ids=[p.stem for p in CHQ_MAPS])
def test_chq_random_play_to_the_end(path):
    scenario = load_scenario(path)
    kinds = set()
    for game in range(GAMES):
        state = scenario.new_game(seed=game)
        chooser = random.Random(1000 + game)
        for _ in range(20_000):
            if state.is_terminal():
                break
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert all(isinstance(p, Fraction) and p > 0 for _, p in outcomes)
                assert sum(p for _, p in outcomes) == 1
                assert len({o for o, _ in outcomes}) == len(outcomes)
                kinds.add(state.pending()[0])
                action = state.sample_chance()
            else:
                actions = state.legal_actions()
                assert actions and len(actions) == len(set(actions))
                action = chooser.choice(actions)
            state.apply_action(action)
            _check_invariants(state)
        else:
            pytest.fail(f"{path.stem} game {game} did not end")
        returns = state.returns()
        assert sorted(returns.values()) in ([-1.0, 1.0], [0.0, 0.0])
        assert state.turn <= scenario.turns
    assert {"command", "fire", "move"} <= kinds
