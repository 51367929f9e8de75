"""Exhaustive battery allocation for small problems: every feasible choice, the best kept.

Columns are grouped by aim (at most one per aim) and the search walks the aims in turn, then the
smoke choices, pruning a branch only when it breaks a constraint or when even the best
remaining column at every later aim could not beat the best found. Used as the reference the
CP-SAT model is tested against.
"""

from __future__ import annotations

import time
from collections import defaultdict

from engine.errors import FireplanError

from .columns import FireProblem
from .solution import Solution

__all__ = ["EXHAUSTIVE_LIMIT", "solve_exhaustive"]

#: Refuse problems with more candidates than this (the search is exponential).
EXHAUSTIVE_LIMIT = 2_000


def solve_exhaustive(problem: FireProblem, limit: int = EXHAUSTIVE_LIMIT) -> Solution:
    """The best feasible choice, by complete enumeration with safe pruning."""
    started = time.perf_counter()
    if len(problem.columns) + len(problem.smoke) > limit:
        raise FireplanError(
            f"exhaustive search refuses {len(problem.columns) + len(problem.smoke)} candidates (limit {limit})"
        )
    by_aim: dict = defaultdict(list)
    for i, c in enumerate(problem.columns):
        if problem.column_int(i) > 0:
            by_aim[c.aim].append(i)
    aims = sorted(by_aim)
    best_at = [max(problem.column_int(i) for i in by_aim[a]) for a in aims]
    rest = [0] * (len(aims) + 1)
    for k in range(len(aims) - 1, -1, -1):
        rest[k] = rest[k + 1] + best_at[k]
    smoke = [j for j in range(len(problem.smoke)) if problem.smoke_int(j) > 0]
    smoke_total = sum(problem.smoke_int(j) for j in smoke)
    best = [0, (), ()]
    visited = [0]

    def smoke_search(k: int, columns: list[int], chosen: list[int], value: int) -> None:
        visited[0] += 1
        if value > best[0] or (value == best[0] and (tuple(columns), tuple(chosen)) < (best[1], best[2])):
            best[:] = [value, tuple(columns), tuple(chosen)]
        for m in range(k, len(smoke)):
            trial = chosen + [smoke[m]]
            if problem.feasible(columns, trial):
                smoke_search(m + 1, columns, trial, value + problem.smoke_int(smoke[m]))

    def search(k: int, columns: list[int], value: int) -> None:
        if value + rest[k] + smoke_total < best[0]:
            return
        if k == len(aims):
            smoke_search(0, columns, [], value)
            return
        search(k + 1, columns, value)
        for i in by_aim[aims[k]]:
            trial = columns + [i]
            if problem.feasible(trial, []):
                search(k + 1, sorted(trial), value + problem.column_int(i))

    search(0, [], 0)
    value, columns, chosen = best
    return Solution(tuple(sorted(columns)), tuple(sorted(chosen)), value, value, "OPTIMAL", "exhaustive",
                    time.perf_counter() - started, (("nodes", float(visited[0])),))
