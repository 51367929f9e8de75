"""Greedy smoke placement: best marginal value per unit of scarce resource, evaluated lazily.

Each step adds the affordable option whose marginal value (threat newly removed, minus own fire
lanes newly cut and battery fire newly given up) per unit of scarce resource is largest, until no
option adds value. An option's unit cost is the sum of the shares of each *scarce* resource it
uses (a resource is scarce when the feasible options together want more of it than the budget
has; when ``max_options`` binds, each option also costs ``1 / max_options``), so a Staff Order out
of three weighs a third. The result is compared with the best single option and the better is
kept (for plain budgeted coverage, the repair behind greedy's constant-factor guarantee; own-lane
penalties and battery fire void any guarantee).

Lazy evaluation: the threat an option newly removes only shrinks as the plan grows (coverage is
submodular) while its costs are at least zero, so its last computed threat gain divided by its
cost is an upper bound on its current ratio. Each step re-evaluates options in order of that bound
and stops as soon as the bound of the next one cannot beat the best ratio found.

The module also holds the local search (:class:`_Neighbourhood`) that
:func:`~agent.smoke.cpsat.solve_cpsat` runs on greedy's plan; :func:`solve_greedy` itself is
plain greedy, the baseline.
"""

from __future__ import annotations

import heapq
import math
import time

import numpy as np

from .coverage import Coverage, _expand
from .plan import Budget, SmokePlan, _make_plan, _problem, _Problem, _score

__all__ = ["solve_greedy"]

_FREE = 1e-9  # unit cost of an option that uses no scarce resource


def _unit_cost(problem: _Problem) -> np.ndarray:
    """Share of each scarce resource an option uses, summed (``_FREE`` if it uses none)."""
    feasible = problem.feasible
    demand = problem.usage[feasible].sum(axis=0)
    scarce = demand > problem.capacity
    cost = np.zeros(problem.n_options)
    if scarce.any():
        cost += (problem.usage[:, scarce] / problem.capacity[scarce]).sum(axis=1)
    if feasible.sum() > problem.max_options:
        cost += 1.0 / problem.max_options
    return np.maximum(cost, _FREE)


def _singles(problem: _Problem) -> tuple[np.ndarray, np.ndarray]:
    """``(positive, total)``: each option's threat removed alone, and its value alone."""
    fire = ((problem.usage > 0) * problem.fire_value).sum(axis=1) if problem.names else np.zeros(problem.n_options)
    return problem.positive, problem.signed - fire


def _greedy_choice(problem: _Problem) -> tuple[int, ...]:
    """The greedy plan's option indices (sorted); deterministic, ties go to the lower index."""
    coverage = problem.coverage
    n_s = coverage.n_scenarios
    cost = _unit_cost(problem)
    positive, total = _singles(problem)
    grades = np.zeros((n_s, coverage.n_lines), dtype=np.int8)
    remaining = problem.capacity.copy()
    battery_used = np.zeros(len(problem.names), dtype=bool)
    chosen: list[int] = []
    heap = [(-positive[c] / cost[c], c) for c in np.flatnonzero(problem.feasible).tolist()]
    heapq.heapify(heap)

    def marginal(c: int) -> tuple[float, float]:
        lo, hi = int(coverage.starts[c]), int(coverage.starts[c + 1])
        s, l, g = coverage.scenario[lo:hi], coverage.line[lo:hi], coverage.grade[lo:hi]
        now = grades[s, l]
        delta = problem.gain[l, np.maximum(now, g)] - problem.gain[l, now]
        gained = float(delta[delta > 0].sum()) / n_s
        uses = problem.usage[c] > 0
        fire = float(problem.fire_value[uses & ~battery_used].sum())
        return gained, float(delta.sum()) / n_s - fire

    while heap and len(chosen) < problem.max_options:
        best, best_ratio, set_aside = -1, 0.0, []
        while heap and -heap[0][0] > best_ratio:
            _, c = heapq.heappop(heap)
            if (problem.usage[c] > remaining).any():
                continue  # resources only shrink: it will never fit again
            gained, value = marginal(c)
            set_aside.append((-gained / cost[c], c))
            ratio = value / cost[c]
            if value > 0.0 and (ratio > best_ratio or (ratio == best_ratio and c < best)):
                best, best_ratio = c, ratio
        if best < 0:
            break
        chosen.append(best)
        s, l, g = coverage.rows(best)
        grades[s, l] = np.maximum(grades[s, l], g)
        remaining -= problem.usage[best]
        battery_used |= problem.usage[best] > 0
        for item in set_aside:
            if item[1] != best:
                heapq.heappush(heap, item)

    # the best single option, when it beats the ratio rule (e.g. one expensive, valuable screen)
    candidates = np.flatnonzero(problem.feasible)
    if candidates.size:
        single = int(candidates[np.argmax(total[candidates])])
        if total[single] > 0.0 and _score(problem, [single]).objective > _score(problem, chosen).objective:
            chosen = [single]
    return tuple(sorted(chosen))


def solve_greedy(coverage: Coverage, budget: Budget) -> SmokePlan:
    """Greedy plan: best marginal value per unit of scarce resource (lazy evaluation).

    Fast and within the budget, but with no proof of quality: the plan's status is
    ``"FEASIBLE"`` and its bound and gap are ``None``. Deterministic: ties go to the lower option
    index. See the module docstring for the rule.

    Examples
    --------
    >>> from agent.smoke import Budget, SightLine, build_coverage, solve_greedy
    >>> solve_greedy(build_coverage([], [SightLine((0, 0), (1, 0), 0, 1.0)]), Budget()).indices
    ()
    """
    start = time.perf_counter()
    problem = _problem(coverage, budget)
    chosen = _greedy_choice(problem)
    elapsed = time.perf_counter() - start
    return _make_plan(problem, chosen, "greedy", "FEASIBLE", elapsed, None, None, ())


class _Neighbourhood:
    """Local search over a set of candidate options: the best single move (add, drop or swap one
    option) until none helps.

    Moves are evaluated exactly from the coverage rows of the candidates, all candidates at once;
    ties go to the lower index, so results are deterministic. Used by
    :func:`~agent.smoke.cpsat.solve_cpsat` to raise the value its bounds prune against, and as
    its hint. Build once per candidate set, then :meth:`improve` from several starts.
    """

    def __init__(self, problem: _Problem, candidates: np.ndarray):
        coverage = problem.coverage
        self.problem = problem
        self.cand = np.unique(np.asarray(candidates, dtype=np.int64))
        self.local = np.full(problem.n_options, -1, dtype=np.int64)
        self.local[self.cand] = np.arange(self.cand.size)
        counts = np.diff(coverage.starts)[self.cand]
        self.r_option, rows = _expand(coverage.starts[self.cand], counts)
        line = coverage.line[rows].astype(np.int64)
        self.r_cell = coverage.scenario[rows].astype(np.int64) * coverage.n_lines + line  # flat (s, l)
        self.r_gain = line * 3  # flat index of gain[l, 0]
        self.r_grade = coverage.grade[rows]
        self.flat_gain = problem.gain.ravel()
        self.usage = problem.usage[self.cand]
        self.uses = self.usage > 0

    def marginals(self, current: list[int]) -> np.ndarray:
        """What each candidate adds to ``current`` (``-inf`` where it does not fit or is in it)."""
        problem = self.problem
        now = problem.coverage.grades(current).ravel().take(self.r_cell)
        delta = self.flat_gain.take(self.r_gain + np.maximum(now, self.r_grade)) - self.flat_gain.take(self.r_gain + now)
        gain = np.bincount(self.r_option, weights=delta, minlength=self.cand.size) / problem.coverage.n_scenarios
        used = problem.usage[current].sum(axis=0) if current else np.zeros(len(problem.names), dtype=np.int64)
        if problem.names:
            gain -= (self.uses & ~(used > 0)) @ problem.fire_value
        fits = (self.usage + used <= problem.capacity).all(axis=1) & (len(current) < problem.max_options)
        inside = self.local[current] if current else np.zeros(0, dtype=np.int64)
        fits[inside[inside >= 0]] = False
        return np.where(fits, gain, -np.inf)

    def improve(self, start, rounds: int = 50, deadline: float = math.inf) -> tuple[int, ...]:
        """The local optimum reached from plan ``start`` (which must fit the budget), or the plan
        reached when ``deadline`` (a ``time.perf_counter()`` value) passes."""
        problem = self.problem
        current = sorted(int(c) for c in start)
        value = _score(problem, current).objective
        for _ in range(rounds):
            if time.perf_counter() > deadline:
                break
            best_value = value + 1e-12 * (1.0 + abs(value))
            best_plan = None
            gains = self.marginals(current)
            if gains.size:
                j = int(np.argmax(gains))
                if value + gains[j] > best_value:
                    best_value, best_plan = value + gains[j], current + [int(self.cand[j])]
            for i in current:
                rest = [c for c in current if c != i]
                rest_value = _score(problem, rest).objective
                if rest_value > best_value:
                    best_value, best_plan = rest_value, rest
                gains = self.marginals(rest)
                if self.local[i] >= 0:
                    gains[self.local[i]] = -np.inf
                j = int(np.argmax(gains)) if gains.size else -1
                if j >= 0 and np.isfinite(gains[j]) and rest_value + gains[j] > best_value:
                    best_value, best_plan = rest_value + gains[j], rest + [int(self.cand[j])]
            if best_plan is None:
                break
            current = sorted(best_plan)
            value = _score(problem, current).objective  # exact, not the sum of marginals
        return tuple(current)
