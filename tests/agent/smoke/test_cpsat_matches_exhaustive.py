"""CP-SAT against the exhaustive baseline on random small instances, and against greedy.

The exhaustive method tries every subset, so it is the reference optimum. CP-SAT must reach the
same objective (within 1e-9 relative) and prove it, with the preprocessing on (the default),
off (the plain model), and with the recursive bound, local search and rounds forced on even for
these small cases (the code paths the 2,000-option benchmark relies on). It must never be worse
than greedy, and every plan must fit its budget.
"""

from __future__ import annotations

import numpy as np
import pytest

import agent.smoke.cpsat as cpsat_module
from agent.smoke import solve_cpsat, solve_exhaustive, solve_greedy
from agent.smoke.plan import _problem

from .test_random_instances import N_INSTANCES, random_coverage

TOLERANCE = 1e-9


def same(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


def fits(plan, coverage, budget) -> bool:
    return _problem(coverage, budget).fits(plan.indices)


@pytest.mark.parametrize("seed", range(N_INSTANCES))
def test_cpsat_equals_exhaustive(seed):
    coverage, budget = random_coverage(seed)
    best = solve_exhaustive(coverage, budget)
    plan = solve_cpsat(coverage, budget, time_limit=10.0)
    assert plan.status == "OPTIMAL"
    assert same(plan.objective, best.objective), (plan.indices, plan.objective, best.indices, best.objective)
    assert fits(plan, coverage, budget)
    greedy = solve_greedy(coverage, budget)
    assert plan.objective >= greedy.objective - TOLERANCE * max(1.0, abs(greedy.objective))
    assert fits(greedy, coverage, budget)
    assert plan.gap == 0.0 and same(plan.bound, plan.objective)


@pytest.mark.parametrize("seed", range(0, N_INSTANCES, 3))
def test_plain_model_equals_exhaustive(seed):
    """Without any reduction, the model itself is right."""
    coverage, budget = random_coverage(seed)
    best = solve_exhaustive(coverage, budget)
    plan = solve_cpsat(coverage, budget, time_limit=10.0, prune=False)
    assert plan.status == "OPTIMAL"
    assert same(plan.objective, best.objective)


@pytest.mark.parametrize("seed", range(1, N_INSTANCES, 3))
def test_recursive_bounds_keep_the_optimum(seed, monkeypatch):
    """The recursion, the pairwise bounds and the local search, forced on small instances."""
    monkeypatch.setattr(cpsat_module, "_RECURSE_ABOVE", 0)
    monkeypatch.setattr(cpsat_module, "_SEARCH_WIDTH", 2)
    coverage, budget = random_coverage(seed)
    best = solve_exhaustive(coverage, budget)
    plan = solve_cpsat(coverage, budget, time_limit=10.0)
    assert plan.status == "OPTIMAL"
    assert same(plan.objective, best.objective)


@pytest.mark.parametrize("seed", range(2, N_INSTANCES, 6))
def test_several_rounds_keep_the_optimum(seed, monkeypatch):
    """Rounds that re-prune with CP-SAT's own plans: start from an empty plan and no search."""
    monkeypatch.setattr(cpsat_module, "_greedy_choice", lambda problem: ())
    monkeypatch.setattr(cpsat_module, "_STARTS", 0)
    monkeypatch.setattr(cpsat_module, "_SEARCH_WIDTH", 0)
    coverage, budget = random_coverage(seed, n_options=(8, 12), n_lines=(30, 60))
    best = solve_exhaustive(coverage, budget)
    plan = solve_cpsat(coverage, budget, time_limit=10.0)
    assert same(plan.objective, best.objective)


@pytest.mark.parametrize("seed", range(6))
def test_cpsat_never_worse_than_greedy_on_larger_instances(seed):
    coverage, budget = random_coverage(1000 + seed, n_options=(60, 120), n_lines=(150, 400))
    greedy = solve_greedy(coverage, budget)
    plan = solve_cpsat(coverage, budget, time_limit=3.0)
    assert plan.status in ("OPTIMAL", "FEASIBLE")
    assert plan.objective >= greedy.objective - TOLERANCE * max(1.0, abs(greedy.objective))
    assert fits(plan, coverage, budget)
    assert plan.bound is not None and plan.bound >= plan.objective - 1e-6 * max(1.0, abs(plan.objective))
    assert plan.solve_time < 3.0 + 2.0  # the time limit holds, give or take the last steps


def test_exhaustive_refuses_big_instances():
    coverage, budget = random_coverage(3, n_options=(30, 30), n_lines=(10, 10))
    with pytest.raises(ValueError, match="refuses"):
        solve_exhaustive(coverage, budget, limit=16)


def test_exhaustive_is_right_on_a_hand_example():
    """Two screens on one line, budget for one: the better one; both lines: both if affordable."""
    from agent.smoke import Budget, SightLine, build_coverage
    from engine.geometry import Density, Screen, rectangle
    from engine.options import SmokeOption

    def option(x: float, battery: str) -> SmokeOption:
        screen = Screen(rectangle((x, 0), width=4, depth=1, bearing=90), (Density.FULL,))
        return SmokeOption((x,), ((screen,),), resources=((battery, 1), ("staff_orders", 1)))

    lines = [SightLine((0, -1), (10, -1), 0, 0.5), SightLine((0, 1), (10, 1), 0, 0.25), SightLine((6, 5), (6, 9), 0, 9)]
    coverage = build_coverage([option(3, "a"), option(7, "b")], lines)
    assert solve_exhaustive(coverage, Budget({"a": 1, "b": 1, "staff_orders": 2})).objective == pytest.approx(0.75)
    assert solve_exhaustive(coverage, Budget({"a": 1, "b": 1, "staff_orders": 1})).indices in ((0,), (1,))
    values = [plan.objective for plan in (solve_exhaustive(coverage, Budget({"a": 1, "b": 1, "staff_orders": 0})),)]
    assert values == [0.0]
    assert np.isclose(solve_cpsat(coverage, Budget({"a": 1, "b": 1, "staff_orders": 2})).objective, 0.75)
