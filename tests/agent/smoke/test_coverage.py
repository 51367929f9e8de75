"""build_coverage: the bulk kernel's rows against a direct shapely check, pair by pair.

The reference shifts each screen with ``shapely.affinity.translate`` by the offset the coverage
drew, and asks ``LineString.intersects`` for every (option, scenario, line, screen), taking the
densest screen; it must give exactly the coverage's rows.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from shapely.affinity import translate
from shapely.geometry import LineString, Point

import agent.smoke.coverage as coverage_module
from agent.smoke import GRADE_FULL, GRADE_PARTIAL, SightLine, build_coverage
from engine.errors import FireplanError
from engine.geometry import Density, Screen, rectangle
from engine.options import SmokeOption

from .test_random_instances import random_instance

GRADE = {Density.PARTIAL: GRADE_PARTIAL, Density.FULL: GRADE_FULL}


def reference_rows(coverage) -> set[tuple[int, int, int, int]]:
    rows = set()
    for c, option in enumerate(coverage.options):
        for s in range(coverage.n_scenarios):
            dx, dy = coverage.offsets[c, s]
            for l, line in enumerate(coverage.lines):
                if line.tick >= len(option.screens):
                    continue
                segment = Point(line.observer) if line.observer == line.target else LineString([line.observer, line.target])
                best = 0
                for screen in option.screens[line.tick]:
                    if screen.density is not None and segment.intersects(translate(screen.polygon, dx, dy)):
                        best = max(best, GRADE[screen.density])
                if best:
                    rows.add((c, s, l, best))
    return rows


def rows_of(coverage) -> set[tuple[int, int, int, int]]:
    rows = set(zip(coverage.option.tolist(), coverage.scenario.tolist(), coverage.line.tolist(), coverage.grade.tolist()))
    assert len(rows) == len(coverage), "duplicate (option, scenario, line) rows"
    return rows


@pytest.mark.parametrize("seed", range(25))
def test_coverage_matches_a_direct_shapely_check(seed):
    options, lines, _, scenarios = random_instance(seed)
    coverage = build_coverage(options, lines, scenarios=scenarios, seed=seed)
    assert rows_of(coverage) == reference_rows(coverage)
    # sorted by option, scenario, line; starts index each option's rows
    key = (coverage.option.astype(np.int64) * coverage.n_scenarios + coverage.scenario) * coverage.n_lines + coverage.line
    assert np.all(np.diff(key) > 0)
    for c in range(coverage.n_options):
        assert np.all(coverage.rows(c)[0] == coverage.scenario[coverage.option == c])


@pytest.mark.parametrize("seed", range(5))
def test_sparse_line_sets_are_chunked_and_still_right(seed, monkeypatch):
    """Lines that are a sparse subset of the observer x target grid go to the kernel in chunks."""
    monkeypatch.setattr(coverage_module, "_GRID_FACTOR", 1)
    monkeypatch.setattr(coverage_module, "_GRID_FREE", 4)
    options, lines, _, scenarios = random_instance(seed)
    chunks = coverage_module._observer_chunks(
        np.arange(len(lines)), np.arange(len(lines)), len(lines)
    )
    assert len(chunks) > 1  # every line has its own observer and target: a diagonal of the grid
    coverage = build_coverage(options, lines, scenarios=scenarios, seed=seed)
    assert rows_of(coverage) == reference_rows(coverage)


def test_shared_end_points_and_duplicate_lines():
    """Observers and targets shared by many lines, and a line given twice, each get their rows."""
    wall = Screen(rectangle((5, 0), width=6, depth=1, bearing=90), (Density.PARTIAL, Density.FULL))
    option = SmokeOption(("smoke",), ((wall,), (wall.aged(1),)))
    lines = [SightLine((0, y), (10, 0), t, 1.0) for t in (0, 1) for y in (-2, 0, 2, 9)]
    lines.append(SightLine((0, 0), (10, 0), 1, 1.0))  # the same segment as lines[5]
    coverage = build_coverage([option], lines)
    got = {(l, g) for l, g in zip(coverage.line.tolist(), coverage.grade.tolist())}
    assert got == {(0, 1), (1, 1), (2, 1), (4, 2), (5, 2), (6, 2), (8, 2)}


def test_grade_is_the_densest_screen_and_dispersed_screens_do_not_count():
    partial = Screen(rectangle((5, 0), width=6, depth=1, bearing=90), (Density.PARTIAL,))
    full = Screen(rectangle((7, 0), width=6, depth=1, bearing=90), (Density.FULL,))
    gone = Screen(rectangle((3, 0), width=6, depth=1, bearing=90), (Density.FULL,), age=1)
    options = [
        SmokeOption(("both",), ((partial, full),)),
        SmokeOption(("partial",), ((partial,),)),
        SmokeOption(("gone",), ((gone,),)),
        SmokeOption(("late",), ((), (full,))),
    ]
    lines = [SightLine((0, 0), (10, 0), 0, (0.5, 1.0)), SightLine((0, 0), (10, 0), 1, (0.5, 1.0))]
    coverage = build_coverage(options, lines)
    assert rows_of(coverage) == {(0, 0, 0, 2), (1, 0, 0, 1), (3, 0, 1, 2)}


def test_one_scenario_is_as_aimed_and_more_are_drawn_from_the_deviation():
    outcomes = (((0.0, 0.0), 0.5), ((3.0, 0.0), 0.3), ((0.0, -3.0), 0.2), ((9.0, 9.0), 0.0))
    screen = Screen(rectangle((5, 0), width=2, depth=1, bearing=90), (Density.FULL,))
    option = SmokeOption(("smoke",), ((screen,),), deviation=outcomes)
    line = SightLine((0, 0), (10, 0), 0, 1.0)
    aimed = build_coverage([option], [line])
    assert aimed.n_scenarios == 1 and np.all(aimed.offsets == 0.0) and aimed.outcome.tolist() == [[-1]]
    many = build_coverage([option] * 2, [line], scenarios=4000, seed=3)
    counts = Counter(many.outcome.ravel().tolist())
    assert 3 not in counts  # probability 0 is never drawn
    for k, p in enumerate((0.5, 0.3, 0.2)):
        assert abs(counts[k] / 8000 - p) < 0.03
    assert np.all(many.offsets == np.array([d for d, _ in outcomes])[many.outcome])
    # the options are drawn independently of each other, and the same seed draws the same offsets
    assert not np.array_equal(many.outcome[0], many.outcome[1])
    again = build_coverage([option] * 2, [line], scenarios=4000, seed=3)
    assert np.array_equal(again.outcome, many.outcome)
    assert not np.array_equal(build_coverage([option] * 2, [line], scenarios=4000, seed=4).outcome, many.outcome)


def test_a_deviated_screen_misses_the_line_it_was_aimed_at():
    screen = Screen(rectangle((5, 0), width=2, depth=1, bearing=90), (Density.FULL,))
    option = SmokeOption(("smoke",), ((screen,),), deviation=(((0.0, 0.0), 0.5), ((0.0, 5.0), 0.5)))
    coverage = build_coverage([option], [SightLine((0, 0), (10, 0), 0, 1.0)], scenarios=200, seed=1)
    covered = np.zeros(200, dtype=bool)
    covered[coverage.scenario] = True
    assert np.array_equal(covered, coverage.outcome[0] == 0)


def test_many_options_and_lines_build_quickly():
    """2,000 options x 6,000 lines (a third of the benchmark) in well under a few seconds."""
    import time

    rng = np.random.default_rng(0)
    observers = rng.uniform((0, 30), (72, 46), (30, 2))
    targets = rng.uniform((0, 2), (72, 14), (200, 2))
    lines = [SightLine(tuple(o), tuple(t), 0, 0.1) for o in observers for t in targets]
    options = [
        SmokeOption((k,), ((Screen(rectangle(tuple(c), width=12, depth=1, bearing=float(b)), (Density.FULL,)),),))
        for k, (c, b) in enumerate(zip(rng.uniform((0, 0), (72, 48), (2000, 2)), rng.uniform(0, 180, 2000)))
    ]
    start = time.perf_counter()
    coverage = build_coverage(options, lines)
    assert time.perf_counter() - start < 10.0
    sample = rng.choice(len(lines), 200, replace=False)
    for l in sample.tolist():
        line = LineString([lines[l].observer, lines[l].target])
        expected = {c for c, o in enumerate(options) if line.intersects(o.screens[0][0].polygon)}
        assert set(coverage.option[coverage.line == l].tolist()) == expected


def test_bad_inputs_are_one_clear_error():
    screen = Screen(rectangle((5, 0), width=2, depth=1), (Density.FULL,))
    with pytest.raises(FireplanError, match="at_partial <= at_full"):
        SightLine((0, 0), (1, 1), 0, (2.0, 1.0))
    with pytest.raises(FireplanError, match="tick"):
        SightLine((0, 0), (1, 1), -1, 1.0)
    with pytest.raises(FireplanError, match="observer"):
        SightLine((0, math.nan), (1, 1), 0, 1.0)
    with pytest.raises(FireplanError, match="sum to"):
        build_coverage([SmokeOption(("x",), ((screen,),), deviation=(((0.0, 0.0), 0.7),))], [])
    with pytest.raises(FireplanError, match="SightLine"):
        build_coverage([], [((0, 0), (1, 1))])
    with pytest.raises(FireplanError, match="scenarios"):
        build_coverage([], [], scenarios=0)
    assert SightLine((0, 0), (1, 1), 0, 0.5).values == (0.5, 0.5)


def test_empty_inputs_give_an_empty_coverage():
    from agent.smoke import Budget, solve_cpsat, solve_greedy

    empty = build_coverage([], [])
    assert len(empty) == 0 and empty.n_options == 0 and empty.n_lines == 0
    assert solve_cpsat(empty, Budget()).indices == () and solve_greedy(empty, Budget()).objective == 0.0
    screen = Screen(rectangle((5, 0), width=2, depth=1), (Density.FULL,))
    no_lines = build_coverage([SmokeOption(("x",), ((screen,),))], [], scenarios=3)
    assert no_lines.offsets.shape == (1, 3, 2) and len(no_lines) == 0
    point = build_coverage([SmokeOption(("x",), ((screen,),))], [SightLine((5, 0), (5, 0), 0, 1.0)])
    assert point.line.tolist() == [0]  # a line from a point to itself is that point: inside the screen
