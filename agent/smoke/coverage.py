"""Which sight lines each candidate smoke option would cut, at which grade, under each deviation.

This is the data every smoke solver shares. A :class:`SightLine` is one enemy sight line to our
units or routes (or one of our own fire lanes) at one tick, with the threat that covering it
removes at grade 1 (partial smoke) and grade 2 (full smoke). :func:`build_coverage` lays every
candidate :class:`~engine.options.SmokeOption` in each deviation scenario and asks the engine's bulk
kernel (:func:`engine.sight.crossings`) which lines of the matching tick its screens cross. The
answer is a sparse table of ``(option, scenario, line, grade)`` rows in a :class:`Coverage`.

Deviation is handled by *sample-average approximation*: with ``scenarios == 1`` the single
scenario is the option laid as aimed (no deviation); with ``scenarios > 1`` each scenario draws
one offset per option from the option's exact deviation outcomes with a seeded
``numpy.random.Generator``, and the planners maximise the mean value over the scenarios. Scenario
``s`` is one joint draw for all options, so every option is judged on the same draws.

Examples
--------
>>> from engine.geometry import Density, Screen, rectangle
>>> from engine.options import SmokeOption
>>> wall = Screen(rectangle((5, 0), width=4, depth=1, bearing=90), (Density.FULL,))
>>> option = SmokeOption(actions=("smoke",), screens=((wall,),), label="bty-a at (5, 0)")
>>> lines = [SightLine((0, 0), (10, 0), 0, (1.0, 1.0)), SightLine((0, 5), (10, 5), 0, (1.0, 1.0))]
>>> coverage = build_coverage([option], lines)
>>> coverage.line.tolist(), coverage.grade.tolist()
([0], [2])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely

from engine.errors import FireplanError
from engine.geometry import Density, Screen
from engine.options import SmokeOption
from engine.sight import crossings

__all__ = ["GRADE_FULL", "GRADE_NONE", "GRADE_PARTIAL", "Coverage", "SightLine", "build_coverage"]

GRADE_NONE, GRADE_PARTIAL, GRADE_FULL = 0, 1, 2
_GRADE_OF = {Density.PARTIAL: GRADE_PARTIAL, Density.FULL: GRADE_FULL}

# A tick's lines go to the sight kernel as one (unique observers x unique targets) grid when the
# grid is at most this many times the number of lines (or at most _GRID_FREE cells); otherwise the
# observers are split into chunks so that sparse line sets do not pay for a huge grid.
_GRID_FACTOR = 4
_GRID_FREE = 1 << 20


def _point(value, name: str) -> tuple[float, float]:
    try:
        x, y = value
        x, y = float(x), float(y)
    except (TypeError, ValueError):
        raise FireplanError(f"{name} must be a pair of numbers (x, y), got {value!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise FireplanError(f"{name} must have finite coordinates, got ({x}, {y})")
    return (x, y)


@dataclass(frozen=True, slots=True)
class SightLine:
    """One sight line at one tick, and what covering it with smoke is worth.

    Attributes
    ----------
    observer, target:
        End points ``(x, y)`` of the segment (the one who sees, the one seen).
    tick:
        When the line matters: 0 is now, 1 the next pulse or period, and so on. It is checked
        against the screens an option makes at that tick (``SmokeOption.screens[tick]``).
    values:
        ``(at_partial, at_full)``: the threat removed when the line is covered at grade 1
        (partial smoke) and at grade 2 (full smoke); ``0 <= at_partial <= at_full``. A ruleset
        where any screen obscures gives ``(v, v)``; one where partial smoke only weakens fire
        gives ``(v_partial, v_full)``. A single number ``v`` means ``(v, v)``.
    own:
        True for one of our own fire lanes: cutting it costs (a penalty weight times) its value
        instead of gaining it.
    observer_id, target_id:
        Labels for reports ("gb-pz-2", "us-sec-1 at waypoint 3").
    """

    observer: tuple[float, float]
    target: tuple[float, float]
    tick: int
    values: tuple[float, float]
    own: bool = False
    observer_id: str = ""
    target_id: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "observer", _point(self.observer, "sight line observer"))
        object.__setattr__(self, "target", _point(self.target, "sight line target"))
        if isinstance(self.tick, bool) or not isinstance(self.tick, (int, np.integer)) or self.tick < 0:
            raise FireplanError(f"sight line tick must be a whole number >= 0, got {self.tick!r}")
        object.__setattr__(self, "tick", int(self.tick))
        values = self.values
        if isinstance(values, (int, float, np.number)) and not isinstance(values, bool):
            values = (values, values)
        try:
            partial, full = (float(v) for v in values)
        except (TypeError, ValueError):
            raise FireplanError(
                f"sight line values must be (at_partial, at_full) numbers, got {self.values!r}"
            ) from None
        if not (math.isfinite(partial) and math.isfinite(full) and 0.0 <= partial <= full):
            raise FireplanError(
                f"sight line values must be finite with 0 <= at_partial <= at_full, got {self.values!r}"
            )
        object.__setattr__(self, "values", (partial, full))
        object.__setattr__(self, "own", bool(self.own))
        object.__setattr__(self, "observer_id", str(self.observer_id))
        object.__setattr__(self, "target_id", str(self.target_id))

    @property
    def label(self) -> str:
        """``"observer -> target"`` for reports."""
        return f"{self.observer_id or self.observer} -> {self.target_id or self.target}"


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Coverage:
    """Sparse coverage of sight lines by smoke options, one row per (option, scenario, line).

    ``option[i]``, ``scenario[i]``, ``line[i]`` and ``grade[i]`` say that option ``option[i]``,
    laid with the offset of scenario ``scenario[i]``, covers line ``line[i]`` at ``grade[i]``
    (1 partial, 2 full: the densest of its screens crossing the line at the line's tick). Rows
    are unique and sorted by option, scenario and line, so ``starts[c]:starts[c + 1]`` are
    option ``c``'s rows (:meth:`rows`). Arrays are read-only.

    ``values[l]`` is ``(0, at_partial, at_full)`` for line ``l`` (indexable by grade), ``own[l]``
    marks our own fire lanes and ``tick[l]`` is the line's tick. ``offsets[c, s]`` is the
    ``(dx, dy)`` option ``c`` was shifted by in scenario ``s``; ``outcome[c, s]`` indexes
    ``options[c].deviation`` (``-1`` for "as aimed", the single scenario of ``scenarios == 1``).
    """

    options: tuple[SmokeOption, ...]
    lines: tuple[SightLine, ...]
    n_scenarios: int
    seed: int
    offsets: np.ndarray
    outcome: np.ndarray
    option: np.ndarray
    scenario: np.ndarray
    line: np.ndarray
    grade: np.ndarray
    starts: np.ndarray
    values: np.ndarray
    own: np.ndarray
    tick: np.ndarray

    @property
    def n_options(self) -> int:
        return len(self.options)

    @property
    def n_lines(self) -> int:
        return len(self.lines)

    def __len__(self) -> int:
        return int(self.option.shape[0])

    def __repr__(self) -> str:
        return (
            f"<Coverage {len(self)} rows: {self.n_options} options x {self.n_lines} lines,"
            f" {self.n_scenarios} scenario{'s' if self.n_scenarios != 1 else ''}>"
        )

    def rows(self, option: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(scenario, line, grade)`` arrays of one option's rows."""
        lo, hi = int(self.starts[option]), int(self.starts[option + 1])
        return self.scenario[lo:hi], self.line[lo:hi], self.grade[lo:hi]

    def grades(self, chosen: Sequence[int]) -> np.ndarray:
        """``(n_scenarios, n_lines)`` int8: the grade each line gets from a set of options.

        Screens do not stack: a line's grade is the maximum over the chosen options covering it.
        """
        result = np.zeros((self.n_scenarios, self.n_lines), dtype=np.int8)
        for c in chosen:
            s, l, g = self.rows(int(c))
            result[s, l] = np.maximum(result[s, l], g)  # (s, l) are unique within one option
        return result


# --------------------------------------------------------------------------------------------
# building
# --------------------------------------------------------------------------------------------


def _check_options(options) -> tuple[SmokeOption, ...]:
    options = tuple(options)
    for c, option in enumerate(options):
        if not isinstance(option, SmokeOption):
            raise FireplanError(f"options[{c}] must be a SmokeOption, got {type(option).__name__}")
        for t, screens in enumerate(option.screens):
            for screen in screens:
                if not isinstance(screen, Screen):
                    raise FireplanError(
                        f"options[{c}].screens[{t}] must hold Screen objects, got {type(screen).__name__}"
                    )
        if not option.deviation:
            raise FireplanError(f"options[{c}] ({option.label or 'unlabelled'}) has no deviation outcomes")
        total = 0.0
        for k, outcome in enumerate(option.deviation):
            try:
                (dx, dy), p = outcome
                dx, dy, p = float(dx), float(dy), float(p)
            except (TypeError, ValueError):
                raise FireplanError(
                    f"options[{c}].deviation[{k}] must be ((dx, dy), probability), got {outcome!r}"
                ) from None
            if not (math.isfinite(dx) and math.isfinite(dy) and math.isfinite(p) and p >= 0.0):
                raise FireplanError(f"options[{c}].deviation[{k}] must be finite with probability >= 0")
            total += p
        if abs(total - 1.0) > 1e-9:
            raise FireplanError(f"options[{c}] deviation probabilities sum to {total:.12g}, not 1")
    return options


def _sample_offsets(options: tuple[SmokeOption, ...], scenarios: int, seed: int):
    """``(offsets, outcome)`` of shape ``(C, S, 2)`` and ``(C, S)``.

    One uniform draw per (option, scenario) from one seeded generator, turned into an outcome by
    the inverse of the option's cumulative distribution; so the draws do not depend on how the
    options' distributions happen to be grouped, only on the seed and the options' order.
    """
    n = len(options)
    offsets = np.zeros((n, scenarios, 2))
    outcome = np.full((n, scenarios), -1, dtype=np.int32)
    if scenarios == 1 or n == 0:
        return offsets, outcome  # as aimed: no deviation
    uniform = np.random.default_rng(seed).random((n, scenarios))
    groups: dict[tuple, list[int]] = {}
    for c, option in enumerate(options):
        groups.setdefault(tuple(option.deviation), []).append(c)
    for deviation, members in groups.items():
        shifts = np.array([d for d, _ in deviation], dtype=float).reshape(-1, 2)
        probability = np.array([p for _, p in deviation], dtype=float)
        cumulative = np.cumsum(probability)
        # rounding in the sum must not leave a gap at the top (nor make room for a last outcome
        # of probability 0): the last possible outcome takes everything above its start
        cumulative[int(np.flatnonzero(probability > 0.0)[-1]) :] = np.inf
        pick = np.searchsorted(cumulative, uniform[members], side="right")
        # an outcome of probability 0 is never drawn: searchsorted skips flat steps of the cdf
        outcome[members] = pick
        offsets[members] = shifts[pick]
    return offsets, outcome


def _expand(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For runs ``[starts[i], starts[i] + counts[i])``: (run index, position) of every element."""
    total = int(counts.sum())
    run = np.repeat(np.arange(counts.size), counts)
    offset = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    return run, np.repeat(starts, counts) + offset


def _matches(sorted_keys: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All (query index, position in ``sorted_keys``) with equal keys."""
    lo = np.searchsorted(sorted_keys, queries, side="left")
    hi = np.searchsorted(sorted_keys, queries, side="right")
    return _expand(lo, hi - lo)


def _tick_polygons(options, tick: int, outcome: np.ndarray, offsets: np.ndarray):
    """The distinct shifted screens of one tick, and which (option, scenario, grade) each serves.

    Returns ``(polygons, serve_start, serve_count, serve_option, serve_scenario, serve_grade)``:
    polygon ``k`` stands for the pairs ``serve_*[serve_start[k] : serve_start[k] + serve_count[k]]``.
    Scenarios that drew the same outcome for an option share one polygon, so options that cannot
    deviate are tested once, however many scenarios there are.
    """
    base, base_option, base_grade = [], [], []
    for c, option in enumerate(options):
        if tick < len(option.screens):
            for screen in option.screens[tick]:
                density = screen.density
                if density is None:
                    continue  # dispersed by this tick
                base.append(screen.polygon)
                base_option.append(c)
                base_grade.append(_GRADE_OF[density])
    n_scenarios = outcome.shape[1]
    if not base:
        empty = np.zeros(0, dtype=np.intp)
        return np.zeros(0, dtype=object), empty, empty, empty, empty, empty
    base_option = np.asarray(base_option, dtype=np.intp)
    base_grade = np.asarray(base_grade, dtype=np.int8)
    # one (base screen, scenario) pair per element, keyed by the outcome drawn
    pair_base = np.repeat(np.arange(base_option.size), n_scenarios)
    pair_scenario = np.tile(np.arange(n_scenarios), base_option.size)
    pair_outcome = outcome[base_option[pair_base], pair_scenario].astype(np.int64) + 1  # -1 (as aimed) -> 0
    key = pair_base.astype(np.int64) * (int(pair_outcome.max()) + 1) + pair_outcome
    order = np.argsort(key, kind="stable")
    key_sorted = key[order]
    first = np.flatnonzero(np.r_[True, key_sorted[1:] != key_sorted[:-1]])
    counts = np.diff(np.r_[first, key_sorted.size])
    rep = order[first]  # a representative pair for each distinct polygon
    shapes = np.array(base, dtype=object)[pair_base[rep]]
    shift = offsets[base_option[pair_base[rep]], pair_scenario[rep]]
    if np.any(shift):
        per_coordinate = np.repeat(shift, shapely.get_num_coordinates(shapes), axis=0)
        shapes = shapely.transform(shapes, lambda xy: xy + per_coordinate)
    served = order  # pairs grouped by polygon, in the order of ``first``
    return (
        shapes,
        first,
        counts,
        base_option[pair_base[served]],
        pair_scenario[served],
        base_grade[pair_base[served]],
    )


def _observer_chunks(obs_index: np.ndarray, tgt_index: np.ndarray, n_lines: int) -> list[np.ndarray]:
    """Split a tick's lines (by observer) so that each chunk's observer x target grid stays small."""
    n_obs = int(obs_index.max()) + 1
    n_tgt = int(tgt_index.max()) + 1
    if n_obs * n_tgt <= max(_GRID_FACTOR * n_lines, _GRID_FREE):
        return [np.arange(obs_index.size)]
    order = np.argsort(obs_index, kind="stable")
    bounds = np.flatnonzero(np.r_[True, obs_index[order][1:] != obs_index[order][:-1], True])
    chunks, current, targets, size = [], [], np.zeros(0, dtype=tgt_index.dtype), 0
    for a, b in zip(bounds[:-1], bounds[1:]):
        members = order[a:b]
        merged = np.union1d(targets, tgt_index[members])
        cells = (len(current) + 1) * merged.size
        if current and cells > max(_GRID_FACTOR * (size + members.size), _GRID_FREE):
            chunks.append(np.concatenate(current))
            current, targets, size = [], np.unique(tgt_index[members]), 0
        else:
            targets = merged
        current.append(members)
        size += members.size
    chunks.append(np.concatenate(current))
    return chunks


def build_coverage(
    options: Sequence[SmokeOption],
    lines: Sequence[SightLine],
    *,
    scenarios: int = 1,
    seed: int = 0,
) -> Coverage:
    """Lay every option in every deviation scenario and record which lines its screens cut.

    Parameters
    ----------
    options:
        Candidate smoke options from a ruleset. ``option.screens[t]`` are checked against the
        lines of tick ``t``; each screen is read at its own current density
        (:attr:`engine.geometry.Screen.density`, as :func:`engine.sight.sight_matrix` reads
        screens), so a ruleset lists in ``screens[t]`` the screen as it will be ``t`` ticks on.
    lines:
        The sight lines, of any ticks.
    scenarios:
        Number of deviation scenarios ``S``. ``1`` plans for the option laid as aimed (no
        deviation). ``S > 1`` is a sample-average approximation: scenario ``s`` draws one offset
        per option from its exact deviation outcomes with ``numpy.random.default_rng(seed)``, and
        the solvers maximise the mean over the ``S`` scenarios.
    seed:
        Seed of those draws; the same inputs and seed give the same coverage.

    Returns
    -------
    Coverage
        Rows ``(option, scenario, line, grade)``: a screen shifted rigidly by the scenario's offset
        crosses the line (closed segment meets closed polygon, :func:`engine.sight.crossings`),
        with the grade of the densest such screen (PARTIAL 1, FULL 2).

    Notes
    -----
    Each tick makes one bulk call of :func:`engine.sight.crossings` on its distinct observer and
    target points (chunked by observer when the lines are a sparse subset of that grid), with one
    polygon per distinct (screen, deviation outcome), so non-deviating options cost one polygon
    whatever ``S`` is. No Python loop runs over pairs.
    """
    # -- data: check and index the inputs ------------------------------------------------------
    options = _check_options(options)
    lines = tuple(lines)
    for i, line in enumerate(lines):
        if not isinstance(line, SightLine):
            raise FireplanError(f"lines[{i}] must be a SightLine, got {type(line).__name__}")
    if isinstance(scenarios, bool) or not isinstance(scenarios, (int, np.integer)) or scenarios < 1:
        raise FireplanError(f"scenarios must be a whole number >= 1, got {scenarios!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise FireplanError(f"seed must be a whole number, got {seed!r}")
    scenarios, seed = int(scenarios), int(seed)
    n_lines = len(lines)
    observer = np.array([l.observer for l in lines], dtype=float).reshape(-1, 2)
    target = np.array([l.target for l in lines], dtype=float).reshape(-1, 2)
    tick = np.array([l.tick for l in lines], dtype=np.int64)
    values = np.zeros((n_lines, 3))
    if n_lines:
        values[:, 1:] = np.array([l.values for l in lines], dtype=float)
    own = np.array([l.own for l in lines], dtype=bool)
    offsets, outcome = _sample_offsets(options, scenarios, seed)

    # -- crossings, one tick at a time ----------------------------------------------------------
    found = []  # (option, scenario, line, grade) chunks
    for t in np.unique(tick).tolist():
        polygons, p_start, p_count, p_option, p_scenario, p_grade = _tick_polygons(options, t, outcome, offsets)
        if polygons.size == 0:
            continue
        tick_lines = np.flatnonzero(tick == t)
        points_o, obs_index = np.unique(observer[tick_lines], axis=0, return_inverse=True)
        points_t, tgt_index = np.unique(target[tick_lines], axis=0, return_inverse=True)
        obs_index, tgt_index = obs_index.ravel(), tgt_index.ravel()
        for chunk in _observer_chunks(obs_index, tgt_index, tick_lines.size):
            chunk_obs, local_o = np.unique(obs_index[chunk], return_inverse=True)
            chunk_tgt, local_t = np.unique(tgt_index[chunk], return_inverse=True)
            hits = crossings(points_o[chunk_obs], points_t[chunk_tgt], polygons)
            if not len(hits):
                continue
            # which of this chunk's lines each (observer, target) hit is (duplicates allowed)
            pair = local_o.ravel().astype(np.int64) * chunk_tgt.size + local_t.ravel()
            by_pair = np.argsort(pair, kind="stable")
            hit_row, position = _matches(pair[by_pair], hits.observer * chunk_tgt.size + hits.target)
            hit_line = tick_lines[chunk[by_pair[position]]]
            hit_polygon = hits.polygon[hit_row]
            # ... and which (option, scenario, grade) each crossed polygon stands for
            polygon_run, served = _expand(p_start[hit_polygon], p_count[hit_polygon])
            found.append((p_option[served], p_scenario[served], hit_line[polygon_run], p_grade[served]))

    # -- one row per (option, scenario, line), with the densest screen's grade --------------------
    if found:
        option_, scenario_, line_, grade_ = (np.concatenate(column) for column in zip(*found))
    else:
        option_ = scenario_ = line_ = np.zeros(0, dtype=np.int64)
        grade_ = np.zeros(0, dtype=np.int8)
    key = (option_.astype(np.int64) * scenarios + scenario_) * max(n_lines, 1) + line_
    key = key * 4 + grade_
    key.sort()
    keep = np.r_[key[1:] // 4 != key[:-1] // 4, True] if key.size else np.zeros(0, dtype=bool)
    key = key[keep]  # the last of each run has the largest grade
    grade_ = (key % 4).astype(np.int8)
    key //= 4
    line_ = (key % max(n_lines, 1)).astype(np.int32)
    key //= max(n_lines, 1)
    scenario_ = (key % scenarios).astype(np.int32)
    option_ = (key // scenarios).astype(np.int32)
    starts = np.searchsorted(option_, np.arange(len(options) + 1), side="left").astype(np.int64)
    return Coverage(
        options=options,
        lines=lines,
        n_scenarios=scenarios,
        seed=seed,
        offsets=_frozen(offsets),
        outcome=_frozen(outcome),
        option=_frozen(option_),
        scenario=_frozen(scenario_),
        line=_frozen(line_),
        grade=_frozen(grade_),
        starts=_frozen(starts),
        values=_frozen(values),
        own=_frozen(own),
        tick=_frozen(tick),
    )
