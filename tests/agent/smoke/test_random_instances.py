"""Seeded random smoke instances shared by the solver tests, and checks that they vary enough.

``random_instance(seed)`` lays 3-10 candidate options (one or two screens per tick, partial or full,
starting now or a tick late, lasting one or two ticks, deviating or not) and 5-40 sight lines
(ticks 0-2, some of them our own fire lanes, CHQ-like ``(v, v)`` or MET-like ``(v_partial,
v_full)`` values) on a small 20" x 20" table, so that screens and lines overlap a lot, with a
budget of batteries, Staff Orders and single-use items, and 1-3 deviation scenarios.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from agent.smoke import Budget, SightLine, build_coverage
from engine.geometry import Density, Screen, rectangle
from engine.options import SmokeOption

TABLE = 20.0
BATTERIES = ("bty-a", "bty-b", "bty-c")
N_INSTANCES = 120


def random_instance(seed: int, n_options: tuple[int, int] = (3, 10), n_lines: tuple[int, int] = (5, 40)):
    """``(options, lines, budget, scenarios)``; the same seed always gives the same instance."""
    rng = np.random.default_rng(seed)
    options = []
    for k in range(int(rng.integers(n_options[0], n_options[1] + 1))):
        centre = rng.uniform(2.0, TABLE - 2.0, 2)
        bearing = float(rng.uniform(0.0, 180.0))
        width, depth = float(rng.uniform(3.0, 9.0)), float(rng.uniform(0.5, 1.5))
        delay = int(rng.random() < 0.3)
        life = int(rng.integers(1, 3))
        schedule = tuple(Density.FULL if rng.random() < 0.6 else Density.PARTIAL for _ in range(life))
        shapes = [rectangle(tuple(centre), width=width, depth=depth, bearing=bearing)]
        if rng.random() < 0.25:  # a second screen, e.g. a wider sheaf
            shapes.append(rectangle(tuple(centre + rng.uniform(-3, 3, 2)), width=width, depth=depth, bearing=bearing + 40))
        screens = [Screen(shape, schedule) for shape in shapes]
        per_tick = tuple(() for _ in range(delay)) + tuple(tuple(s.aged(a) for s in screens) for a in range(life))
        resources = []
        kind = rng.random()
        if kind < 0.7:
            resources += [(BATTERIES[int(rng.integers(len(BATTERIES)))], 1), ("staff_orders", 1)]
        elif kind < 0.9:
            resources.append((f"grenades:sec-{int(rng.integers(2))}", 1))
        # else: free (e.g. a burning building's smoke the plan only has to choose to count)
        deviation = (((0.0, 0.0), 1.0),)
        if rng.random() < 0.5:
            n = int(rng.integers(2, 4))
            p = rng.dirichlet(np.ones(n))
            deviation = tuple(((float(dx), float(dy)), float(q)) for (dx, dy), q in zip(rng.uniform(-2.5, 2.5, (n, 2)), p))
            deviation = deviation[:-1] + ((deviation[-1][0], max(0.0, 1.0 - sum(q for _, q in deviation[:-1]))),)
        options.append(
            SmokeOption(
                actions=(("smoke", k),),
                screens=per_tick,
                resources=tuple(resources),
                deviation=deviation,
                label=f"option {k} at ({centre[0]:.0f}, {centre[1]:.0f})",
            )
        )
    lines = []
    for i in range(int(rng.integers(n_lines[0], n_lines[1] + 1))):
        a, b = rng.uniform(0.0, TABLE, 2), rng.uniform(0.0, TABLE, 2)
        v = float(rng.uniform(0.05, 1.0))
        values = (v, v) if rng.random() < 0.5 else (float(v * rng.uniform(0.0, 1.0)), v)
        own = bool(rng.random() < 0.2)
        lines.append(SightLine(tuple(a), tuple(b), int(rng.integers(0, 3)), values, own, f"o{i}", f"t{i}"))
    capacities = {name: 1 for name in BATTERIES}
    capacities["staff_orders"] = int(rng.integers(1, 4))
    capacities.update({f"grenades:sec-{j}": 1 for j in range(2)})
    fire = {name: float(rng.uniform(0.0, 0.6)) for name in BATTERIES} if rng.random() < 0.5 else {}
    max_options = None if rng.random() < 0.6 else int(rng.integers(1, 5))
    budget = Budget(
        capacities,
        max_options=max_options,
        battery_fire_value=fire,
        own_lane_penalty=float(rng.uniform(0.0, 2.0)),
    )
    return options, lines, budget, int(rng.integers(1, 4))


def random_coverage(seed: int, **sizes):
    options, lines, budget, scenarios = random_instance(seed, **sizes)
    return build_coverage(options, lines, scenarios=scenarios, seed=seed), budget


def test_random_instances_are_reproducible():
    first, again = random_instance(7), random_instance(7)
    assert first[0] == again[0] and first[1] == again[1] and first[2:] == again[2:]
    other = random_instance(8)
    assert first[1] != other[1]


def test_random_instances_cover_what_the_solver_tests_need():
    """Sizes, grades, ticks, own lanes, shared batteries, scenarios and deviation all vary."""
    seen: Counter = Counter()
    for seed in range(N_INSTANCES):
        coverage, budget = random_coverage(seed)
        assert 3 <= coverage.n_options <= 10 and 5 <= coverage.n_lines <= 40
        seen["scenarios", coverage.n_scenarios] += 1
        seen["grade 1"] += int((coverage.grade == 1).any())
        seen["grade 2"] += int((coverage.grade == 2).any())
        seen["tick 1+ covered"] += int((coverage.tick[coverage.line] > 0).any())
        seen["own covered"] += int(coverage.own[coverage.line].any())
        seen["deviated"] += int(np.any(coverage.offsets != 0.0))
        seen["max options"] += int(budget.max_options is not None)
        seen["fire value"] += int(bool(budget.battery_fire_value))
        batteries = Counter(name for o in coverage.options for name, _ in o.resources if name.startswith("bty"))
        seen["shared battery"] += int(any(n > 1 for n in batteries.values()))
    for s in (1, 2, 3):
        assert seen["scenarios", s] >= 20
    for key in ("grade 1", "grade 2", "tick 1+ covered", "own covered", "deviated", "max options", "fire value", "shared battery"):
        assert seen[key] >= 20, (key, seen[key])
