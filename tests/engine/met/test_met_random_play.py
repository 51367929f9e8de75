"""Random play over every MET map: exact chance nodes, invariants, screens that end on time, the period limit.

``FIREPLAN_MET_GAMES`` sets the games per map (default 50).
"""

from __future__ import annotations

import os
from fractions import Fraction

import numpy as np
import pytest

from engine.game import CHANCE
from engine.scenario import load_scenario
from tests.conftest import SCENARIO_FILES

MET_MAPS = [path for path in SCENARIO_FILES if path.name.startswith("met_")]
GAMES = int(os.environ.get("FIREPLAN_MET_GAMES", "50"))


def _key(ms):
    return (ms.kind, ms.owner, ms.laid, ms.screen.polygon.bounds)


def _check_screens(state, tracked):
    period, stage = state.period, state.stage
    present = {_key(ms): ms for ms in state.screens}
    for ms in state.screens:
        assert not ms.screen.is_gone
        if ms.until_movement_of is None:
            expected_age = 0 if ms.laid == period else period - ms.laid - 1
            assert ms.screen.age == expected_age, (ms, period)
        tracked.setdefault(_key(ms), ms)
    for key, ms in tracked.items():
        if ms.until_movement_of is None:
            alive = period <= ms.laid + len(ms.screen.densities)
        else:
            owner_stage = state.table.sides.index(ms.until_movement_of)
            alive = period == ms.laid or (period == ms.laid + 1 and stage < owner_stage)
        assert (key in present) == alive, (ms.kind, ms.laid, period, stage)


def _check_state(state, tracked):
    assert 1 <= state.period <= state.periods
    for e in state.elements.values():
        if e.on_table and e.alive:
            x, y = e.position
            assert 0 <= x <= state.table.width and 0 <= y <= state.table.depth, e
    _check_screens(state, tracked)


def play_random_game(path, seed, check=True):
    state = load_scenario(path).new_game(seed=seed)
    rng = np.random.default_rng(seed)
    tracked: dict = {}
    steps = 0
    while not state.is_terminal():
        steps += 1
        assert steps < 20_000
        if check:
            _check_state(state, tracked)
        if state.current_player() == CHANCE:
            outcomes = state.chance_outcomes()
            assert outcomes
            assert all(isinstance(p, Fraction) and p > 0 for _, p in outcomes)
            assert sum(p for _, p in outcomes) == 1
            assert len({o for o, _ in outcomes}) == len(outcomes)
            state.apply_action(state.sample_chance())
        else:
            actions = state.legal_actions()
            assert actions and len(set(actions)) == len(actions)
            action = actions[rng.integers(len(actions))]
            assert state.is_legal(action)
            state.apply_action(action)
    returns = state.returns()
    assert set(returns.values()) <= {-1.0, 0.0, 1.0} and sum(returns.values()) == 0
    assert state.period <= state.periods
    return state, steps


@pytest.mark.parametrize("path", MET_MAPS, ids=[p.stem for p in MET_MAPS])
def test_met_random_play_every_map(path):
    assert len(MET_MAPS) >= 4
    endings = set()
    for seed in range(GAMES):
        state, _ = play_random_game(path, seed)
        endings.add(state.winner())
    assert endings  # games end, with a result


def _played(state, seed: int, steps: int):
    """``state`` after ``steps`` random steps (chance by its own generator), in place."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
        else:
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
    return state


def test_met_random_play_is_reproducible_and_clones_are_independent():
    path = MET_MAPS[0]
    a, _ = play_random_game(path, 11, check=False)
    b, _ = play_random_game(path, 11, check=False)
    assert a.history == b.history
    state = _played(load_scenario(path).new_game(seed=5), seed=5, steps=60)
    copy = state.clone()
    before = (list(copy.history), {k: (e.position, e.status) for k, e in copy.elements.items()})
    while not state.is_terminal():
        state.apply_action(state.sample_chance() if state.is_chance_node() else state.legal_actions()[-1])
    assert (copy.history, {k: (e.position, e.status) for k, e in copy.elements.items()}) == before
    assert not copy.is_terminal()


def test_met_clone_copies_every_element_field_and_the_generator():
    """A clone's elements and blinds are equal field by field and not shared, and its generator
    draws what the original's would (clone builds them without ``copy``: the test holds the
    field list to account)."""
    import dataclasses

    state = _played(load_scenario(MET_MAPS[0]).new_game(seed=5), seed=3, steps=80)
    twin = state.clone()
    for records, copies in ((state.elements, twin.elements), (state.blinds, twin.blinds)):
        for key, record in records.items():
            copied = copies[key]
            assert copied is not record
            assert all(getattr(copied, f.name) == getattr(record, f.name) for f in dataclasses.fields(record))
    assert twin.rng is not state.rng
    assert twin.rng.random(5).tolist() == state.rng.random(5).tolist()
