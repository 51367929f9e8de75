"""The Initial Barrage before turn 1: rounds x battery groups x enemy Blinds, smoke in the last round.

Every Direct Support battery fires in every Initial Barrage Round, free, without deviation and at
once (CHQ-25); the number of rounds comes from the mission type (CHQ-26; a D3 is planned as its
three values until it is rolled); each group of batteries fires on one Blind with one battery's
full dice and half of each other's (CHQ-27); a Blind under a template is turned over (a dummy
removed, a real unit attacked with +1D Reaction, CHQ-28), so it can be shelled in one round only;
in the last round a battery may lay smoke instead, which lasts until our first Logistics Phase.

Each Blind is weighted by the belief that it is real and by what it would threaten (a
:class:`~agent.fires.board.Board` built from what the side observes, never from the Blinds'
truth), and each column ``(round, Blind, group)`` has the exact expected effect of that
barrage on every piece under its template. A smoke candidate is worth the threat it takes off our
units for our first move: for every enemy piece (each Blind by hypothesis) and our unit whose
sight line it crosses, ``threat - threat through the screen``, each on the side's view.

The model is solved by CP-SAT (:func:`solve_barrage_cpsat`), or exhaustively for small cases
(:func:`solve_barrage_exhaustive`), or greedily when time is short (:func:`solve_barrage_greedy`);
:func:`plan_barrage` returns a :class:`BarragePlan` with the
engine actions of the round being allocated and the expected result per Blind. Re-plan after each
round: the belief is updated by what the round revealed.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import defaultdict
from dataclasses import dataclass, field

from ortools.sat.python import cp_model
from shapely.geometry import LineString

from agent.budget import Deadline
from engine.errors import FireplanError

from .board import Board, ValueWeights, belief_lines
from .columns import SCALE, PieceEffect, piece_effects
from .plan import BUILD_SHARE, MIN_SOLVER_SECONDS, SOLVER_SHARE

__all__ = [
    "BarrageColumn",
    "BarrageSmoke",
    "BarrageProblem",
    "BarrageSolution",
    "BarragePlan",
    "build_barrage",
    "solve_barrage_cpsat",
    "solve_barrage_exhaustive",
    "solve_barrage_greedy",
    "plan_barrage",
]


@dataclass(frozen=True, slots=True)
class BarrageColumn:
    """A group of batteries (``kinds``) firing on ``blind``: exact expected effect ``value``."""

    index: int
    blind: str
    kinds: tuple[tuple[str, int], ...]
    batteries: tuple[str, ...]
    value: float
    touch: frozenset
    effects: tuple[PieceEffect, ...]

    @property
    def size(self) -> int:
        return sum(n for _, n in self.kinds)


@dataclass(frozen=True, slots=True)
class BarrageSmoke:
    """A screen at ``point`` along ``bearing`` laid in the last round, and the threat it takes off."""

    index: int
    point: tuple[float, float]
    bearing: float
    value: float
    lines: tuple[tuple[str, str, float], ...]


@dataclass
class BarrageProblem:
    """Rounds still to allocate, the columns and smoke candidates, and what is fixed already."""

    side: str
    rounds: tuple[int, ...]
    last: int
    kinds: dict[str, tuple[str, ...]]
    pending: dict[str, int]
    smoke_kinds: frozenset
    columns: list[BarrageColumn]
    smoke: list[BarrageSmoke]
    fixed: dict[str, dict[str, int]]
    one_blind_per_round: bool
    max_smoke: int
    blinds: tuple[str, ...]
    board: Board | None = None
    situation: object = None
    build_time: float = 0.0

    def column_int(self, k: int) -> int:
        return int(round(self.columns[k].value * SCALE))

    def smoke_int(self, o: int) -> int:
        return int(round(self.smoke[o].value * SCALE))

    def capacity(self, r: int) -> dict[str, int]:
        if r == self.rounds[0]:
            return dict(self.pending)
        return {k: len(v) for k, v in self.kinds.items()}


@dataclass(frozen=True, slots=True)
class BarrageSolution:
    """``fire[r]`` = columns fired in round r, ``smoke`` = (candidate, kind) pairs in the last round,
    ``hold[r]`` = {kind: batteries holding}."""

    fire: tuple[tuple[int, tuple[int, ...]], ...]
    smoke: tuple[tuple[int, str], ...]
    hold: tuple[tuple[int, tuple[tuple[str, int], ...]], ...]
    objective: int
    bound: int
    status: str
    method: str
    wall_time: float


# ------------------------------------------------------------------------------------ building
def _multisets(counts: dict[str, int], total_max: int):
    kinds = sorted(counts)
    for combo in itertools.product(*[range(counts[k] + 1) for k in kinds]):
        if 1 <= sum(combo) <= total_max:
            yield tuple((k, n) for k, n in zip(kinds, combo) if n)


def _effect(board: Board, batteries, point) -> tuple[float, dict]:
    total, finals = 0.0, {}
    centres = ((tuple(point), 1.0),)
    event = board.event(batteries, "regular", tuple(point), centres, math.inf, barrage=True)
    for track in board.tracks:
        if track.start.gone or track.start.pos is None:
            continue
        start = board.start(track)
        dist = board.land(start, event)
        if dist == start:
            continue
        finals[track] = dist
        total += board.effect(track, dist)
    return total, finals


def _smoke_candidates(board: Board, situation, limit: int, deadline: Deadline | None = None) -> list[BarrageSmoke]:
    """The ``limit`` best screens of the last round by the threat they cut; past ``deadline``
    the screens valued so far (an extra on the barrage, so it may be cut short)."""
    fp, side = board.fp, board.side
    late = (lambda: False) if deadline is None else (lambda: deadline.passed)
    enemies = [t for t in board.tracks if not t.value.own and t.start.unit is not None and t.start.pos is not None]
    ours = [t for t in board.tracks if t.value.own and t.start.pos is not None and not t.start.hidden]
    pairs = []
    for e in enemies:
        if late():
            return []
        for v in ours:
            threat = float(fp.public_threat(side, e.start, v.start))
            if threat > 1e-12:
                pairs.append((e, v, threat, LineString([e.start.pos, v.start.pos])))
    found = []
    for point, bearing in situation.smoke_aims:
        if late():
            break
        polygon = fp.smoke_polygon(point, bearing)
        crossing = [p for p in pairs if p[3].intersects(polygon)]
        if not crossing:
            continue
        lines, value = [], 0.0
        for e, v, threat, _ in crossing:
            screened = float(fp.public_threat(side, e.start, v.start, screens=((tuple(point), float(bearing)),)))
            cut = max(0.0, threat - screened)
            if cut > 0:
                value += e.weight * cut * board.weights.smoke_threat
                lines.append((e.label, v.start.unit, e.weight * cut))
        if value > 0:
            found.append((value, tuple(point), float(bearing), tuple(lines)))
    found.sort(key=lambda f: (-f[0], f[1], f[2]))
    return [BarrageSmoke(i, p, b, v, lines) for i, (v, p, b, lines) in enumerate(found[:limit])]


def build_barrage(
    state,
    side: str,
    *,
    rounds: int | None = None,
    weights: ValueWeights | None = None,
    max_smoke: int = 1,
    smoke_candidates: int = 12,
    deadline: Deadline | None = None,
) -> BarrageProblem:
    """The Initial Barrage problem of ``side`` now (its rounds still to allocate).

    ``rounds`` fixes the number of rounds when it is not known yet (a D3 not rolled);
    ``max_smoke`` is the most screens laid in the last round (their threat cuts are added, so
    more than one screen is valued as if they cut different lines); ``smoke_candidates`` keeps
    the best screens, as many as are valued by ``deadline``.
    """
    started = time.perf_counter()
    board = Board(state, side, weights or ValueWeights())
    fp = board.fp
    situation = fp.barrage_situation(side)
    if situation.round is not None:
        total = situation.rounds[0][0]
        first = situation.round
    else:
        values = [r for r, _ in situation.rounds]
        if rounds is None:
            if len(values) != 1:
                raise FireplanError(f"the number of Initial Barrage Rounds is not known yet ({values}): give rounds=")
            rounds = values[0]
        total, first = int(rounds), 1
    kinds: dict[str, list[str]] = defaultdict(list)
    for b, kind in situation.kinds:
        kinds[kind].append(b)
    pending: dict[str, int] = defaultdict(int)
    for b in situation.pending:
        pending[dict(situation.kinds)[b]] += 1
    fixed: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for a in situation.assigned:
        if a.blind is not None and a.at is None:
            fixed[a.blind][dict(situation.kinds)[a.battery]] += 1
    blinds = tuple(sorted(board.beliefs))
    columns = []
    all_counts = {k: len(v) for k, v in kinds.items()}
    for blind in blinds:
        belief = board.beliefs[blind]
        for combo in _multisets(all_counts, sum(all_counts.values())):
            batteries = tuple(b for k, n in combo for b in kinds[k][:n])
            value, finals = _effect(board, batteries, belief.position)
            touch = frozenset(t.key for t in finals) | {blind}
            columns.append(BarrageColumn(len(columns), blind, combo, batteries, value, touch, piece_effects(board, finals)))
    smoke_kinds = frozenset(dict(situation.kinds)[b] for b in situation.smoke_batteries)
    smoke = _smoke_candidates(board, situation, smoke_candidates, deadline) if smoke_kinds and max_smoke > 0 and total >= first else []
    problem = BarrageProblem(
        side=side,
        rounds=tuple(range(first, total + 1)),
        last=total,
        kinds={k: tuple(v) for k, v in sorted(kinds.items())},
        pending=dict(pending),
        smoke_kinds=smoke_kinds,
        columns=columns,
        smoke=smoke,
        fixed={b: dict(v) for b, v in fixed.items()},
        one_blind_per_round=situation.one_blind_per_round,
        max_smoke=max_smoke,
        blinds=blinds,
        board=board,
        situation=situation,
    )
    problem.build_time = time.perf_counter() - started
    return problem


def _allowed(problem: BarrageProblem, r: int, k: int) -> bool:
    """Column k in round r: in the current round it must contain what is fixed on its Blind."""
    col = problem.columns[k]
    if r != problem.rounds[0]:
        return col.blind not in problem.fixed
    fixed = problem.fixed.get(col.blind)
    have = dict(col.kinds)
    if fixed and any(have.get(kind, 0) < n for kind, n in fixed.items()):
        return False
    need = {kind: have.get(kind, 0) - (fixed or {}).get(kind, 0) for kind in have}
    return all(need[kind] <= problem.pending.get(kind, 0) for kind in need)


def _uses(problem: BarrageProblem, r: int, k: int) -> dict[str, int]:
    have = dict(problem.columns[k].kinds)
    if r == problem.rounds[0]:
        for kind, n in problem.fixed.get(problem.columns[k].blind, {}).items():
            have[kind] -= n
    return have


# ------------------------------------------------------------------------------------ CP-SAT
def solve_barrage_cpsat(problem: BarrageProblem, *, time_limit: float = 5.0, num_workers: int = 1, random_seed: int = 0,
                        deterministic: bool = True) -> BarrageSolution:
    """The best barrage plan: rounds x groups x Blinds, smoke in the last round (CP-SAT). One
    worker by default (deterministic); see :func:`agent.fires.cpsat.solve_cpsat`."""
    started = time.perf_counter()

    # ---------------------------------------------------------------- data
    rounds, last = problem.rounds, problem.last
    kinds = sorted(problem.kinds)
    model = cp_model.CpModel()
    model.name = f"initial-barrage-{problem.side}"

    # ---------------------------------------------------------------- variables
    x = {(r, k): model.new_bool_var(f"round{r}_{problem.columns[k].blind}_{'+'.join(f'{n}{kind}' for kind, n in problem.columns[k].kinds)}")
         for r in rounds for k in range(len(problem.columns)) if _allowed(problem, r, k)}
    s = {(o, kind): model.new_bool_var(f"smoke_{o}_{kind}") for o in range(len(problem.smoke)) for kind in sorted(problem.smoke_kinds)
         if last in rounds}
    hold = {(r, kind): model.new_int_var(0, problem.capacity(r).get(kind, 0), f"hold_round{r}_{kind}") for r in rounds for kind in kinds}
    done = {r: model.new_bool_var(f"no_blind_left_round{r}") for r in rounds}

    # ---------------------------------------------------------------- constraints
    for r in rounds:  # every battery fires in every round (CHQ-25): on a Blind, smoke (last round) or, with none left, holds
        cap = problem.capacity(r)
        for kind in kinds:
            fire = [(_uses(problem, r, k).get(kind, 0), v) for (rr, k), v in x.items() if rr == r]
            smoke = [v for (o, kd), v in s.items() if kd == kind] if r == last else []
            model.add(sum(n * v for n, v in fire) + sum(smoke) + hold[(r, kind)] == cap.get(kind, 0)).with_name(f"fire_all_round{r}_{kind}")
            model.add(hold[(r, kind)] <= cap.get(kind, 0) * done[r]).with_name(f"hold_only_without_blinds_round{r}_{kind}")
        for blind in problem.blinds:  # "no Blind left" means each was turned over in an earlier round
            before = [v for (rr, k), v in x.items() if rr < r and blind in problem.columns[k].touch]
            model.add(sum(before) >= done[r]).with_name(f"gone_before_round{r}_{blind}")
        for blind in problem.blinds:  # one group per Blind in a round
            terms = [v for (rr, k), v in x.items() if rr == r and problem.columns[k].blind == blind]
            if len(terms) > 1:
                model.add_at_most_one(terms)
        if problem.one_blind_per_round:
            terms = [v for (rr, k), v in x.items() if rr == r]
            model.add(sum(terms) <= 1)
    for blind, _ in problem.fixed.items():  # batteries already on a Blind this round
        model.add(sum(v for (r, k), v in x.items() if r == rounds[0] and problem.columns[k].blind == blind) == 1)
    pieces = sorted({key for c in problem.columns for key in c.touch})
    for key in pieces:  # a piece is under at most one barrage template: a Blind is turned over once (CHQ-28)
        terms = [v for (r, k), v in x.items() if key in problem.columns[k].touch]
        if len(terms) > 1:
            model.add_at_most_one(terms).with_name(f"once_{key}")
    if s:
        model.add(sum(s.values()) <= problem.max_smoke).with_name("screens")
        for o in range(len(problem.smoke)):
            model.add_at_most_one([v for (oo, _), v in s.items() if oo == o])

    # ---------------------------------------------------------------- objective
    model.maximize(sum(problem.column_int(k) * v for (r, k), v in x.items()) + sum(problem.smoke_int(o) * v for (o, _), v in s.items()))

    # ---------------------------------------------------------------- solve
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = int(num_workers)
    solver.parameters.random_seed = int(random_seed)
    solver.parameters.interleave_search = bool(deterministic) and int(num_workers) > 1
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise FireplanError(f"CP-SAT could not solve the Initial Barrage: {solver.status_name(status)}")

    # ---------------------------------------------------------------- extract
    fire = tuple((r, tuple(k for (rr, k), v in sorted(x.items()) if rr == r and solver.boolean_value(v))) for r in rounds)
    smoked = tuple((o, kind) for (o, kind), v in sorted(s.items()) if solver.boolean_value(v))
    holds = tuple((r, tuple((kind, solver.value(hold[(r, kind)])) for kind in kinds if solver.value(hold[(r, kind)]))) for r in rounds)
    objective = sum(problem.column_int(k) for _, ks in fire for k in ks) + sum(problem.smoke_int(o) for o, _ in smoked)
    return BarrageSolution(fire, smoked, holds, objective, int(round(solver.best_objective_bound)),
                           "OPTIMAL" if status == cp_model.OPTIMAL else "FEASIBLE", "cpsat", time.perf_counter() - started)


# ------------------------------------------------------------------------------------ greedy
def solve_barrage_greedy(problem: BarrageProblem) -> BarrageSolution:
    """A legal barrage plan quickly, for when CP-SAT has no time: round by round, the best group
    per battery on a Blind still unturned, then every battery left joins a group already chosen
    (CHQ-25: all fire while a Blind is left); no smoke. Raises ``FireplanError`` only when no
    group can take the batteries left (CP-SAT would then find no plan either)."""
    started = time.perf_counter()
    used: frozenset = frozenset()
    fire, hold = [], []
    for r in problem.rounds:
        left = {kind: problem.capacity(r).get(kind, 0) for kind in problem.kinds}
        no_blind_left = all(b in used for b in problem.blinds)
        open_columns = [k for k in range(len(problem.columns)) if _allowed(problem, r, k) and not (problem.columns[k].touch & used)]
        chosen: dict[str, int] = {}  # Blind -> column

        def fits(k: int, spare: dict) -> bool:
            return all(spare.get(kind, 0) >= n for kind, n in _uses(problem, r, k).items())

        def touched(without: str | None = None) -> frozenset:
            return frozenset().union(*[problem.columns[k].touch for b, k in chosen.items() if b != without])

        def take(k: int, spare: dict) -> dict:
            return {kind: spare.get(kind, 0) - _uses(problem, r, k).get(kind, 0) for kind in spare}

        order = sorted(open_columns, key=lambda k: (-problem.column_int(k) / max(1, problem.columns[k].size), k))
        wanted = [b for b in problem.blinds if r == problem.rounds[0] and b in problem.fixed]
        for k in sorted(order, key=lambda k: problem.columns[k].blind not in wanted):
            col = problem.columns[k]
            if col.blind in chosen or (problem.one_blind_per_round and chosen) or col.touch & touched() or not fits(k, left):
                continue
            chosen[col.blind] = k
            left = take(k, left)
        while sum(left.values()) and not no_blind_left:  # the batteries left join a chosen group
            best = None
            for blind, k in chosen.items():
                spare = {kind: left[kind] + _uses(problem, r, k).get(kind, 0) for kind in left}
                for k2 in open_columns:
                    col = problem.columns[k2]
                    if col.blind == blind and col.size > problem.columns[k].size and fits(k2, spare) and not (col.touch & touched(blind)):
                        if best is None or problem.column_int(k2) > problem.column_int(best[1]):
                            best = (blind, k2, take(k2, spare))
            if best is None:
                raise FireplanError("the greedy barrage planner found no group for every battery")
            chosen[best[0]], left = best[1], best[2]
        fire.append((r, tuple(sorted(chosen.values()))))
        hold.append((r, tuple((kind, n) for kind, n in sorted(left.items()) if n)))
        used = used | touched()
    objective = sum(problem.column_int(k) for _, ks in fire for k in ks)
    return BarrageSolution(tuple(fire), (), tuple(hold), objective, objective, "HEURISTIC", "greedy", time.perf_counter() - started)


# ------------------------------------------------------------------------------------ exhaustive
def solve_barrage_exhaustive(problem: BarrageProblem) -> BarrageSolution:
    """Every legal allocation of every round, the best kept (small problems only)."""
    started = time.perf_counter()
    rounds, last = problem.rounds, problem.last
    kinds = sorted(problem.kinds)
    best = [None]

    def smoke_options():
        out = [()]
        for n in range(1, problem.max_smoke + 1):
            for combo in itertools.combinations(range(len(problem.smoke)), n):
                for ks in itertools.product(sorted(problem.smoke_kinds), repeat=n):
                    out.append(tuple(zip(combo, ks)))
        return out

    screens = smoke_options() if problem.smoke else [()]

    def round_choices(r: int, used: frozenset):
        """Every (columns, smoke, hold) of round r, given the pieces turned over before it."""
        cap = problem.capacity(r)
        no_blind_left = all(b in used for b in problem.blinds)
        cols = [k for k in range(len(problem.columns)) if _allowed(problem, r, k) and not (problem.columns[k].touch & used)]
        out = []

        def finish(chosen: list[int], left: dict):
            blinds = [problem.columns[k].blind for k in chosen]
            if len(set(blinds)) != len(blinds) or (problem.one_blind_per_round and len(chosen) > 1):
                return
            if r == rounds[0] and any(b not in blinds for b in problem.fixed):
                return
            for smoke in screens if r == last else [()]:
                after = dict(left)
                for _, kind in smoke:
                    after[kind] = after.get(kind, 0) - 1
                if any(n < 0 for n in after.values()):
                    continue
                if sum(after.values()) and not no_blind_left:
                    continue  # CHQ-25: every battery fires while a Blind is left
                out.append((tuple(chosen), smoke, tuple((k, n) for k, n in sorted(after.items()) if n)))

        def pick(i: int, chosen: list[int], touched: frozenset, left: dict):
            if i == len(cols):
                finish(chosen, left)
                return
            pick(i + 1, chosen, touched, left)
            k = cols[i]
            col = problem.columns[k]
            if col.touch & touched:
                return
            need = _uses(problem, r, k)
            if all(left.get(kind, 0) >= n for kind, n in need.items()):
                after = dict(left)
                for kind, n in need.items():
                    after[kind] = after.get(kind, 0) - n
                pick(i + 1, chosen + [k], touched | col.touch, after)

        pick(0, [], frozenset(), {k: cap.get(k, 0) for k in kinds})
        return out

    def search(i: int, used: frozenset, fire: list, smoke: tuple, hold: list, value: int):
        if i == len(rounds):
            if best[0] is None or value > best[0][0]:
                best[0] = (value, tuple(fire), smoke, tuple(hold))
            return
        r = rounds[i]
        for cols, sm, held in round_choices(r, used):
            touched = used
            for k in cols:
                touched = touched | problem.columns[k].touch
            gain = sum(problem.column_int(k) for k in cols) + sum(problem.smoke_int(o) for o, _ in sm)
            search(i + 1, touched, fire + [(r, cols)], smoke + sm, hold + [(r, held)], value + gain)

    search(0, frozenset(), [], (), [], 0)
    if best[0] is None:
        raise FireplanError("no legal Initial Barrage allocation exists")
    value, fire, smoke, hold = best[0]
    return BarrageSolution(fire, smoke, hold, value, value, "OPTIMAL", "exhaustive", time.perf_counter() - started)


# ------------------------------------------------------------------------------------ the plan
@dataclass(frozen=True, slots=True)
class BlindResult:
    """Expected result on one Blind of the whole barrage plan: ``disruption``, ``p_suppressed`` and
    ``p_dispersed`` are unconditional (over the belief); divide by ``p_real`` for "if real"."""

    blind: str
    p_real: float
    round: int | None
    batteries: tuple[str, ...]
    disruption: float
    p_suppressed: float
    p_dispersed: float
    p_dummy_removed: float
    value: float

    def sentence(self) -> str:
        if self.round is None:
            return f"{self.blind} (real {self.p_real:.0%}): not shelled."
        if self.p_real > 0:
            real = self.p_real
            hit = (f"if real: {self.disruption / real:.2f} expected Disruption, {self.p_suppressed / real:.0%} suppressed, "
                   f"{self.p_dispersed / real:.0%} dispersed")
        else:
            hit = "nothing real can be under it"
        return (
            f"{self.blind} (real {self.p_real:.0%}): round {self.round} by {', '.join(self.batteries)}: {hit}; "
            f"{self.p_dummy_removed:.0%} it is a dummy and is removed; worth {self.value:.2f}."
        )


@dataclass(frozen=True)
class BarragePlan:
    """The Initial Barrage plan of ``side``: per round, which batteries fire on which Blind or smoke."""

    side: str
    method: str
    status: str
    wall_time: float
    rounds: tuple[int, ...]
    allocation: tuple[tuple[int, tuple[tuple[str, tuple[str, ...]], ...], tuple[tuple[str, tuple[float, float], float], ...], tuple[str, ...]], ...]
    per_blind: tuple[BlindResult, ...]
    round_values: tuple[tuple[int, float], ...]
    expected_value: float
    fire_value: float
    smoke_value: float
    bound: float
    situation: object
    beliefs: tuple = ()
    smoke_lines: tuple = ()
    alternatives: tuple = ()
    build_time: float = 0.0
    _actions: tuple = field(default=(), repr=False)

    def actions(self) -> list:
        """The engine actions for the batteries still to allocate in the round being allocated,
        in the order the engine asks for them."""
        return list(self._actions)

    def explain(self) -> str:
        lines = []
        proven = {"OPTIMAL": "proven optimal", "FEASIBLE": "best found"}.get(self.status, self.status)
        lines.append(
            f"Initial Barrage for {self.side} ({self.method}, {proven}, {self.wall_time:.2f} s): rounds {', '.join(map(str, self.rounds))}; "
            f"expected effect {self.expected_value:.2f} ({self.fire_value:.2f} from fire, {self.smoke_value:.2f} from smoke)."
        )
        for r, groups, screens, holding in self.allocation:
            parts = [f"{', '.join(b)} on {blind}" for blind, b in groups]
            parts += [f"{battery} smoke at {p[0]:g},{p[1]:g} bearing {bearing:g}" for battery, p, bearing in screens]
            if holding:
                parts.append(f"{', '.join(holding)} hold (no Blind left)")
            lines.append(f"- Round {r}: " + ("; ".join(parts) or "nothing"))
        lines.append("Expected result per Blind:")
        lines += [f"- {row.sentence()}" for row in self.per_blind]
        if self.smoke_lines:
            lines.append("Smoke for our first move cuts: " + "; ".join(f"{e} -> {v} ({cut:.2f})" for e, v, cut in self.smoke_lines) + ".")
        lines += belief_lines(self.beliefs)
        for rounds, value in self.alternatives:
            lines.append(f"- With {rounds} round{'s' if rounds != 1 else ''}: expected effect {value:.2f}.")
        return "\n".join(lines)


def make_barrage_plan(problem: BarrageProblem, solution: BarrageSolution) -> BarragePlan:
    board = problem.board
    fp = board.fp
    situation = problem.situation
    allocation = []
    actions = []
    fired: dict[str, tuple[int, BarrageColumn, tuple[str, ...]]] = {}
    smoke_by_round = defaultdict(list)
    for o, kind in solution.smoke:
        smoke_by_round[problem.last].append((o, kind))
    holds = dict(solution.hold)
    for r, ks in solution.fire:
        pool = {kind: list(b) for kind, b in problem.kinds.items()}
        if r == problem.rounds[0]:
            pending = set(situation.pending)
            pool = {kind: [b for b in v if b in pending] for kind, v in pool.items()}
        groups, orders = [], {}
        for k in sorted(ks, key=lambda k: problem.columns[k].blind):
            col = problem.columns[k]
            chosen = [a.battery for a in situation.assigned if a.blind == col.blind] if r == problem.rounds[0] else []
            for kind, n in _uses(problem, r, k).items():
                chosen += pool[kind][:n]
                pool[kind] = pool[kind][n:]
            for b in chosen:
                orders[b] = fp.barrage_action(b, col.blind)
            groups.append((col.blind, tuple(sorted(chosen))))
            fired[col.blind] = (r, col, tuple(sorted(chosen)))
        screens = []
        for o, kind in smoke_by_round.get(r, []):
            b = pool[kind].pop(0)
            sm = problem.smoke[o]
            orders[b] = fp.barrage_action(b, None, sm.point, sm.bearing)
            screens.append((b, sm.point, sm.bearing))
        holding = []
        for kind, n in dict(holds.get(r, ())).items():
            for b in pool[kind][:n]:
                orders[b] = fp.barrage_action(b, None)
                holding.append(b)
            pool[kind] = pool[kind][n:]
        if r == problem.rounds[0]:
            actions = [orders[b] for b in situation.pending if b in orders]
        allocation.append((r, tuple(groups), tuple(screens), tuple(holding)))
    per_blind = []
    for blind in problem.blinds:
        belief = board.beliefs[blind]
        if blind in fired:
            r, col, batteries = fired[blind]
            eff = next((e for e in col.effects if e.key == blind), None)
            dummy_w = 1.0 - belief.p_real
            per_blind.append(BlindResult(blind, belief.p_real, r, batteries, eff.disruption if eff else 0.0, eff.p_suppressed if eff else 0.0,
                                         eff.p_dispersed if eff else 0.0, dummy_w, col.value))
        else:
            per_blind.append(BlindResult(blind, belief.p_real, None, (), 0.0, 0.0, 0.0, 0.0, 0.0))
    fire_value = sum(problem.columns[k].value for _, ks in solution.fire for k in ks)
    smoke_value = sum(problem.smoke[o].value for o, _ in solution.smoke)
    lines = tuple(line for o, _ in solution.smoke for line in problem.smoke[o].lines)
    return BarragePlan(
        side=problem.side,
        method=solution.method,
        status=solution.status,
        wall_time=solution.wall_time,
        rounds=problem.rounds,
        allocation=tuple(allocation),
        per_blind=tuple(per_blind),
        round_values=tuple((r, sum(problem.columns[k].value for k in ks) + (smoke_value if r == problem.last else 0.0))
                           for r, ks in solution.fire),
        expected_value=fire_value + smoke_value,
        fire_value=fire_value,
        smoke_value=smoke_value,
        bound=solution.bound / SCALE,
        situation=situation,
        beliefs=tuple(board.beliefs[b] for b in problem.blinds),
        smoke_lines=lines,
        build_time=problem.build_time,
        _actions=tuple(actions),
    )


def plan_barrage(
    state,
    side: str,
    *,
    method: str = "cpsat",
    weights: ValueWeights | None = None,
    max_smoke: int = 1,
    smoke_candidates: int = 12,
    time_limit: float | None = 5.0,
    num_workers: int = 1,
    random_seed: int = 0,
) -> BarragePlan:
    """Plan ``side``'s Initial Barrage now (re-plan after each round: what it revealed updates the
    belief). Before a D3 of rounds is rolled (CHQ-26) each number of rounds is planned; the plan
    returned is the one for two rounds and ``alternatives`` gives the expected effect of each
    and their mean. ``time_limit`` is the whole call's (``None``: no limit, the same plan on any
    machine); each number of rounds gets its share of what is left, and greedy's plan when too
    little is."""
    fp = state.fire_planning()
    situation = fp.barrage_situation(side)
    if situation.round is not None or len(situation.rounds) == 1:
        options = [(None, 1.0)]
    else:
        options = [(r, float(p)) for r, p in situation.rounds]
    if method not in ("cpsat", "greedy", "exhaustive"):
        raise FireplanError(f"unknown barrage planning method {method!r}: cpsat, greedy or exhaustive")
    deadline = Deadline.after(time_limit if method == "cpsat" else None)
    plans = []
    for i, (rounds, p) in enumerate(options):
        share = deadline.share(1.0 / (len(options) - i))  # each number of rounds its part of what is left
        problem = build_barrage(state, side, rounds=rounds, weights=weights, max_smoke=max_smoke, smoke_candidates=smoke_candidates,
                                deadline=share.share(BUILD_SHARE))
        if method == "exhaustive":
            solution = solve_barrage_exhaustive(problem)
        elif method == "cpsat" and share.remaining * SOLVER_SHARE >= MIN_SOLVER_SECONDS:
            try:
                solution = solve_barrage_cpsat(problem, time_limit=share.remaining * SOLVER_SHARE, num_workers=num_workers,
                                               random_seed=random_seed)
            except FireplanError:  # nothing found in the time left
                solution = solve_barrage_greedy(problem)
        else:
            solution = solve_barrage_greedy(problem)
        plans.append((rounds, p, make_barrage_plan(problem, solution)))
    if len(plans) == 1:
        return plans[0][2]
    from dataclasses import replace

    mean = sum(p * plan.expected_value for _, p, plan in plans)
    chosen = next(plan for r, _, plan in plans if r == 2) if any(r == 2 for r, _, _ in plans) else plans[-1][2]
    alternatives = tuple((r, plan.expected_value) for r, _, plan in plans) + (("D3 (mean)", mean),)
    return replace(chosen, alternatives=alternatives)
