"""Smoke placement as a weighted maximum-coverage model in CP-SAT, with safe preprocessing.

The model, for options ``c``, scenarios ``s``, lines ``l`` and grades ``g``::

    x[c]      in {0, 1}   option c is laid
    y[l,g,s]  in {0, 1}   enemy line l is covered at grade >= g in scenario s
    z[l,g,s]  in {0, 1}   our own lane l is covered at grade >= g in scenario s
    u[b]      in {0, 1}   battery b smokes (and so cannot fire this turn, CHQ-12)

    y[l,g,s] <= sum(x[c] for c covering l at grade >= g in s)
    z[l,g,s] >= x[c]      for each c covering l at grade >= g in s
    u[b]     >= x[c]      for each c using b
    sum(usage[c, r] * x[c]) <= capacity[r];   sum(x) <= max_options

    maximise  sum((values[l][g] - values[l][g-1]) * y[l,g,s]) / S
            - penalty * sum((values[l][g] - values[l][g-1]) * z[l,g,s]) / S
            - sum(fire_value[b] * u[b])

Values are monotone in the grade, so at the optimum ``y`` and ``z`` say whether the line's best
grade reaches ``g`` and the sum over ``g`` telescopes to ``values[l][max grade]``: screens do not
stack.

Why preprocessing: maximum coverage has a weak linear relaxation when every line is crossed by
many candidate screens (a random 12" screen crosses about one 30" line in thirteen, so each line
has ~150 of 2,000 candidates). On the benchmark board the LP bound is 20% above the optimum and
the full model takes CP-SAT seconds to presolve. So the model is reduced first, and every step
keeps at least one optimal plan, which makes "OPTIMAL" a proof for the full problem:

1. *Dropped*: options that do not fit the budget alone; options whose threat removed alone is no
   more than the fire they must give up (removing one never lowers a plan's value); all but the
   lowest index of options with identical coverage and resource use.
2. *Bound pruning* against the best plan known, of value ``G`` (greedy, then improved by local
   search and by CP-SAT's own solutions): an option whose best conceivable plan is worth less
   than ``G`` is in no optimal plan. Write a plan as ``{c} + D``; coverage is subadditive and the
   penalties only grow as options are added, and ``k`` bounds the number of options in any plan
   (from ``max_options`` and the resources every option needs, e.g. one Staff Order each):

   - *single*: ``value <= v(c) + the k - 1 best values alone (threat less exclusive fire)``;
   - *recursion*: ``value <= threat(c) - fire(c) + OPT(k - 1)``, where ``OPT(k - 1)`` is the
     proven optimum (or bound) of the same problem with ``max_options = k - 1`` and only
     exclusive batteries' fire, solved by this same function (itself reduced, recursively);
   - *pairwise*: ``value <= v(c) + sum over D of (gain(d | c) - its share of the own lanes it
     newly cuts)`` (exact pairwise overlaps), over the best ``D`` that fits: at most one per group
     sharing an exclusive resource (a battery), and per scarce resource no more users than its
     capacity left by ``c``;
   - for plans of at most three options, *inclusion-exclusion* over every pair ``(a, b)``: exact
     for two options; for three, what all three cover is at most any pair's overlap.

   Each bound is applied again whenever ``G`` improves.
3. *Rows*: the (line, grade, scenario) cells are grouped by the exact set of remaining options
   covering them and their weights summed (enemy lines positive, own lanes negative): one ``y``
   or ``z`` per distinct set. A set of one option is folded into that option's objective
   coefficient, as is the fire of a battery only one option can use.

CP-SAT gets all the time left; each plan it finds is scored exactly, and when one is better than
the best known and the bounds, re-applied with it, leave at most 80% of the candidates, the search
stops and a smaller model is solved (at most eight rounds). Two cases never claim a proof: more
than 300 candidates left (the LP bound is then trivial: CP-SAT only searches the strongest 300 for
a better plan), or too little time left to build a model at all; the plan is then "FEASIBLE" and
its bound is the cheap bounds' above, still a proven bound. In a recursive bound's solve, CP-SAT
gets at most 40% of the time left.

In practice (``experiments/bench_smoke.py``) the proof comes mostly from the bounds: of 2,000
candidates about 20 reach the final model, which CP-SAT proves in a fraction of a second; the
plain model is already slow to prove at 150 candidates. Plans of at most three options are where
the bounds are sharp; with four or more options the pairwise bounds are weak and large cases end
"FEASIBLE" with a gap.

Weights are integers: the objective is multiplied by ``S`` and by ``scale`` (by default the
largest power of ten up to ``1e9`` keeping the sum of absolute weights under ``2**50``) and
rounded. CP-SAT's optimum is exact for the rounded weights; the plan's objective is recomputed in
floating point from the coverage, and the best known plan is returned if it scores higher there.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from ortools.sat.python import cp_model

from engine.errors import FireplanError

from .coverage import Coverage, _expand, _frozen
from .greedy import _greedy_choice, _Neighbourhood, _singles
from .plan import Budget, SmokePlan, _make_plan, _problem, _Problem, _score

__all__ = ["solve_cpsat"]

_MAX_SCALE_EXPONENT = 9
_MAX_TOTAL_WEIGHT = float(2**50)
_PAIRWISE_LIMIT = 600  # pairwise bounds for at most this many candidates (K x K matrices)
_RECURSE_ABOVE = 60  # the recursive bound is used when more candidates than this remain ...
_RECURSE_MAX_SIZE = 12  # ... and plans have at most this many options
_PAIR_BLOCK = 1 << 22  # (cell, member, member) triples per bincount in _overlap
_MIN_SOLVE_SECONDS = 0.05
_SHRINK = 0.8  # a better plan found by CP-SAT restarts it when the bounds leave this share or less
_MAX_ROUNDS = 8
_LATE_MODEL_LIMIT = 200  # out of time, a model over more candidates than this is not attempted
_MODEL_LIMIT = 300  # a model over more candidates is restricted to the strongest (and FEASIBLE)
_REST_SHARE = 0.4  # a recursive bound's solve may use this share of the time left
_STARTS = 3  # local-search starts (beyond the best plan known) per pass
_SEARCH_WIDTH = 64  # the first local-search pass uses the strongest this many candidates ...
_SEARCH_LIMIT = 256  # ... the second at most this many
_HASH_SEED = 20240613  # fixed: hashes only propose groups, which are then compared exactly


# --------------------------------------------------------------------------------------------
# cells and rows
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class _Rows:
    """Aggregated cells: ``members[start[j]:start[j+1]]`` are the options of row ``j`` (sorted),
    ``weight[j]`` its summed weight (scenario-sum units), ``cell[j]`` one ``(scenario, line,
    grade)`` cell it stands for and ``cells[j]`` how many."""

    start: np.ndarray
    members: np.ndarray
    weight: np.ndarray
    cell: np.ndarray
    cells: np.ndarray

    @property
    def size(self) -> np.ndarray:
        return np.diff(self.start)

    def __len__(self) -> int:
        return int(self.weight.size)


def _cells(problem: _Problem, keep: np.ndarray, sign: int):
    """``(option, cell key, weight)`` for every cell a kept option covers.

    A cell is (scenario, line, threshold ``h``): a row at grade 2 covers thresholds 1 and 2, one
    at grade 1 threshold 1. The weight of threshold ``h`` is the signed increment ``gain[l, h] -
    gain[l, h - 1]``; cells of zero weight are dropped (e.g. full smoke on a CHQ line, ``(v, v)``).
    ``sign`` keeps only enemy cells (1), only own-lane cells (-1) or both (0).
    """
    coverage = problem.coverage
    keep = np.asarray(keep, dtype=np.int64)
    counts = np.diff(coverage.starts)[keep]
    _, rows = _expand(coverage.starts[keep], counts)
    option = coverage.option[rows].astype(np.int64)
    scenario = coverage.scenario[rows].astype(np.int64)
    line = coverage.line[rows].astype(np.int64)
    grade = coverage.grade[rows].astype(np.int64)
    two = grade == 2
    option = np.concatenate([option, option[two]])
    scenario = np.concatenate([scenario, scenario[two]])
    line = np.concatenate([line, line[two]])
    level = np.concatenate([np.ones(grade.size, dtype=np.int64), np.full(int(two.sum()), 2, dtype=np.int64)])
    weight = problem.gain[line, level] - problem.gain[line, level - 1]
    kept = weight > 0 if sign > 0 else weight < 0 if sign < 0 else weight != 0
    key = (scenario[kept] * coverage.n_lines + line[kept]) * 2 + (level[kept] - 1)
    return option[kept], key, weight[kept]


def _aggregate(problem: _Problem, keep: np.ndarray, sign: int = 0) -> _Rows:
    """Group cells by the exact set of kept options covering them, summing their weights.

    A random 64-bit sum of a cell's members, mixed with its size, proposes the groups; every cell is
    then compared member by member with its group's first cell, and in the (astronomically
    unlikely) event of a collision the grouping is redone exactly with tuples.
    """
    option, key, weight = _cells(problem, keep, sign)
    if key.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return _Rows(np.zeros(1, dtype=np.int64), empty, np.zeros(0), np.zeros((0, 3), dtype=np.int64), empty)
    order = np.lexsort((option, key))
    option, key, weight = option[order], key[order], weight[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    size = np.diff(np.r_[first, key.size])
    salts = np.random.default_rng(_HASH_SEED).integers(1, 2**62, size=problem.n_options + 1, dtype=np.int64)
    with np.errstate(over="ignore"):
        signature = np.add.reduceat(salts[option].astype(np.uint64), first)
        signature = signature * np.uint64(0x9E3779B97F4A7C15) + size.astype(np.uint64) * np.uint64(salts[-1])
    _, representative, group_of = np.unique(signature, return_index=True, return_inverse=True)
    group_of = group_of.ravel()
    run, position = _expand(first, size)
    rep_position = first[representative[group_of]][run] + (position - first[run])
    if not np.array_equal(option[position], option[rep_position]):  # a hash collision: redo exactly
        groups: dict[tuple[int, ...], int] = {}
        bounds = np.r_[first, key.size].tolist()
        members_of = option.tolist()
        group_of = np.array(
            [groups.setdefault(tuple(members_of[bounds[j] : bounds[j + 1]]), len(groups)) for j in range(first.size)],
            dtype=np.int64,
        )
        representative = np.empty(len(groups), dtype=np.int64)
        representative[group_of[::-1]] = np.arange(first.size)[::-1]
    n_rows = representative.size
    row_weight = np.bincount(group_of, weights=weight[first], minlength=n_rows)  # weight is per cell
    row_cells = np.bincount(group_of, minlength=n_rows)
    sizes = size[representative]
    start = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    _, member_position = _expand(first[representative], sizes)
    members = option[member_position]
    rep_key = key[first[representative]]
    n_lines = problem.coverage.n_lines
    cell = np.stack([rep_key // 2 // n_lines, rep_key // 2 % n_lines, rep_key % 2 + 1], axis=1)
    return _Rows(start, members, row_weight, cell, row_cells)


def _overlap(problem: _Problem, cand: np.ndarray, own: bool = False) -> np.ndarray:
    """``(K, K)``: the weight (mean over scenarios) of the cells both ``c`` and ``d`` cover:
    enemy cells (threat), or with ``own`` our own lanes' cells (penalty, as a positive number).
    The diagonal is each candidate's own total.

    Cells are first merged into rows by member set (:func:`_aggregate`); the rows of each size
    ``n`` give every ordered pair of their members the row's weight, summed with ``bincount``.
    (No BLAS: a threaded matrix product can stall badly on a busy two-core machine.)
    """
    rows = _aggregate(problem, cand, sign=-1 if own else 1)
    k = cand.size
    position = np.full(problem.n_options, -1, dtype=np.int64)
    position[cand] = np.arange(k)
    members = position[rows.members]
    sizes = rows.size
    total = np.zeros(k * k)
    for n in np.unique(sizes).tolist():
        which = np.flatnonzero(sizes == n)
        for first in range(0, which.size, max(1, _PAIR_BLOCK // (n * n))):
            block = which[first : first + max(1, _PAIR_BLOCK // (n * n))]
            matrix = members[rows.start[block][:, None] + np.arange(n)[None, :]]  # (cells, n)
            pair = (matrix[:, :, None] * k + matrix[:, None, :]).ravel()
            weight = np.repeat(np.abs(rows.weight[block]), n * n)
            total += np.bincount(pair, weights=weight, minlength=k * k)
    return total.reshape(k, k) / problem.coverage.n_scenarios


# --------------------------------------------------------------------------------------------
# facts about options used by the bounds
# --------------------------------------------------------------------------------------------


def _exclusive(problem: _Problem) -> tuple[np.ndarray, np.ndarray]:
    """``(exclusive, exclusive_fire)``: resources no two options can share in any plan (any two
    users together exceed the capacity) and, per option, the fire of its exclusive batteries,
    which a plan pays in full for each option using them."""
    usage, capacity = problem.usage, problem.capacity
    users = usage > 0
    big = np.iinfo(np.int64).max
    smallest = np.where(users, usage, big).min(axis=0, initial=big)
    exclusive = users.any(axis=0) & (2 * smallest > capacity)
    fire = (users[:, exclusive] * problem.fire_value[exclusive]).sum(axis=1)
    return exclusive, fire


def _distinct(problem: _Problem, cand: np.ndarray) -> np.ndarray:
    """Candidates minus all but the lowest index of each class with identical rows and usage.

    Another option with the same coverage and resources adds nothing to a plan that has one and
    can replace it in a plan that does not, so one per class keeps an optimal plan. A random
    weighted sum of the rows proposes classes; rows are compared exactly before merging.
    """
    coverage = problem.coverage
    if cand.size < 2:
        return cand
    key = (coverage.scenario.astype(np.int64) * coverage.n_lines + coverage.line) * 3 + coverage.grade
    salt = np.random.default_rng(_HASH_SEED).random(1 << 20)
    weights = salt[key % (1 << 20)] + 1e-3 * salt[(key >> 20) % (1 << 20)]
    digest = np.bincount(coverage.option, weights=weights, minlength=problem.n_options)
    counts = np.diff(coverage.starts)
    classes: dict[tuple, list[int]] = {}
    for c in cand.tolist():
        classes.setdefault((float(digest[c]), int(counts[c]), problem.usage[c].tobytes()), []).append(c)
    keep = []
    for members in classes.values():
        kept: list[int] = []
        for c in members:
            lo, hi = int(coverage.starts[c]), int(coverage.starts[c + 1])
            for k in kept:
                klo, khi = int(coverage.starts[k]), int(coverage.starts[k + 1])
                if (
                    np.array_equal(coverage.scenario[lo:hi], coverage.scenario[klo:khi])
                    and np.array_equal(coverage.line[lo:hi], coverage.line[klo:khi])
                    and np.array_equal(coverage.grade[lo:hi], coverage.grade[klo:khi])
                ):
                    break
            else:
                kept.append(c)
        keep.extend(kept)
    return np.array(sorted(keep), dtype=np.int64)


def _max_size(problem: _Problem, cand: np.ndarray) -> int:
    """An upper bound on the number of options in any plan drawn from ``cand``: ``max_options``,
    and ``sum(capacity[r] // smallest use of r)`` over resources that between them every
    candidate uses (a greedy cover of the candidates by resources)."""
    best = min(problem.max_options, int(cand.size))
    usage = problem.usage[cand]
    uncovered = np.ones(cand.size, dtype=bool)
    total = 0
    while uncovered.any():
        choice, choice_ratio, choice_room = -1, math.inf, 0
        for r in range(usage.shape[1]):
            users = (usage[:, r] > 0) & uncovered
            if not users.any():
                continue
            room = int(problem.capacity[r] // usage[usage[:, r] > 0, r].min())
            if room / users.sum() < choice_ratio:
                choice, choice_ratio, choice_room = r, room / users.sum(), room
        if choice < 0:
            return best  # some candidate uses no resource: only max_options limits the count
        total += choice_room
        uncovered &= ~(usage[:, choice] > 0)
    return min(best, total)


def _compatible(problem: _Problem, cand: np.ndarray) -> np.ndarray:
    """``(K, K)``: True where two distinct candidates fit the budget together."""
    usage = problem.usage[cand]
    fits = ~np.eye(cand.size, dtype=bool)
    for r in np.flatnonzero((usage > 0).any(axis=0)):
        fits &= usage[:, r, None] + usage[None, :, r] <= problem.capacity[r]
    if problem.max_options < 2:
        fits[:] = False
    return fits


def _top_others(values: np.ndarray, count: int) -> np.ndarray:
    """Per element: the sum of the ``count`` largest positive values among the *other* elements."""
    if count <= 0 or values.size == 0:
        return np.zeros(values.size)
    v = np.maximum(values, 0.0)
    order = np.argsort(-v, kind="stable")
    top = v[order[: count + 1]]
    best = float(top[:count].sum())
    next_best = float(top[count]) if top.size > count else 0.0
    result = np.full(values.size, best)
    inside = order[:count]
    result[inside] = best - v[inside] + next_best
    return result


def _others_bound(problem: _Problem, cand: np.ndarray, value: np.ndarray, exclusive: np.ndarray) -> np.ndarray:
    """Per candidate ``c``: an upper bound on ``sum(value[c, d] for d in D)`` over the sets ``D``
    of other candidates that can share a plan with ``c`` (``value`` is ``(K, K)``).

    At most one member of a group (same exclusive resources and usage) joins; a group in conflict
    with ``c`` (over some capacity together, or ``c``'s own group) does not; and for every scarce
    resource ``r`` at most ``(capacity[r] - usage[c, r]) // smallest use of r`` of its users join,
    so the sum is at most the best that many groups using ``r`` plus all other groups.
    """
    k = cand.size
    usage = problem.usage[cand]
    capacity = problem.capacity
    key: dict[tuple, int] = {}
    group = np.empty(k, dtype=np.int64)
    for i in range(k):
        token = ("x", usage[i].tobytes()) if (usage[i][exclusive] > 0).any() else ("s", i)
        group[i] = key.setdefault(token, len(key))
    order = np.argsort(group, kind="stable")
    starts = np.flatnonzero(np.r_[True, group[order][1:] != group[order][:-1]])
    rep = order[starts]
    conflict = np.zeros((k, starts.size), dtype=bool)
    for r in np.flatnonzero((usage > 0).any(axis=0)):
        conflict |= usage[:, r, None] + usage[rep, r][None, :] > capacity[r]
    conflict[np.arange(k), group] = True
    grouped = np.maximum.reduceat(value[:, order], starts, axis=1)
    grouped = np.where(conflict, 0.0, np.maximum(grouped, 0.0))
    limits = []
    for r in range(capacity.size):
        users = usage[:, r] > 0
        if usage[:, r].sum() > capacity[r]:
            limits.append((users[rep], (capacity[r] - usage[:, r]) // int(usage[users, r].min())))
    if k > problem.max_options:
        limits.append((np.ones(starts.size, dtype=bool), np.full(k, problem.max_options - 1, dtype=np.int64)))
    bound = grouped.sum(axis=1)
    for users, allowed in limits:
        rest = grouped[:, ~users].sum(axis=1)
        top = -np.sort(-grouped[:, users], axis=1)
        prefix = np.concatenate([np.zeros((k, 1)), np.cumsum(top, axis=1)], axis=1)
        bound = np.minimum(bound, rest + prefix[np.arange(k), np.clip(allowed, 0, top.shape[1])])
    return bound


def _triple_bound(problem, cand, parts, threat, lanes, fits, threshold: float) -> np.ndarray:
    """Per candidate ``c``: an upper bound on the value of the plans ``{c}``, ``{c, a}`` and
    ``{c, a, b}``.

    Inclusion-exclusion is exact for the threat and own lanes of two options; for three, the
    threat is at most ``sum(alone) - sum(pairwise overlaps) + min(pairwise overlaps)`` (what all
    three cover is at most any pair's overlap) and the own lanes cut at least ``sum(alone) -
    sum(pairwise overlaps)`` and at least any pair's. Fire: ``c``'s own batteries and the others'
    exclusive ones. Pairs that cannot share a plan are skipped; three that fit pairwise but not
    together are kept (a relaxation). Only pairs ``(a, b)`` that could reach ``threshold`` are
    enumerated.
    """
    positive, own, fire, xfire = parts
    pair_own = own[:, None] + own[None, :] - lanes
    pair = np.where(fits, positive[:, None] + positive[None, :] - threat - pair_own - fire[:, None] - xfire[None, :], -np.inf)
    add = np.where(fits, positive[None, :] - threat - xfire[None, :], -np.inf)  # what b adds to a plan with c
    bound = np.maximum(positive - own - fire, pair.max(axis=1, initial=-np.inf))
    for c in range(cand.size):
        best_add = add[c].max(initial=-np.inf)
        if not np.isfinite(best_add):
            continue
        rows = np.flatnonzero(pair[c] + best_add >= threshold)
        if rows.size < 2:
            continue
        a, b = rows[:, None], rows[None, :]
        t_ca, t_cb, t_ab = threat[c, a], threat[c, b], threat[a, b]
        gained = positive[c] + positive[a] + positive[b] - t_ca - t_cb - t_ab + np.minimum(np.minimum(t_ca, t_cb), t_ab)
        cut = own[c] + own[a] + own[b] - lanes[c, a] - lanes[c, b] - lanes[a, b]
        cut = np.maximum(cut, np.maximum(pair_own[c, a], np.maximum(pair_own[c, b], pair_own[a, b])))
        value = gained - cut - fire[c] - xfire[a] - xfire[b]
        ok = fits[a, b] & (a < b)
        if ok.any():
            bound[c] = max(bound[c], float(value[ok].max()))
    return bound


# --------------------------------------------------------------------------------------------
# the bounds, applied again whenever the best known plan improves
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class _Settings:
    deadline: float
    num_workers: int
    seed: int
    prune: bool
    objective_scale: float | None
    log_search: bool

    def late(self) -> bool:
        """Is there too little time left for optional work (more bounds, more local search)?"""
        return time.perf_counter() > self.deadline - 4 * _MIN_SOLVE_SECONDS


@dataclass(frozen=True, slots=True, eq=False)
class _Result:
    chosen: tuple[int, ...]
    status: str
    objective: float
    bound: float | None  # CP-SAT's proven bound converted back (None if it proved nothing)
    upper: float | None  # a safe upper bound on the optimum, rounding of the weights included
    stats: dict[str, float]


class _Bounds:
    """Step 2 of the module docstring: which candidates can still be in a plan worth ``G``."""

    def __init__(self, problem: _Problem, settings: _Settings, depth: int, distinct: bool = False):
        self.problem, self.settings, self.depth = problem, settings, depth
        self.positive, self.total = _singles(problem)
        self.own = self.positive - problem.signed
        self.fire = problem.signed - self.total
        self.exclusive, self.exclusive_fire = _exclusive(problem)
        self.stats: dict[str, float] = {}
        cand = np.flatnonzero(problem.feasible)
        self.stats["options"] = float(problem.n_options)
        self.stats["feasible options"] = float(cand.size)
        if settings.prune:
            cand = cand[self.positive[cand] > self.exclusive_fire[cand]]
            if not distinct:
                cand = _distinct(problem, cand)
            self.stats["distinct useful options"] = float(cand.size)
        self.cand = cand
        self.size = _max_size(problem, cand)
        self.stats["max plan size"] = float(self.size)
        self.rest_upper: float | None = None
        self.rest_tried = False
        self.pair_cand: np.ndarray | None = None

    def _rest_bound(self, cand: np.ndarray) -> float | None:
        """Proven upper bound on what the rest ``D`` of a plan can be worth (the same problem
        with ``max_options = size - 1``); ``None`` if that solve proved nothing."""
        if self.size - 1 == 1:  # a rest of one option: the best value alone, exactly
            alone = self.positive[cand] - self.own[cand] - self.exclusive_fire[cand]
            upper = max(0.0, float(alone.max(initial=0.0)))
            self.stats[f"rest bound (depth {self.depth + 1})"] = upper
            return upper
        settings = self.settings
        left = settings.deadline - time.perf_counter()
        settings = _Settings(
            min(settings.deadline, time.perf_counter() + _REST_SHARE * left),
            settings.num_workers,
            settings.seed,
            settings.prune,
            settings.objective_scale,
            settings.log_search,
        )
        result = _solve(_rest_problem(self.problem, cand, self.size - 1, self.exclusive), settings, self.depth + 1, distinct=True)
        if result.upper is not None:
            self.stats[f"rest bound (depth {self.depth + 1})"] = result.upper
            self.stats.update({k: v for k, v in result.stats.items() if k.startswith("rest bound")})
        return result.upper

    def upper(self, best: float) -> float:
        """A proven upper bound on the optimum from the cheap bounds over the candidates left
        (every plan worth more than ``best`` contains one of them)."""
        cand, size = self.cand, self.size
        if not cand.size:
            return best
        alone = np.maximum(self.positive - self.exclusive_fire, 0.0)
        bound = self.total[cand] + _top_others(alone[cand], size - 1)
        if self.rest_upper is not None:
            bound = np.minimum(bound, self.positive[cand] - self.fire[cand] + self.rest_upper)
        return max(best, float(bound.max()))

    def prune(self, best: float, pairwise: bool = True) -> np.ndarray:
        """Drop the candidates that cannot be in a plan worth ``best``; return those left.
        ``pairwise=False`` skips the pairwise bounds (cheap first pass)."""
        if not self.settings.prune:
            return self.cand
        threshold = best - 1e-9 * (1.0 + abs(best) + float(self.positive.max(initial=0.0)))
        cand, size, total = self.cand, self.size, self.total
        alone = np.maximum(self.positive - self.exclusive_fire, 0.0)
        cand = cand[total[cand] + _top_others(alone[cand], size - 1) >= threshold]
        self.stats.setdefault("options after single bound", float(cand.size))

        if self.settings.late():
            self.cand = cand
            return cand  # out of time: what the cheap bound leaves
        if not self.rest_tried and cand.size > _RECURSE_ABOVE and 2 <= size <= _RECURSE_MAX_SIZE:
            self.rest_tried = True
            self.rest_upper = self._rest_bound(cand)
        if self.rest_upper is not None:
            cand = cand[self.positive[cand] - self.fire[cand] + self.rest_upper >= threshold]
            self.stats.setdefault("options after recursive bound", float(cand.size))

        if pairwise and 0 < cand.size <= _PAIRWISE_LIMIT:
            if self.pair_cand is None or not np.isin(cand, self.pair_cand).all():
                self.pair_cand = cand
                self.threat = _overlap(self.problem, cand)
                self.lanes = _overlap(self.problem, cand, own=True)
                self.fits = _compatible(self.problem, cand)
            index = np.searchsorted(self.pair_cand, cand)
            for _ in range(50):
                threat = self.threat[np.ix_(index, index)]
                lanes = self.lanes[np.ix_(index, index)]
                value = (
                    self.positive[cand][None, :]
                    - threat
                    - self.exclusive_fire[cand][None, :]
                    - np.maximum(self.own[cand][None, :] - lanes, 0.0) / max(1, size - 1)
                )
                bound = total[cand] + _others_bound(self.problem, cand, value, self.exclusive)
                if size <= 3:
                    parts = (self.positive[cand], self.own[cand], self.fire[cand], self.exclusive_fire[cand])
                    fits = self.fits[np.ix_(index, index)]
                    bound = np.minimum(bound, _triple_bound(self.problem, cand, parts, threat, lanes, fits, threshold))
                survive = bound >= threshold
                if survive.all():
                    break
                cand, index = cand[survive], index[survive]
            self.stats.setdefault("options after pairwise bound", float(cand.size))
        self.cand = cand
        return cand


def _rest_problem(problem: _Problem, cand: np.ndarray, size: int, exclusive: np.ndarray) -> _Problem:
    """The problem whose optimum bounds what the rest ``D`` of any plan can be worth: the
    candidates ``cand`` only, ``max_options = size``, the same capacities and own-lane penalty,
    and only the exclusive batteries' fire (a plan pays that in full for each member using one;
    shared batteries may already be paid for by ``c``)."""
    fire = {
        name: float(value)
        for r, (name, value) in enumerate(zip(problem.names, problem.fire_value))
        if exclusive[r] and value > 0
    }
    budget = Budget(
        problem.budget.capacities,
        max_options=size,
        battery_fire_value=fire,
        own_lane_penalty=problem.budget.own_lane_penalty,
    )
    return _problem(_restrict(problem.coverage, cand), budget)


def _restrict(coverage: Coverage, cand: np.ndarray) -> Coverage:
    """The coverage of the candidates only (option ``i`` of the result is ``cand[i]``), so that
    the recursive bounds' solves do not walk the rows of options already ruled out."""
    cand = np.asarray(cand, dtype=np.int64)
    counts = np.diff(coverage.starts)[cand]
    _, rows = _expand(coverage.starts[cand], counts)
    return Coverage(
        options=tuple(coverage.options[c] for c in cand.tolist()),
        lines=coverage.lines,
        n_scenarios=coverage.n_scenarios,
        seed=coverage.seed,
        offsets=_frozen(coverage.offsets[cand]),
        outcome=_frozen(coverage.outcome[cand]),
        option=_frozen(np.repeat(np.arange(cand.size, dtype=np.int32), counts)),
        scenario=_frozen(coverage.scenario[rows]),
        line=_frozen(coverage.line[rows]),
        grade=_frozen(coverage.grade[rows]),
        starts=_frozen(np.r_[0, np.cumsum(counts)].astype(np.int64)),
        values=coverage.values,
        own=coverage.own,
        tick=coverage.tick,
    )


# --------------------------------------------------------------------------------------------
# the model
# --------------------------------------------------------------------------------------------


def _scale_for(total: float) -> float:
    """Largest power of ten up to 1e9 keeping ``total * scale`` under 2**50."""
    if total <= 0.0:
        return 1.0
    exponent = min(_MAX_SCALE_EXPONENT, math.floor(math.log10(_MAX_TOTAL_WEIGHT / total)))
    return 10.0**exponent if exponent >= 0 else _MAX_TOTAL_WEIGHT / total


def _model(problem: _Problem, cand: np.ndarray, exclusive: np.ndarray, hint: tuple[int, ...], settings: _Settings, depth: int):
    """One CP-SAT model over the candidates: ``(model, x, scale, n_terms, stats)``."""
    # -- data: aggregated rows, folded coefficients, integer scale ------------------------------
    n_s = problem.coverage.n_scenarios
    rows = _aggregate(problem, cand)
    coefficient = np.zeros(problem.n_options)  # objective weight of x[c], scenario-sum units
    single = rows.size == 1
    np.add.at(coefficient, rows.members[rows.start[:-1][single]], rows.weight[single])
    multi = np.flatnonzero(~single & (rows.weight != 0.0))
    cand_usage = problem.usage[cand]
    batteries = []  # (resource, users) of batteries several options may share: a u variable each
    for r in np.flatnonzero(problem.fire_value > 0):
        users = cand[cand_usage[:, r] > 0]
        if users.size and (exclusive[r] or users.size == 1):
            coefficient[users] -= problem.fire_value[r] * n_s  # paid exactly once per option using it
        elif users.size:
            batteries.append((int(r), users))
    total_weight = (
        float(np.abs(coefficient[cand]).sum())
        + float(np.abs(rows.weight[multi]).sum())
        + sum(float(problem.fire_value[r]) * n_s for r, _ in batteries)
    )
    scale = settings.objective_scale or _scale_for(total_weight)
    if total_weight * scale > 2.0**60:
        raise FireplanError(
            f"objective_scale {scale:g} makes the model's integer weights overflow"
            f" (their sum would be {total_weight * scale:.3g}); use a smaller scale"
        )
    model = cp_model.CpModel()
    model.name = "smoke_placement" if depth == 0 else f"smoke_placement_rest_{depth}"

    # -- variables -----------------------------------------------------------------------------
    x = {c: model.new_bool_var(f"x[{c}]") for c in cand.tolist()}
    cover = {}
    for j in multi.tolist():
        s, l, g = rows.cell[j].tolist()
        kind = "y" if rows.weight[j] > 0 else "z"
        more = f"+{int(rows.cells[j]) - 1}" if rows.cells[j] > 1 else ""
        cover[j] = model.new_bool_var(f"{kind}[l{l},g{g},s{s}{more}]")
    u = {r: model.new_bool_var(f"u[{problem.names[r]}]") for r, _ in batteries}

    # -- constraints ---------------------------------------------------------------------------
    for j, var in cover.items():
        members = [x[c] for c in rows.members[rows.start[j] : rows.start[j + 1]].tolist()]
        if rows.weight[j] > 0:
            model.add_bool_or([*members, ~var])  # y <= sum(x): covered only if a member is laid
        else:
            for member in members:
                model.add_implication(member, var)  # z >= x: any member laid cuts the lane
    for r, users in batteries:
        for c in users.tolist():
            model.add_implication(x[c], u[r])
    for r, name in enumerate(problem.names):
        used = cand_usage[:, r]
        if used.sum() > problem.capacity[r]:
            expr = cp_model.LinearExpr.weighted_sum([x[c] for c in cand[used > 0].tolist()], used[used > 0].tolist())
            model.add(expr <= int(problem.capacity[r])).with_name(f"capacity[{name}]")
    if cand.size > problem.max_options:
        model.add(sum(x.values()) <= problem.max_options).with_name("max_options")

    # -- objective: integers, scale * S * (threat removed - own lanes cut - fire given up) -------
    terms, weights = [], []
    for var, w in [(x[c], coefficient[c]) for c in x] + [(cover[j], rows.weight[j]) for j in cover]:
        w = round(w * scale)
        if w:
            terms.append(var)
            weights.append(w)
    for r, _ in batteries:
        terms.append(u[r])
        weights.append(-round(problem.fire_value[r] * n_s * scale))
    model.maximize(cp_model.LinearExpr.weighted_sum(terms, weights))

    # hint: the best known plan, with the cover variables it implies
    hinted = set(hint)
    for c, var in x.items():
        model.add_hint(var, c in hinted)
    in_hint = np.zeros(problem.n_options + 1, dtype=np.int64)
    in_hint[list(hinted)] = 1
    row_hinted = np.add.reduceat(in_hint[np.r_[rows.members, problem.n_options]], rows.start[:-1]) > 0 if len(rows) else []
    for j, var in cover.items():
        model.add_hint(var, bool(row_hinted[j]))
    for r, users in batteries:
        model.add_hint(u[r], any(c in hinted for c in users.tolist()))
    stats = {
        "options in model": float(cand.size),
        "rows": float(len(rows)),
        "cover variables": float(len(cover)),
        "battery variables": float(len(u)),
        "objective scale": float(scale),
    }
    return model, x, scale, len(terms), stats


class _Watcher(cp_model.CpSolverSolutionCallback):
    """Scores each plan CP-SAT finds exactly, and stops the search when a better one lets the
    bounds shrink the candidates to ``_SHRINK`` of the model's or fewer (``size = 0``: never)."""

    def __init__(self, problem: _Problem, bounds: _Bounds, x: dict, best: float, size: int):
        super().__init__()
        self.problem, self.bounds, self.x, self.size = problem, bounds, x, size
        self.best, self.incumbent, self.smaller = best, None, None

    def on_solution_callback(self) -> None:
        chosen = tuple(c for c, var in self.x.items() if self.boolean_value(var))
        value = _score(self.problem, chosen).objective
        if value <= self.best:
            return
        self.best, self.incumbent = value, chosen
        if self.size and self.smaller is None:
            smaller = self.bounds.prune(value)
            if smaller.size <= _SHRINK * self.size:
                self.smaller = smaller
                self.stop_search()


def _solve(problem: _Problem, settings: _Settings, depth: int = 0, distinct: bool = False) -> _Result:
    """Greedy, reductions, then CP-SAT rounds until proved or out of time (see module doc)."""
    start = time.perf_counter()
    n_s = problem.coverage.n_scenarios
    # -- data: greedy plan, first reductions, local search, reductions again ---------------------
    greedy = _greedy_choice(problem)
    incumbent, best = greedy, _score(problem, greedy).objective
    bounds = _Bounds(problem, settings, depth, distinct)
    cand = bounds.prune(best, pairwise=False)
    if settings.prune and cand.size:
        # local search from the best plan and from the best options alone: first among the
        # strongest candidates (cheap, and a better plan makes the pairwise bounds cheaper and
        # sharper), then among those the bounds leave, if they are not all in that first pool
        searched = np.zeros(0, dtype=np.int64)
        tried: set[int] = set()
        for width in (_SEARCH_WIDTH, None):
            pool = cand[np.argsort(-bounds.total[cand], kind="stable")][: width or _SEARCH_LIMIT]
            if width is None and np.isin(pool, searched).all():
                break
            searched = np.union1d(pool, incumbent)
            neighbourhood = _Neighbourhood(problem, searched)
            seeds = [c for c in pool.tolist() if c not in tried][:_STARTS]
            tried.update(seeds)
            for plan in [incumbent] + [(c,) for c in seeds]:
                if settings.late():
                    break
                improved = neighbourhood.improve(plan, deadline=settings.deadline - 4 * _MIN_SOLVE_SECONDS)
                improved_value = _score(problem, improved).objective
                if improved_value > best:
                    incumbent, best = improved, improved_value
            cand = bounds.prune(best)
    stats = dict(bounds.stats)
    stats["greedy objective"] = _score(problem, greedy).objective
    stats["local search objective"] = best

    # -- solve: rounds of CP-SAT, re-pruning with each better plan it finds ----------------------
    rounds, cpsat_seconds, model_seconds, preprocess = 0, 0.0, 0.0, time.perf_counter() - start
    if settings.prune and settings.late() and cand.size > _LATE_MODEL_LIMIT:
        # out of time with a model too big to build and solve in what is left: the best plan
        # known, unproved, with the bound the cheap bounds give
        upper = bounds.upper(best)
        stats.update(bounds.stats)
        stats.update({"cp-sat rounds": 0.0, "preprocess seconds": preprocess, "cp-sat wall seconds": 0.0})
        return _Result(tuple(sorted(incumbent)), "FEASIBLE", best, upper, upper + 1e-9 * (1.0 + abs(upper)), stats)
    while True:
        rounds += 1
        # a model over too many candidates proves nothing in time (its LP bound is trivial); CP-SAT
        # then only looks for a better plan among the strongest, and the plan stays FEASIBLE
        restricted = settings.prune and cand.size > _MODEL_LIMIT
        in_model = cand
        if restricted:
            in_model = np.union1d(cand[np.argsort(-bounds.total[cand], kind="stable")[:_MODEL_LIMIT]], incumbent)
        built = time.perf_counter()
        model, x, scale, n_terms, model_stats = _model(problem, in_model, bounds.exclusive, incumbent, settings, depth)
        model_seconds += time.perf_counter() - built
        watcher = _Watcher(problem, bounds, x, best, in_model.size if settings.prune and rounds < _MAX_ROUNDS else 0)
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = max(_MIN_SOLVE_SECONDS, settings.deadline - time.perf_counter())
        solver.parameters.num_workers = settings.num_workers
        solver.parameters.random_seed = settings.seed
        solver.parameters.log_search_progress = settings.log_search
        status = solver.solve(model, watcher)
        cpsat_seconds += solver.wall_time
        if status == cp_model.MODEL_INVALID:  # e.g. an objective_scale so large the weights overflow
            raise FireplanError(f"CP-SAT rejected the smoke model: {model.validate() or 'invalid model'}")
        found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        if watcher.incumbent is not None and watcher.best > best:
            incumbent, best = watcher.incumbent, watcher.best
        if watcher.smaller is None or status == cp_model.OPTIMAL or settings.late():
            break
        cand = watcher.smaller  # a better plan shrank the candidates: a smaller model
    status_name = solver.status_name(status)

    # -- extract: the best plan known, scored exactly; CP-SAT's bound made safe ------------------
    rounding = (n_terms + 1) / (scale * n_s)  # how far the rounded weights can move a plan's value
    if found and restricted:
        stats["model restricted to strongest options"] = float(in_model.size)
        status_name = "FEASIBLE"
        bound = bounds.upper(best)
        upper = bound + 1e-9 * (1.0 + abs(bound))
    elif found:
        bound = solver.best_objective_bound / (scale * n_s)
        upper = (max(best, bound) if status == cp_model.OPTIMAL else bound) + rounding
    else:
        # CP-SAT found nothing in its time (e.g. still presolving a big model): the best plan
        # known is feasible; its bound is the cheap bounds'
        stats["cp-sat found nothing"] = 1.0
        status_name = "FEASIBLE"
        bound = bounds.upper(best)
        upper = bound + 1e-9 * (1.0 + abs(bound))
    stats.update(bounds.stats)
    stats.update(model_stats)
    stats.update(
        {
            "cp-sat rounds": float(rounds),
            "greedy objective": stats["greedy objective"],
            "preprocess seconds": preprocess,
            "model seconds": model_seconds,
            "cp-sat wall seconds": cpsat_seconds,
        }
    )
    return _Result(tuple(sorted(incumbent)), status_name, best, bound, upper, stats)


def solve_cpsat(
    coverage: Coverage,
    budget: Budget,
    *,
    time_limit: float = 2.0,
    num_workers: int = 2,
    seed: int = 0,
    prune: bool = True,
    objective_scale: float | None = None,
    log_search: bool = False,
) -> SmokePlan:
    """Optimal (or best found) smoke plan from the CP-SAT model of the module docstring.

    Parameters
    ----------
    coverage, budget:
        The shared coverage and what the plan may use.
    time_limit:
        Wall-clock seconds for the whole call: each CP-SAT solve (the recursive bounds' and the
        rounds') gets part of what is left, at least 0.05 s.
    num_workers, seed:
        CP-SAT's ``num_workers`` and ``random_seed``.
    prune:
        Apply the safe reductions and bounds (steps 1 and 2 of the module docstring), the local
        search and the rounds. They never remove every optimal plan; ``False`` solves the full
        model once (for checks and timing).
    objective_scale:
        Integer scale of the weights (default: see the module docstring).
    log_search:
        Print CP-SAT's search log.

    Returns
    -------
    SmokePlan
        ``status`` is ``"OPTIMAL"`` when CP-SAT proved it, else ``"FEASIBLE"``: the best plan
        known when the time ran out, with ``bound`` and ``gap`` saying how far from proved (the
        bound is CP-SAT's, or the preprocessing bounds' if CP-SAT got too little time to find
        anything; ``stats`` then has ``"cp-sat found nothing"``). The plan is never worse than
        greedy's. ``stats`` has the model's size after each reduction and the time spent
        preprocessing and in CP-SAT. A plan proved optimal is the same for the same inputs and
        seed; one cut off by the wall-clock limit may differ from run to run.

    Examples
    --------
    >>> from agent.smoke import Budget, SightLine, build_coverage, solve_cpsat
    >>> plan = solve_cpsat(build_coverage([], [SightLine((0, 0), (1, 0), 0, 1.0)]), Budget())
    >>> plan.status, plan.indices
    ('OPTIMAL', ())
    """
    start = time.perf_counter()
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not time_limit > 0:
        raise FireplanError(f"time_limit must be a number of seconds > 0, got {time_limit!r}")
    if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 1:
        raise FireplanError(f"num_workers must be a whole number >= 1, got {num_workers!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise FireplanError(f"seed must be a whole number, got {seed!r}")
    if objective_scale is not None and not (
        isinstance(objective_scale, (int, float)) and not isinstance(objective_scale, bool) and objective_scale > 0
    ):
        raise FireplanError(f"objective_scale must be a number > 0, got {objective_scale!r}")
    problem = _problem(coverage, budget)
    settings = _Settings(start + float(time_limit), num_workers, seed, bool(prune), objective_scale, bool(log_search))
    result = _solve(problem, settings)
    if result.status == "OPTIMAL":
        gap, bound = 0.0, result.objective
    elif result.bound is None:
        gap, bound = None, None
    else:
        bound = result.bound
        gap = max(0.0, bound - result.objective) / max(abs(bound), 1e-12)
    elapsed = time.perf_counter() - start
    return _make_plan(problem, result.chosen, "cpsat", result.status, elapsed, bound, gap, tuple(result.stats.items()))
