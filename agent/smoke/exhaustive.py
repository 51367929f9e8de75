"""Exhaustive smoke placement: every feasible subset of options, for small cases and tests.

A depth-first walk over the options in index order, carrying the grade each line has under the
subset so far, so each subset costs one option's rows. Subsets that break the budget are cut as
soon as they do. It refuses coverages with more than ``limit`` options that fit the budget on
their own (2^limit subsets), with a clear error rather than a run that never ends.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from engine.errors import FireplanError

from .coverage import Coverage
from .plan import Budget, SmokePlan, _make_plan, _problem

__all__ = ["EXHAUSTIVE_LIMIT", "solve_exhaustive"]

EXHAUSTIVE_LIMIT = 16


def solve_exhaustive(coverage: Coverage, budget: Budget, *, limit: int = EXHAUSTIVE_LIMIT) -> SmokePlan:
    """The best feasible subset of options, found by trying them all.

    Raises FireplanError when more than ``limit`` options fit the budget on their own. The first
    best subset in depth-first order (lowest indices first) is returned, with status
    ``"OPTIMAL"`` and gap 0.

    Examples
    --------
    >>> from agent.smoke import Budget, SightLine, build_coverage, solve_exhaustive
    >>> solve_exhaustive(build_coverage([], [SightLine((0, 0), (1, 0), 0, 1.0)]), Budget()).status
    'OPTIMAL'
    """
    start = time.perf_counter()
    # -- data --------------------------------------------------------------------------------------
    problem = _problem(coverage, budget)
    candidates = np.flatnonzero(problem.feasible).tolist()
    if len(candidates) > limit:
        raise FireplanError(
            f"solve_exhaustive tries every subset and refuses {len(candidates)} options (limit {limit});"
            " use solve_cpsat or solve_greedy"
        )
    n_s = coverage.n_scenarios
    rows = []
    for c in candidates:
        lo, hi = int(coverage.starts[c]), int(coverage.starts[c + 1])
        rows.append((coverage.scenario[lo:hi], coverage.line[lo:hi], coverage.grade[lo:hi]))
    usage = problem.usage

    # -- search: depth-first over include / exclude ------------------------------------------------
    best_value, best_set, visited = 0.0, (), 0
    grades = np.zeros((n_s, coverage.n_lines), dtype=np.int8)
    chosen: list[int] = []

    def walk(position: int, value: float, remaining: np.ndarray, battery_used: np.ndarray) -> None:
        nonlocal best_value, best_set, visited
        visited += 1
        if value > best_value:
            best_value, best_set = value, tuple(chosen)
        if len(chosen) >= problem.max_options:
            return
        for k in range(position, len(candidates)):
            c = candidates[k]
            if (usage[c] > remaining).any():
                continue
            s, l, g = rows[k]
            before = grades[s, l].copy()
            after = np.maximum(before, g)
            gain = float((problem.gain[l, after] - problem.gain[l, before]).sum()) / n_s
            uses = usage[c] > 0
            fire = float(problem.fire_value[uses & ~battery_used].sum())
            grades[s, l] = after
            chosen.append(c)
            walk(k + 1, value + gain - fire, remaining - usage[c], battery_used | uses)
            chosen.pop()
            grades[s, l] = before

    walk(0, 0.0, problem.capacity.copy(), np.zeros(len(problem.names), dtype=bool))
    elapsed = time.perf_counter() - start
    plan = _make_plan(problem, best_set, "exhaustive", "OPTIMAL", elapsed, None, 0.0, (("subsets", visited),))
    return replace(plan, bound=plan.objective)
