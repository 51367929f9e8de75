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


@pytest.mark.parametrize("path", MET_MAPS, ids=lambda p: p.stem)
def test_met_15_17_sight_is_the_same_both_ways(path):
    """Who sees is seen: the picture's columns of a moved piece are its rows turned over. Checked
    among points in the open, in woods and buildings and inside and at the edges of the screens
    of a game played on, with bases of every size on the map."""
    scenario = load_scenario(path)
    rng = np.random.default_rng(11)
    state = scenario.new_game(seed=5)
    while not state.is_terminal() and not state.screens_now():
        state.apply_action(state.sample_chance() if state.is_chance_node()
                           else state.legal_actions()[int(rng.integers(len(state.legal_actions())))])
    screens = state.screens_now()
    near = [np.asarray(s.polygon.centroid.coords[0]) for s in screens]
    near += [np.asarray(p.representative_point().coords[0]) for p in state.table.blocking]
    points = [c + rng.normal(0, 40, 2) for c in near for _ in range(6)] + list(rng.uniform(0, 1000, (40, 2)))
    sizes = sorted({tuple(np.round(e.footprint.bounds, 6)) for e in state.elements.values() if e.on_table}, key=str)
    widths = [(b[2] - b[0], b[3] - b[1]) for b in sizes] or [(10.0, 10.0)]
    bases = [rectangle(tuple(p), *widths[i % len(widths)]) for i, p in enumerate(points)]
    sight = met_sight(np.array(points), bases, np.array(points), bases, state.table.blocking, screens, state.rules)
    assert len(screens) > 0 and (sight > 0).any()
    assert np.array_equal(sight, sight.T)
