"""Candidate columns of the battery-allocation problem, each with its exact expected value.

A :class:`Column` is one thing to do at one aim point with one group of batteries:

- ``single``: one battery, one on-call mission (CHQ-17), single or continuous (CHQ-19), Regular
  or Converged sheaf (CHQ-21);
- ``tot``: a time-on-target group (CHQ-24, Commonwealth and USA only): one Comms Check, one
  deviation, one template with one battery's Fire dice plus half of each other's;
- ``salvo``: ``k`` batteries of one kind calling ``k`` separate single missions on the same aim,
  one after another (each with its own Comms Check and deviation): how a German side masses fire.

Its value has two exact parts, computed per piece with :meth:`~agent.fires.board.Board.land`:

``now``
    the expected effect when the calls are made and resolved, before anything else happens:
    the Comms Check passes with ``comms`` and the template lands at the aim moved by each
    deviation outcome, attacking every piece under it (enemy units, enemy Blinds under each
    hypothesis, and our own units, which count against it); a failed check does nothing now.
``followup``
    the expected effect added in this pulse's Logistics Phase if nothing else intervenes: a
    mission whose check failed arrives then (a new deviation; its suppression no longer comes
    before our move -- the value lost to the delay); a continuous mission fires again where it
    landed on what is still under it (CHQ-19).

``value = now + followup - staff_order * staff`` is what the solvers maximise. Each column also
records, per piece, P(touched), expected Disruption, P(suppressed) and P(dispersed) now.

Columns are generated only where a template aimed there touches some enemy piece before
deviation, and only from the engine's legal options (``fire_option``), so the FO, Staff Orders,
battery availability and the ToT nations are the engine's rules.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Sequence

from agent.budget import Deadline
from engine.errors import FireplanError, IllegalActionError

from .board import Board, ValueWeights

__all__ = ["Mission", "PieceEffect", "Column", "SmokeChoice", "FireProblem", "build_problem", "mission_now", "SCALE"]

#: Column values are rounded to integers at this scale for the solvers (1e-4 Disruption points).
SCALE = 10_000


@dataclass(frozen=True, slots=True)
class Mission:
    """One call as the DP sees it: batteries, sheaf, aim, Comms odds, deviation, refire rule."""

    batteries: tuple[str, ...]
    sheaf: str
    aim: tuple[float, float]
    duration: str
    comms: float
    centres: tuple[tuple[tuple[float, float], float], ...]
    refire: str
    reach: float
    event: tuple
    option: object = field(compare=False, default=None)


def mission_of(board: Board, option) -> Mission:
    """The DP's view of an engine FireOption."""
    ax, ay = option.aim
    centres = tuple(((ax + dx, ay + dy), float(p)) for (dx, dy), p in option.deviation)
    event = board.event(option.batteries, option.sheaf, option.aim, centres, float(option.reach))
    return Mission(tuple(option.batteries), option.sheaf, tuple(option.aim), option.duration, float(option.comms), centres,
                   option.refire, float(option.reach), event, option)


@dataclass(frozen=True, slots=True)
class PieceEffect:
    """What a column (or plan) does to one piece, now, summed over its hypotheses' weights:
    ``p_touched`` is P(its state changes: any Disruption, suppression, reveal or removal)."""

    key: str
    label: str
    own: bool
    p_touched: float
    disruption: float
    p_suppressed: float
    p_dispersed: float
    value: float


@dataclass(frozen=True, slots=True)
class Column:
    """One candidate: ``missions`` (in call order) by a battery group at one aim."""

    index: int
    mode: str
    aim: tuple[float, float]
    sheaf: str
    duration: str
    kinds: tuple[tuple[str, int], ...]
    staff: int
    missions: tuple[Mission, ...]
    now: float
    followup: float
    value: float
    on_target: frozenset
    effects: tuple[PieceEffect, ...]
    comms: float

    @property
    def size(self) -> int:
        return sum(n for _, n in self.kinds)

    @property
    def label(self) -> str:
        kinds = " + ".join(f"{n} x {k}" for k, n in self.kinds)
        what = {"tot": "time-on-target", "salvo": "separate missions", "single": "mission"}[self.mode]
        return f"{what} by {kinds} at {self.aim[0]:g},{self.aim[1]:g} ({self.duration}, {self.sheaf})"


@dataclass(frozen=True, slots=True)
class SmokeChoice:
    """A smoke mission handed in by the smoke planner: the engine ``actions`` that lay it, the
    ``battery`` that fires it (CHQ-12: it then fires nothing else this turn), its Staff Order
    cost and its ``value`` in the fire planner's currency."""

    actions: tuple
    battery: str
    staff: int
    value: float
    label: str = ""

    @classmethod
    def from_option(cls, option, value: float, batteries: Sequence[str]) -> "SmokeChoice":
        """From an ``engine.options.SmokeOption`` whose resources name one battery of ``batteries``."""
        resources = dict(option.resources)
        named = [r for r in resources if r in batteries]
        if len(named) != 1:
            raise FireplanError(f"smoke option {option.label or option.actions!r} must use exactly one battery, got {named!r}")
        return cls(tuple(option.actions), named[0], int(resources.get("staff_orders", 0)), float(value), option.label)


@dataclass
class FireProblem:
    """The allocation problem the solvers share: columns, smoke choices and capacities.

    ``kinds`` maps each battery kind to the free batteries of that kind; ``staff`` is the Staff
    Orders available. Solvers see integer values ``round(value * SCALE)``.
    """

    side: str
    columns: list[Column]
    smoke: list[SmokeChoice]
    kinds: dict[str, tuple[str, ...]]
    staff: int
    board: Board | None = None
    build_time: float = 0.0
    stats: dict = field(default_factory=dict)

    def column_int(self, i: int) -> int:
        return int(round(self.columns[i].value * SCALE))

    def smoke_int(self, j: int) -> int:
        return int(round(self.smoke[j].value * SCALE))

    def kind_of(self, battery: str) -> str:
        for kind, batteries in self.kinds.items():
            if battery in batteries:
                return kind
        raise FireplanError(f"{battery} is not a free battery of {self.side}")

    def feasible(self, columns: Sequence[int], smoke: Sequence[int]) -> bool:
        """Every constraint of the model (see agent.fires.cpsat)."""
        if len(set(columns)) != len(columns) or len(set(smoke)) != len(smoke):
            return False
        staff = sum(self.columns[i].staff for i in columns) + sum(self.smoke[j].staff for j in smoke)
        if staff > self.staff:
            return False
        used = defaultdict(int)
        for i in columns:
            for kind, n in self.columns[i].kinds:
                used[kind] += n
        smokers = [self.smoke[j].battery for j in smoke]
        if len(set(smokers)) != len(smokers):
            return False
        for b in smokers:
            used[self.kind_of(b)] += 1
        if any(used[k] > len(self.kinds.get(k, ())) for k in used):
            return False
        aims = [self.columns[i].aim for i in columns]
        if len(set(aims)) != len(aims):
            return False
        seen: set = set()
        for i in columns:
            if seen & self.columns[i].on_target:
                return False
            seen |= self.columns[i].on_target
        return True

    def value_int(self, columns: Sequence[int], smoke: Sequence[int]) -> int:
        return sum(self.column_int(i) for i in columns) + sum(self.smoke_int(j) for j in smoke)


# ------------------------------------------------------------------------------------ the DP
def mission_now(board: Board, dist: dict, mission: Mission) -> dict:
    """A piece's distribution after one call is made and resolved now: the Comms Check passes
    with ``comms`` and the template lands on one of the deviated centres; else nothing yet."""
    landed = board.land(dist, mission.event)
    p = mission.comms
    out: dict = defaultdict(float)
    for s, q in dist.items():
        out[s] += (1 - p) * q
    for s, q in landed.items():
        out[s] += p * q
    return dict(out)


def _followup(board: Board, track, missions: Sequence[Mission]) -> float:
    """The column's extra expected effect in this pulse's Logistics Phase, for one track."""
    start = board.start(track)
    first = missions[0]
    if len(missions) == 1 and first.refire != "none":
        # continuous: landed at centre c now, fires again at c (or at a new deviation); or delayed
        p = first.comms
        total = 0.0
        s0 = next(iter(start))
        for centre, pc in first.centres:
            landed = board.hit_at(first.event, centre, s0)
            if landed is None:
                if first.refire == "deviates":  # untouched now, but the refire deviates afresh
                    total += p * pc * (_mean(board, track, board.land(start, first.event)) - _mean(board, track, start))
                continue  # untouched now and refired at the same place: untouched again
            now = dict(landed)
            if first.refire == "deviates":
                later = board.land(now, first.event)
            else:
                later: dict = defaultdict(float)
                for s, q in now.items():
                    for s2, r in board.hit_at(first.event, centre, s) or ((s, 1.0),):
                        later[s2] += q * r
            total += p * pc * (_mean(board, track, later) - _mean(board, track, now))
        arrived = board.land(start, first.event)
        total += (1 - p) * (_mean(board, track, arrived) - _mean(board, track, start))
        return track.weight * track.value.sign * total
    # single missions (one, a ToT, or a salvo of identical ones): count the failed checks
    dist: dict = {(next(iter(start)), 0): 1.0}
    for m in missions:
        out: dict = defaultdict(float)
        for (s, failed), q in dist.items():
            out[(s, failed + 1)] += (1 - m.comms) * q
            for s2, r in board.transition(m.event, s):
                out[(s2, failed)] += m.comms * q * r
        dist = dict(out)
    total = 0.0
    for (s, failed), q in dist.items():
        if not failed:
            continue
        here = {s: 1.0}
        later = here
        for m in missions[:failed]:
            later = board.land(later, m.event)
        total += q * (_mean(board, track, later) - _mean(board, track, here))
    return track.weight * track.value.sign * total


def _mean(board: Board, track, dist: dict) -> float:
    return sum(q * board.damage(track, s, now=False) for s, q in dist.items())


def _in_reach(track, missions: Sequence[Mission]) -> bool:
    pos = track.start.pos
    if pos is None or track.start.gone:
        return False
    return any(math.hypot(pos[0] - m.aim[0], pos[1] - m.aim[1]) <= m.reach for m in missions)


def piece_effects(board: Board, finals: dict) -> tuple[PieceEffect, ...]:
    """Per piece (summing its hypotheses): P(touched), E[Disruption], P(suppressed), P(dispersed)."""
    rows = []
    by_key: dict = defaultdict(list)
    for track, dist in finals.items():
        by_key[track.key].append((track, dist))
    for key, items in sorted(by_key.items()):
        touched = disruption = suppressed = dispersed = value = 0.0
        for track, dist in items:
            first = board.sid(track.start)
            for sid, q in dist.items():
                s = board.state_of(sid)
                w = track.weight * q
                if sid != first:
                    touched += w
                if s.unit is not None:
                    disruption += w * (s.disruption - track.start.disruption)
                    suppressed += w * (s.suppressed and not s.gone)
                    dispersed += w * (s.gone and not track.start.gone)
            value += board.effect(track, dist)
        track = items[0][0]
        label = track.key if track.hypothesis else track.label
        rows.append(PieceEffect(key, label, track.value.own, touched, disruption, suppressed, dispersed, value))
    return tuple(rows)


def evaluate_missions(board: Board, missions: Sequence[Mission], tracks=None) -> tuple[float, dict]:
    """Exact expected effect now of ``missions`` called in order, and each track's final
    distribution (the joint effect: later missions see what earlier ones did)."""
    finals = {}
    total = 0.0
    for track in tracks if tracks is not None else board.tracks:
        if not _in_reach(track, missions):
            continue
        dist = board.start(track)
        for m in missions:
            dist = mission_now(board, dist, m)
        finals[track] = dist
        total += board.effect(track, dist)
    return total, finals


def _column(board: Board, index: int, mode: str, options: Sequence, enemy_tracks) -> Column:
    missions = tuple(mission_of(board, o) for o in options)
    now, finals = evaluate_missions(board, missions)
    followup = sum(_followup(board, t, missions) for t in finals)
    first = options[0]
    kinds: dict = defaultdict(int)
    for o in options:
        for k, n in o.kinds:
            kinds[k] += n
    staff = sum(o.staff for o in options)
    on_target = frozenset(t.key for t in enemy_tracks if board.touches(t, first.sheaf, tuple(first.aim)))
    value = now + followup - board.weights.staff_order * staff
    return Column(index, mode, tuple(first.aim), first.sheaf, first.duration, tuple(sorted(kinds.items())), staff, missions,
                  now, followup, value, on_target, piece_effects(board, finals), float(first.comms))


def build_problem(
    state,
    side: str,
    *,
    smoke: Sequence[SmokeChoice] = (),
    weights: ValueWeights | None = None,
    max_group: int | None = None,
    max_salvo: int = 3,
    aims: Sequence | None = None,
    keep_nonpositive: bool = False,
    deadline: Deadline | None = None,
) -> FireProblem:
    """The battery-allocation problem of ``side`` now, with exact column values.

    Parameters
    ----------
    state:
        A state at ``side``'s pulse, offering ``fire_planning()``; never changed.
    smoke:
        Smoke choices handed in (:class:`SmokeChoice`), competing for batteries and Staff Orders.
    max_group:
        Largest time-on-target group considered (default: all free batteries).
    max_salvo:
        Most separate missions of one kind on one aim.
    aims:
        Aim points to consider (default: the engine's lattice an FO sees, kept where a template
        touches an enemy piece before deviation).
    keep_nonpositive:
        Keep columns worth nothing or less (the solvers never choose them).
    deadline:
        Stop adding columns when it passes (``stats["truncated"]`` is then 1): aims touching
        the most enemy pieces come first, so what is kept is the most promising part.
    """
    started = time.perf_counter()
    board = Board(state, side, weights or ValueWeights())
    fp = board.fp
    free = fp.free_batteries(side)
    kinds: dict[str, list[str]] = defaultdict(list)
    for b in free:
        kinds[fp.battery_kind(b)].append(b)
    staff = int(state.observation(side).staff_orders)
    enemy_tracks = [t for t in board.tracks if not t.value.own]
    columns: list[Column] = []
    truncated = False
    groups = fp.fire_groups(side, max_group)
    if groups:
        lattice = fp.aims(side) if aims is None else [tuple(a) for a in aims]
        probe = groups[0]
        touched = []
        for aim in lattice:
            aim = (float(aim[0]), float(aim[1]))
            count = sum(any(board.touches(t, s, aim) for s in fp.sheafs(probe)) for t in enemy_tracks)
            if count:
                touched.append((-count, len(touched), aim))
        kept = [aim for _, _, aim in sorted(touched)]
        for aim in kept:
            if truncated:
                break
            for group in groups:
                if columns and deadline is not None and deadline.passed:  # one column at least: greedy needs one
                    truncated = True
                    break
                for sheaf in fp.sheafs(group):
                    for duration in fp.durations(group):
                        try:
                            option = fp.fire_option(side, group, aim, sheaf, duration)
                        except IllegalActionError:
                            continue
                        mode = "tot" if len(group) > 1 else "single"
                        columns.append(_column(board, len(columns), mode, [option], enemy_tracks))
                    if len(group) == 1:  # salvos of this kind
                        pool = kinds[fp.battery_kind(group[0])]
                        options = []
                        for k, battery in enumerate(pool[: min(max_salvo, staff)]):
                            try:
                                options.append(fp.fire_option(side, (battery,), aim, sheaf, "single"))
                            except IllegalActionError:
                                break
                            if k >= 1:
                                columns.append(_column(board, len(columns), "salvo", list(options), enemy_tracks))
    if not keep_nonpositive:
        columns = [c for c in columns if c.value > 0]
    columns = [_reindex(c, i) for i, c in enumerate(columns)]
    smoke = [s for s in smoke if s.battery in free]
    problem = FireProblem(side, columns, list(smoke), {k: tuple(v) for k, v in sorted(kinds.items())}, staff, board)
    problem.build_time = time.perf_counter() - started
    problem.stats = {"columns": len(columns), "aims": len({c.aim for c in columns}), "tracks": len(board.tracks),
                     "truncated": int(truncated)}
    return problem


def _reindex(column: Column, index: int) -> Column:
    from dataclasses import replace

    return replace(column, index=index)
