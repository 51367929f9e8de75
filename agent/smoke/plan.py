"""What a set of smoke options is worth, what it may use, and the plan that reports it.

The value of a choice ``X`` of options, shared by every solver: for each scenario ``s`` and line
``l``, ``g`` is the highest grade any chosen option gives ``l`` in ``s`` (screens do not stack
beyond that); the value is the mean over scenarios of the threat removed on enemy lines,
``values_l[g]``, minus ``own_lane_penalty`` times the value of our own fire lanes cut, minus the
fire given up by every battery that smokes (``battery_fire_value``, CHQ-12: a battery that fires
smoke cannot fire that turn). :func:`evaluate` computes it in floating point from the
:class:`~agent.smoke.coverage.Coverage`; :func:`make_plan` wraps a choice into a
:class:`SmokePlan`, whose :meth:`SmokePlan.explain` says in plain words what the smoke does.

Examples
--------
>>> from engine.geometry import Density, Screen, rectangle
>>> from engine.options import SmokeOption
>>> from agent.smoke.coverage import SightLine, build_coverage
>>> wall = Screen(rectangle((5, 0), width=4, depth=1, bearing=90), (Density.FULL,))
>>> option = SmokeOption(("smoke",), ((wall,),), resources=(("staff_orders", 1),), label="bty-a")
>>> line = SightLine((0, 0), (10, 0), 0, (0.5, 0.5), observer_id="gb-1", target_id="us-1")
>>> coverage = build_coverage([option], [line])
>>> budget = Budget({"staff_orders": 1})
>>> evaluate(coverage, [0], budget).objective
0.5
>>> print(make_plan(coverage, budget, [0]).explain())
Smoke from bty-a cuts 1 enemy sight line to our units this pulse, removing 0.5 expected threat; it costs 1 Staff Order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from engine.errors import FireplanError
from engine.options import SmokeOption

from .coverage import GRADE_FULL, Coverage

__all__ = ["BlockedLine", "Budget", "OptionEffect", "Score", "SmokePlan", "evaluate", "make_plan"]


# --------------------------------------------------------------------------------------------
# the budget
# --------------------------------------------------------------------------------------------


def _pairs(value, name: str, kind) -> tuple:
    items = value.items() if isinstance(value, Mapping) else value
    try:
        pairs = tuple((str(k), v) for k, v in items)
    except (TypeError, ValueError):
        raise FireplanError(f"{name} must be a mapping of resource names to numbers, got {value!r}") from None
    names = [k for k, _ in pairs]
    if len(set(names)) != len(names):
        raise FireplanError(f"{name} names a resource twice: {names!r}")
    checked = []
    for k, v in pairs:
        if kind is int:
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise FireplanError(f"{name}[{k!r}] must be a whole number >= 0, got {v!r}")
            checked.append((k, int(v)))
        else:
            if isinstance(v, bool) or not isinstance(v, (int, float, np.number)) or not math.isfinite(v) or v < 0:
                raise FireplanError(f"{name}[{k!r}] must be a finite number >= 0, got {v!r}")
            checked.append((k, float(v)))
    return tuple(sorted(checked))


@dataclass(frozen=True, slots=True)
class Budget:
    """What a smoke plan may use and what its side effects cost.

    Attributes
    ----------
    capacities:
        ``{resource: capacity}`` (given as a mapping, stored as sorted pairs): a battery id with
        capacity 1 smokes at most once, ``"staff_orders"`` is the number of Staff Orders to
        spend, a single-use item has capacity 1. Every resource an option uses must be listed
        here; an unlisted one is an error rather than a silent "unlimited".
    max_options:
        At most this many options in a plan (``None``: no limit beyond the resources).
    battery_fire_value:
        ``{battery resource: value}``: the fire a battery gives up if it smokes this turn
        (CHQ-12), in the same unit as the sight-line values. It is charged once per battery
        used, however many of its options are chosen.
    own_lane_penalty:
        Weight on our own fire lanes cut: the plan loses ``own_lane_penalty * values[g]`` for
        an own lane covered at grade ``g``.
    """

    capacities: tuple[tuple[str, int], ...] = ()
    max_options: int | None = None
    battery_fire_value: tuple[tuple[str, float], ...] = ()
    own_lane_penalty: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "capacities", _pairs(self.capacities, "budget capacities", int))
        object.__setattr__(
            self, "battery_fire_value", _pairs(self.battery_fire_value, "battery_fire_value", float)
        )
        limit = self.max_options
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 0):
            raise FireplanError(f"max_options must be a whole number >= 0 or None, got {limit!r}")
        object.__setattr__(self, "max_options", None if limit is None else int(limit))
        penalty = self.own_lane_penalty
        if isinstance(penalty, bool) or not isinstance(penalty, (int, float, np.number)) or not (
            math.isfinite(penalty) and penalty >= 0
        ):
            raise FireplanError(f"own_lane_penalty must be a finite number >= 0, got {penalty!r}")
        object.__setattr__(self, "own_lane_penalty", float(penalty))
        listed = dict(self.capacities)
        for battery, _ in self.battery_fire_value:
            if battery not in listed:
                raise FireplanError(f"battery_fire_value names {battery!r}, which the budget capacities do not list")

    def capacity(self, resource: str) -> int:
        """Capacity of one resource; FireplanError if the budget does not list it."""
        for name, amount in self.capacities:
            if name == resource:
                return amount
        raise FireplanError(
            f"an option uses resource {resource!r}, which the budget does not list; give it a capacity"
        )

    @property
    def fire_values(self) -> dict[str, float]:
        return dict(self.battery_fire_value)


# --------------------------------------------------------------------------------------------
# the problem a coverage and a budget pose (shared by the solvers)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class _Problem:
    """Coverage and budget as arrays: resources, weights and what one option alone is worth."""

    coverage: Coverage
    budget: Budget
    names: tuple[str, ...]  # resource names, in budget order
    usage: np.ndarray  # (C, R) int64 amounts
    capacity: np.ndarray  # (R,) int64
    fire_value: np.ndarray  # (R,) float: battery fire given up when the resource is used
    max_options: int  # budget.max_options, or C
    feasible: np.ndarray  # (C,) bool: fits the budget on its own
    gain: np.ndarray  # (L, 3): value per line at grade 0..2, negative (penalty) for own lanes
    row_gain: np.ndarray  # (rows,) gain of each coverage row at its grade
    row_positive: np.ndarray  # (rows,) max(row_gain, 0): enemy lines only
    positive: np.ndarray  # (C,) threat each option removes alone (mean over scenarios)
    signed: np.ndarray  # (C,) ... less the own lanes it cuts (no fire)

    @property
    def n_options(self) -> int:
        return self.coverage.n_options

    def fits(self, chosen: Sequence[int]) -> bool:
        chosen = list(chosen)
        if len(chosen) > self.max_options or len(set(chosen)) != len(chosen):
            return False
        if not chosen:
            return True
        return bool((self.usage[chosen].sum(axis=0) <= self.capacity).all())

    def fire_lost(self, chosen: Sequence[int]) -> float:
        if not len(chosen):
            return 0.0
        used = self.usage[list(chosen)].sum(axis=0) > 0
        return float(self.fire_value[used].sum())


def _problem(coverage: Coverage, budget: Budget) -> _Problem:
    if not isinstance(coverage, Coverage):
        raise FireplanError(f"coverage must be a Coverage (from build_coverage), got {type(coverage).__name__}")
    if not isinstance(budget, Budget):
        raise FireplanError(f"budget must be a Budget, got {type(budget).__name__}")
    names = tuple(name for name, _ in budget.capacities)
    column = {name: r for r, name in enumerate(names)}
    usage = np.zeros((coverage.n_options, len(names)), dtype=np.int64)
    for c, option in enumerate(coverage.options):
        for name, amount in option.resources:
            if isinstance(amount, bool) or not isinstance(amount, (int, np.integer)) or amount < 0:
                raise FireplanError(f"options[{c}] uses {amount!r} of {name!r}; amounts must be whole numbers >= 0")
            budget.capacity(name)  # raises if unlisted
            usage[c, column[name]] += int(amount)
    capacity = np.array([amount for _, amount in budget.capacities], dtype=np.int64)
    fire = budget.fire_values
    fire_value = np.array([fire.get(name, 0.0) for name in names], dtype=float)
    max_options = coverage.n_options if budget.max_options is None else min(budget.max_options, coverage.n_options)
    feasible = (usage <= capacity).all(axis=1) & (max_options >= 1)
    gain = np.where(coverage.own[:, None], -budget.own_lane_penalty * coverage.values, coverage.values)
    row_gain = gain[coverage.line, coverage.grade]
    row_positive = np.maximum(row_gain, 0.0)
    n_s = coverage.n_scenarios
    return _Problem(
        coverage=coverage,
        budget=budget,
        names=names,
        usage=usage,
        capacity=capacity,
        fire_value=fire_value,
        max_options=max_options,
        feasible=feasible,
        gain=gain,
        row_gain=row_gain,
        row_positive=row_positive,
        positive=np.bincount(coverage.option, weights=row_positive, minlength=coverage.n_options) / n_s,
        signed=np.bincount(coverage.option, weights=row_gain, minlength=coverage.n_options) / n_s,
    )


# --------------------------------------------------------------------------------------------
# the value of a choice
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Score:
    """The value of a set of options: ``objective = threat_blocked - own_lanes_cost - fire_lost``.

    ``threat_blocked`` is the mean over scenarios of the threat removed on enemy lines;
    ``own_lanes_cost`` the penalty weight times the mean value of our own lanes cut; ``fire_lost``
    the fire value of the batteries that smoke.
    """

    objective: float
    threat_blocked: float
    own_lanes_cost: float
    fire_lost: float


def _score(problem: _Problem, chosen: Sequence[int]) -> Score:
    coverage = problem.coverage
    grades = coverage.grades(chosen)
    line_value = np.take_along_axis(problem.gain, grades.T.astype(np.intp), axis=1)  # (L, S)
    per_line = line_value.sum(axis=1) / coverage.n_scenarios
    blocked = float(per_line[~coverage.own].sum())
    own_cost = float(-per_line[coverage.own].sum())
    fire = problem.fire_lost(chosen)
    return Score(blocked - own_cost - fire, blocked, own_cost, fire)


def _check_choice(problem: _Problem, chosen) -> tuple[int, ...]:
    try:
        chosen = tuple(sorted(int(c) for c in chosen))
    except (TypeError, ValueError):
        raise FireplanError(f"chosen must be option indices, got {chosen!r}") from None
    for c in chosen:
        if not 0 <= c < problem.n_options:
            raise FireplanError(f"option index {c} is out of range (the coverage has {problem.n_options} options)")
    if len(set(chosen)) != len(chosen):
        raise FireplanError(f"chosen names an option twice: {chosen!r}")
    return chosen


def evaluate(coverage: Coverage, chosen: Sequence[int], budget: Budget) -> Score:
    """The value of choosing options ``chosen`` (indices into ``coverage.options``).

    Computed exactly in floating point from the coverage (this is the objective every solver
    reports). It does not check the budget's capacities; :func:`make_plan` does.
    """
    problem = _problem(coverage, budget)
    return _score(problem, _check_choice(problem, chosen))


# --------------------------------------------------------------------------------------------
# the plan
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BlockedLine:
    """One sight line a plan covers.

    ``probability`` is the share of scenarios in which some chosen screen covers it (1 with a
    single scenario) and ``full`` the share in which it is covered by full smoke; ``threat`` is
    the mean over scenarios of the threat it removes (for one of our own lanes: the penalty it
    costs). ``by`` lists the chosen options (indices) that cover it in some scenario.
    """

    line: int
    observer_id: str
    target_id: str
    tick: int
    probability: float
    full: float
    threat: float
    by: tuple[int, ...]

    @property
    def label(self) -> str:
        return f"{self.observer_id} -> {self.target_id}"


@dataclass(frozen=True, slots=True)
class OptionEffect:
    """What one chosen option does on its own (lines it cuts may also be cut by another).

    Counts are means over scenarios: ``enemy_lines`` enemy sight lines cut, ``enemy_full`` of
    them with full smoke, ``threat`` removed, ``own_lanes`` of our fire lanes cut costing
    ``own_cost``; ``ticks`` are the ticks at which it cuts any line.
    """

    index: int
    label: str
    enemy_lines: float
    enemy_full: float
    threat: float
    own_lanes: float
    own_cost: float
    ticks: tuple[int, ...]
    resources: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class SmokePlan:
    """A chosen set of smoke options, how it was found and what it achieves.

    Attributes
    ----------
    options, indices:
        The chosen options and their indices in the coverage, in index order.
    method:
        ``"cpsat"``, ``"greedy"``, ``"exhaustive"`` or ``"given"``.
    status:
        ``"OPTIMAL"`` (proved) or ``"FEASIBLE"`` (within budget, not proved optimal).
    objective, threat_blocked, own_lanes_cost, fire_lost:
        The :class:`Score` of the choice, recomputed in floating point from the coverage.
    blocked, own_cut:
        Enemy sight lines and our own fire lanes the plan covers, by tick then line.
    effects:
        One :class:`OptionEffect` per chosen option.
    resources_used:
        ``(resource, amount)`` summed over the chosen options.
    batteries_firing_smoke:
        Batteries (listed in ``battery_fire_value``) that give up their fire.
    solve_time:
        Wall-clock seconds the solver took, preprocessing included.
    bound, gap:
        Proven upper bound on the objective and relative gap ``(bound - objective) / |bound|``
        (0 when proved optimal); ``None`` when the method proves nothing (greedy).
    stats:
        ``(name, value)`` pairs describing the model (sizes, pruning, CP-SAT wall time).
    """

    options: tuple[SmokeOption, ...]
    indices: tuple[int, ...]
    method: str
    status: str
    objective: float
    threat_blocked: float
    own_lanes_cost: float
    fire_lost: float
    blocked: tuple[BlockedLine, ...]
    own_cut: tuple[BlockedLine, ...]
    effects: tuple[OptionEffect, ...]
    resources_used: tuple[tuple[str, int], ...]
    batteries_firing_smoke: tuple[str, ...]
    solve_time: float = 0.0
    bound: float | None = None
    gap: float | None = None
    stats: tuple[tuple[str, float], ...] = ()

    def blocked_by_tick(self) -> dict[int, tuple[BlockedLine, ...]]:
        """``{tick: enemy lines covered at that tick}``, ticks in order."""
        result: dict[int, list[BlockedLine]] = {}
        for line in self.blocked:
            result.setdefault(line.tick, []).append(line)
        return {tick: tuple(lines) for tick, lines in sorted(result.items())}

    def threat_by_tick(self) -> dict[int, float]:
        """``{tick: threat removed at that tick}``."""
        return {tick: float(sum(l.threat for l in lines)) for tick, lines in self.blocked_by_tick().items()}

    def stat(self, name: str, default: float | None = None) -> float | None:
        return dict(self.stats).get(name, default)

    def explain(self, *, tick_word: str = "pulse", threat_word: str = "threat", turn_word: str = "turn") -> str:
        """Plain sentences: for each option, what it cuts, when, the threat removed and its cost.

        ``tick_word`` names a tick ("pulse" in CHQ, "period" in MET), ``threat_word`` the unit of
        the values ("Disruption"), ``turn_word`` the span a battery's lost fire refers to.
        """
        if not self.indices:
            return "No smoke: no affordable screen removes more threat than it costs."
        sentences = []
        for effect in self.effects:
            sentences.append(_explain_effect(effect, self.batteries_firing_smoke, tick_word, threat_word, turn_word))
        if len(self.effects) > 1:
            lines = _count(sum(l.probability for l in self.blocked))
            sentences.append(
                f"Together they cut {lines} enemy sight line{_plural(lines)}, removing"
                f" {_number(self.threat_blocked)} expected {threat_word}"
                f" (a line cut by more than one screen counts once)."
            )
        if self.own_lanes_cost > 0.0:
            lanes = _count(sum(l.probability for l in self.own_cut))
            sentences.append(
                f"The smoke also blocks {lanes} of our own fire lane{_plural(lanes)},"
                f" a penalty of {_number(self.own_lanes_cost)}."
            )
        return " ".join(sentences)


def _number(x: float) -> str:
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _count(x: float) -> str:
    """A count of lines: an integer when it is one, else one decimal (a mean over scenarios)."""
    if abs(x - round(x)) < 1e-9:
        return str(int(round(x)))
    return f"{x:.1f}"


def _plural(count: str) -> str:
    return "" if count == "1" else "s"


def _when(ticks: Sequence[int], word: str) -> str:
    """"this pulse", "this pulse and next", "next pulse and the one after", "over the next 3 pulses"..."""
    ticks = sorted(set(ticks))
    if not ticks:
        return ""
    first, n = ticks[0], len(ticks)
    if ticks == list(range(first, first + n)) and first <= 1:
        if first == 0:
            return f"this {word}" if n == 1 else f"this {word} and next" if n == 2 else f"this {word} and the next {n - 1}"
        return f"next {word}" if n == 1 else f"next {word} and the one after" if n == 2 else f"over the next {n} {word}s"
    names = [f"this {word}" if t == 0 else f"next {word}" if t == 1 else f"in {t} {word}s" for t in ticks]
    return names[0] if n == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _costs(resources, batteries_firing_smoke, turn_word: str) -> str:
    """"it costs 1 Staff Order and battery us-bty-a's fire this turn": Staff Orders, then the
    batteries' fire, then any other resource."""
    parts = []
    rank = {"staff_orders": 0}
    ordered = sorted(resources, key=lambda item: (rank.get(item[0], 1 if item[0] in batteries_firing_smoke else 2), item[0]))
    for name, amount in ordered:
        if amount == 0:
            continue
        if name == "staff_orders":
            parts.append(f"{amount} Staff Order{'s' if amount != 1 else ''}")
        elif name in batteries_firing_smoke:
            parts.append(f"battery {name}'s fire this {turn_word}")
        else:
            parts.append(f"{amount} use{'s' if amount != 1 else ''} of {name}")
    if not parts:
        return "it costs nothing"
    return "it costs " + (parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1])


def _explain_effect(effect: OptionEffect, batteries, tick_word: str, threat_word: str, turn_word: str) -> str:
    lines = _count(effect.enemy_lines)
    what = f"Smoke from {effect.label}" if effect.label else f"Smoke option {effect.index}"
    partial = effect.enemy_lines - effect.enemy_full
    detail = ""
    if effect.enemy_full > 0 and partial > 1e-9:
        detail = f" ({_count(effect.enemy_full)} with full smoke, {_count(partial)} partly)"
    elif partial > 1e-9:
        detail = " (partial smoke only)"
    when = _when(effect.ticks, tick_word)
    sentence = (
        f"{what} cuts {lines} enemy sight line{_plural(lines)} to our units{detail}"
        f"{' ' + when if when else ''}, removing {_number(effect.threat)} expected {threat_word}"
    )
    if effect.own_lanes > 0:
        lanes = _count(effect.own_lanes)
        sentence += f" but blocks {lanes} of our own fire lane{_plural(lanes)} (penalty {_number(effect.own_cost)})"
    return sentence + "; " + _costs(effect.resources, batteries, turn_word) + "."


def make_plan(
    coverage: Coverage,
    budget: Budget,
    chosen: Sequence[int],
    *,
    method: str = "given",
    status: str = "FEASIBLE",
    solve_time: float = 0.0,
    bound: float | None = None,
    gap: float | None = None,
    stats: Sequence[tuple[str, float]] = (),
) -> SmokePlan:
    """The :class:`SmokePlan` of a choice of options; FireplanError if it breaks the budget."""
    problem = _problem(coverage, budget)
    return _make_plan(problem, chosen, method, status, solve_time, bound, gap, stats)


def _make_plan(problem: _Problem, chosen, method, status, solve_time, bound, gap, stats) -> SmokePlan:
    coverage = problem.coverage
    chosen = _check_choice(problem, chosen)
    if not problem.fits(chosen):
        raise FireplanError(f"options {list(chosen)} do not fit the budget")
    score = _score(problem, chosen)
    n_s = coverage.n_scenarios

    # which chosen options cover each line, and at what grade, per scenario
    grades = coverage.grades(chosen)  # (S, L)
    covered = grades > 0
    probability = covered.sum(axis=0) / n_s
    full = (grades == GRADE_FULL).sum(axis=0) / n_s
    per_line = np.take_along_axis(problem.gain, grades.T.astype(np.intp), axis=1).sum(axis=1) / n_s
    covering: dict[int, set[int]] = {}
    effects = []
    used_batteries = set()
    for c in chosen:
        s, l, g = coverage.rows(c)
        for line in np.unique(l).tolist():
            covering.setdefault(line, set()).add(c)
        enemy = ~coverage.own[l]
        gain = problem.row_gain[coverage.starts[c] : coverage.starts[c + 1]]
        option = coverage.options[c]
        effects.append(
            OptionEffect(
                index=c,
                label=option.label,
                enemy_lines=float(enemy.sum() / n_s),
                enemy_full=float((enemy & (g == GRADE_FULL)).sum() / n_s),
                threat=float(gain[enemy].sum() / n_s),
                own_lanes=float((~enemy).sum() / n_s),
                own_cost=float(-gain[~enemy].sum() / n_s),
                ticks=tuple(np.unique(coverage.tick[l]).tolist()),
                resources=tuple((name, int(amount)) for name, amount in option.resources),
            )
        )
        for r in np.flatnonzero(problem.usage[c] > 0):
            if problem.fire_value[r] > 0 or problem.names[r] in problem.budget.fire_values:
                used_batteries.add(problem.names[r])

    def lines_where(mask) -> tuple[BlockedLine, ...]:
        idx = np.flatnonzero(mask & covered.any(axis=0))
        idx = idx[np.lexsort((idx, coverage.tick[idx]))]
        result = []
        for l in idx.tolist():
            line = coverage.lines[l]
            result.append(
                BlockedLine(
                    line=l,
                    observer_id=line.observer_id,
                    target_id=line.target_id,
                    tick=line.tick,
                    probability=float(probability[l]),
                    full=float(full[l]),
                    threat=float(abs(per_line[l])),
                    by=tuple(sorted(covering.get(l, ()))),
                )
            )
        return tuple(result)

    used = problem.usage[list(chosen)].sum(axis=0) if chosen else np.zeros(len(problem.names), dtype=np.int64)
    return SmokePlan(
        options=tuple(coverage.options[c] for c in chosen),
        indices=chosen,
        method=method,
        status=status,
        objective=score.objective,
        threat_blocked=score.threat_blocked,
        own_lanes_cost=score.own_lanes_cost,
        fire_lost=score.fire_lost,
        blocked=lines_where(~coverage.own),
        own_cut=lines_where(coverage.own),
        effects=tuple(effects),
        resources_used=tuple((name, int(a)) for name, a in zip(problem.names, used.tolist()) if a),
        batteries_firing_smoke=tuple(sorted(used_batteries)),
        solve_time=float(solve_time),
        bound=None if bound is None else float(bound),
        gap=None if gap is None else float(gap),
        stats=tuple((str(k), float(v)) for k, v in stats),
    )
