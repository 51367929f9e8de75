"""Greedy battery allocation: the baseline the CP-SAT model must never lose to.

Candidates (columns and smoke choices) are taken best first while they fit, twice: once by
value and once by value per Staff Order (the budget that usually binds); the better of the two
runs is returned. Ties go to the lower index, so the result is deterministic.
"""

from __future__ import annotations

import time

from .columns import FireProblem
from .solution import Solution

__all__ = ["solve_greedy"]


def _run(problem: FireProblem, order) -> tuple[list[int], list[int]]:
    columns: list[int] = []
    smoke: list[int] = []
    for kind, i in order:
        trial_c = columns + [i] if kind == "c" else columns
        trial_s = smoke + [i] if kind == "s" else smoke
        if problem.feasible(trial_c, trial_s):
            columns, smoke = trial_c, trial_s
    return columns, smoke


def solve_greedy(problem: FireProblem) -> Solution:
    """Best-first allocation by value and by value per Staff Order; the better one."""
    started = time.perf_counter()
    items = [("c", i, problem.column_int(i), problem.columns[i].staff) for i in range(len(problem.columns))]
    items += [("s", j, problem.smoke_int(j), problem.smoke[j].staff) for j in range(len(problem.smoke))]
    items = [it for it in items if it[2] > 0]
    by_value = sorted(items, key=lambda it: (-it[2], it[0], it[1]))
    by_ratio = sorted(items, key=lambda it: (-it[2] / max(it[3], 1), -it[2], it[0], it[1]))
    best = None
    for order in (by_value, by_ratio):
        columns, smoke = _run(problem, [(k, i) for k, i, _, _ in order])
        value = problem.value_int(columns, smoke)
        if best is None or value > best[0]:
            best = (value, tuple(sorted(columns)), tuple(sorted(smoke)))
    value, columns, smoke = best if best else (0, (), ())
    return Solution(columns, smoke, value, value, "HEURISTIC", "greedy", time.perf_counter() - started)
