"""The sight picture a MET state keeps is redrawn only where pieces moved: it must equal the
picture drawn from scratch at every position of a game (MET-15, MET-17 sight through smoke)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.geometry import rectangle
from engine.rulesets.met.sightlines import met_sight
from engine.scenario import load_scenario
from tests.conftest import SCENARIO_FILES

MET_MAPS = [path for path in SCENARIO_FILES if path.name.startswith("met_")]


def _from_scratch(state) -> tuple[list[str], np.ndarray]:
    """The pieces on the table now and the sight among them, drawn in one go."""
    elements = [e for e in state.elements.values() if e.on_table and e.alive]
    dummies = [b for b in state.blinds.values() if b.dummy]
    points = np.array([e.position for e in elements] + [b.position for b in dummies], dtype=float).reshape(-1, 2)
    bases = [e.footprint for e in elements] + [rectangle(b.position, 10.0, 10.0) for b in dummies]
    ids = [e.id for e in elements] + [b.id for b in dummies]
    return ids, met_sight(points, bases, points, bases, state.table.blocking, state.screens_now(), state.rules)


@pytest.mark.parametrize("path", MET_MAPS, ids=lambda p: p.stem)
def test_met_15_17_picture_redrawn_where_pieces_moved_equals_a_fresh_one(path):
    scenario = load_scenario(path)
    rng = np.random.default_rng(7)
    redrawn = 0
    for seed in range(3):
        state = scenario.new_game(seed=seed)
        while not state.is_terminal():
            before = state._picture_cache
            picture = state._picture()
            if before is not None and picture is not before[1] and before[1].rows == picture.rows:
                redrawn += 1
            # a picture keeps the rows of pieces lost since it was drawn: compare the live ones
            ids, fresh = _from_scratch(state)
            rows = [picture.rows[i] for i in ids]
            assert np.array_equal(picture.status[np.ix_(rows, rows)], fresh)
            if state.is_chance_node():
                state.apply_action(state.sample_chance())
            else:
                actions = state.legal_actions()
                state.apply_action(actions[int(rng.integers(len(actions)))])
    assert redrawn > 0  # the partial redraw was exercised, not only full ones
