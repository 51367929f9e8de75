"""A fire plan: the chosen missions as engine actions, their exact expected value, and why.

:func:`make_plan` turns a solver's :class:`~agent.fires.solution.Solution` into a
:class:`FirePlan`: every battery gets its concrete order (a call, a smoke mission from the smoke
plan, or rest), the calls become the engine's actions (fire first, strongest first, then smoke,
so a screen never blinds one of our own FOs), and the plan's value is recomputed *jointly*:
the missions are followed in call order through every piece they can reach, so a unit
suppressed, forced back or dispersed by one mission meets the next as it then is. That joint
``expected_value`` is exact for the plan's actions (the tests check it against an enumeration of
the engine's own chance nodes); ``model_value`` is what the solver maximised (the columns'
values added up), and the two differ only when templates of different columns can reach the
same piece after deviation.

:func:`plan_fires` does it all: build the problem, solve it, make the plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from agent.budget import Deadline
from engine.errors import FireplanError

from .board import Board, PieceValue, ValueWeights, belief_lines
from .columns import SCALE, Column, FireProblem, PieceEffect, SmokeChoice, build_problem, evaluate_missions, mission_of, piece_effects
from .solution import Solution

__all__ = ["FireOrder", "FirePlan", "make_plan", "plan_fires", "BUILD_SHARE"]

#: Of a call's ``time_limit``: building the columns may take this share; CP-SAT gets this share
#: of what is left (the rest covers building its model and making the plan); below this many
#: seconds CP-SAT is not started.
BUILD_SHARE, SOLVER_SHARE, MIN_SOLVER_SECONDS = 0.6, 0.8, 0.02


@dataclass(frozen=True, slots=True)
class FireOrder:
    """One chosen column with its batteries and the engine actions that carry it out."""

    column: Column
    batteries: tuple[str, ...]
    fo: str
    actions: tuple


@dataclass(frozen=True)
class FirePlan:
    """What every Direct Support battery of ``side`` does this pulse, and what it is worth.

    Attributes
    ----------
    orders:
        The fire missions, in call order.
    smoke:
        The smoke choices taken (their batteries fire nothing else this turn, CHQ-12).
    resting:
        Free batteries given nothing to do.
    expected_value:
        Exact expected effect of :meth:`actions` once they are applied and their chance nodes
        resolved, before anything else happens (joint over all missions), plus the values of
        the smoke choices as handed in.
    followup_value:
        Expected extra effect in this pulse's Logistics Phase (delayed arrivals, continuous
        refires), each mission counted as if alone.
    model_value:
        The solver's objective (column values net of ``staff_order`` per Staff Order, plus smoke).
    """

    side: str
    method: str
    status: str
    wall_time: float
    orders: tuple[FireOrder, ...]
    smoke: tuple[SmokeChoice, ...]
    resting: tuple[str, ...]
    expected_value: float
    fire_value: float
    smoke_value: float
    followup_value: float
    model_value: float
    bound: float
    staff: int
    staff_cost: float
    effects: tuple[PieceEffect, ...]
    targets: tuple[PieceValue, ...]
    beliefs: tuple = ()
    build_time: float = 0.0
    stats: dict = field(default_factory=dict)

    def actions(self) -> list:
        """The engine actions, in order: fire calls (strongest first), then smoke missions."""
        out = [a for order in self.orders for a in order.actions]
        for choice in self.smoke:
            out.extend(choice.actions)
        return out

    @property
    def uses_tot(self) -> bool:
        return any(o.column.mode == "tot" for o in self.orders)

    def explain(self) -> str:
        """The plan in plain words: each battery's order, the odds, and the reasons."""
        proven = {"OPTIMAL": "proven optimal", "FEASIBLE": "best found, not proven", "HEURISTIC": "greedy"}.get(self.status, self.status)
        lines = []
        if not self.orders and not self.smoke:
            lines.append(f"Fire plan for {self.side} ({self.method}, {proven}): no mission is worth its Staff Order now; every battery rests.")
        else:
            n = len(self.orders) + len(self.smoke)
            lines.append(
                f"Fire plan for {self.side} ({self.method}, {proven}, {self.wall_time:.2f} s): {n} mission{'s' if n != 1 else ''}, "
                f"{self.staff} Staff Order{'s' if self.staff != 1 else ''}; expected effect {self.expected_value:.2f} "
                f"Disruption-equivalents now, {self.followup_value:+.2f} more in our Logistics Phase."
            )
        for order in self.orders:
            c = order.column
            hits = [e for e in c.effects if not e.own and e.p_touched > 0.005]
            risk = [e for e in c.effects if e.own and e.p_touched > 0.0005]
            what = "; ".join(
                f"{e.label}: affected {e.p_touched:.0%}, {e.disruption:.2f} Disruption, {e.p_suppressed:.0%} suppressed, {e.p_dispersed:.0%} dispersed"
                for e in sorted(hits, key=lambda e: -e.value)
            ) or "nothing under it"
            lines.append(
                f"- {', '.join(order.batteries)}: {c.label}, FO {order.fo}. Comms {c.comms:.0%} "
                f"(else it lands in our Logistics Phase, without suppressing before our move). {what}. "
                f"Worth {c.now:.2f} now and {c.followup:+.2f} later, less {c.staff} Staff Order{'s' if c.staff != 1 else ''}."
            )
            for e in risk:
                lines.append(f"  Risk: it may deviate onto {e.label} ({e.p_touched:.1%}, {e.value:+.2f}).")
        for choice in self.smoke:
            lines.append(f"- {choice.battery}: smoke ({choice.label or ', '.join(map(str, choice.actions))}), worth {choice.value:.2f} as the smoke plan rates it; it fires nothing else this turn (CHQ-12).")
        if self.resting:
            lines.append(f"- Resting: {', '.join(self.resting)}.")
        if self.targets:
            lines.append("Targets:")
            for t in self.targets:
                lines.append(f"- {t.label}: {t.why()}.")
        lines += belief_lines(self.beliefs)
        if self.orders:
            alone = sum(o.column.now for o in self.orders)
            if abs(alone - self.fire_value) >= 0.005:
                lines.append(
                    f"(Counted alone the missions are worth {alone:.2f} now; taken together, where templates can reach the same "
                    f"piece after deviation, {self.fire_value:.2f}.)"
                )
        return "\n".join(lines)


def _assign(problem: FireProblem, solution: Solution) -> tuple[list[tuple[Column, tuple[str, ...]]], list[SmokeChoice], list[str]]:
    smoke = [problem.smoke[j] for j in solution.smoke]
    taken = {s.battery for s in smoke}
    columns = sorted((problem.columns[i] for i in solution.columns), key=lambda c: (-c.value, c.index))
    pools = {k: [b for b in v if b not in taken] for k, v in problem.kinds.items()}
    out = []
    for c in columns:
        batteries = []
        for kind, n in c.kinds:
            if len(pools.get(kind, [])) < n:
                raise FireplanError(f"the solution uses more {kind} batteries than are free")
            batteries += pools[kind][:n]
            pools[kind] = pools[kind][n:]
        out.append((c, tuple(batteries)))
    resting = sorted(b for v in pools.values() for b in v)
    return out, smoke, resting


def make_plan(problem: FireProblem, solution: Solution) -> FirePlan:
    """A :class:`FirePlan` of ``solution``: concrete batteries, engine actions, joint exact value."""
    board: Board = problem.board
    if board is None:
        raise FireplanError("this problem has no board (it was not built from a game state)")
    fp = board.fp
    assigned, smoke, resting = _assign(problem, solution)
    orders, missions = [], []
    for column, batteries in assigned:
        if column.mode == "salvo":
            options = [fp.fire_option(problem.side, (b,), column.aim, column.sheaf, "single") for b in batteries]
        else:
            options = [fp.fire_option(problem.side, batteries, column.aim, column.sheaf, column.duration)]
        missions += [mission_of(board, o) for o in options]
        orders.append(FireOrder(column, batteries, options[0].fo, tuple(o.action for o in options)))
    fire_value, finals = evaluate_missions(board, missions)
    smoke_value = sum(s.value for s in smoke)
    staff = sum(c.staff for c, _ in assigned) + sum(s.staff for s in smoke)
    staff_cost = board.weights.staff_order * sum(c.staff for c, _ in assigned)
    effects = piece_effects(board, finals)
    touched = {e.key for e in effects}
    targets = [t.value for t in board.tracks if not t.value.own and t.key in touched and t.hypothesis != "dummy"]
    return FirePlan(
        side=problem.side,
        method=solution.method,
        status=solution.status,
        wall_time=solution.wall_time,
        orders=tuple(orders),
        smoke=tuple(smoke),
        resting=tuple(resting),
        expected_value=fire_value + smoke_value,
        fire_value=fire_value,
        smoke_value=smoke_value,
        followup_value=sum(c.followup for c, _ in assigned),
        model_value=solution.objective / SCALE,
        bound=solution.bound / SCALE,
        staff=staff,
        staff_cost=staff_cost,
        effects=effects,
        targets=tuple(targets),
        beliefs=tuple(b for k, b in sorted(board.beliefs.items()) if k in touched),
        build_time=problem.build_time,
        stats=dict(problem.stats, **dict(solution.stats)),
    )


def plan_fires(
    state,
    side: str,
    *,
    method: str = "cpsat",
    smoke: Sequence[SmokeChoice] = (),
    weights: ValueWeights | None = None,
    time_limit: float | None = 5.0,
    num_workers: int = 1,
    random_seed: int = 0,
    **build,
) -> FirePlan:
    """Plan ``side``'s Direct Support fire now: build the columns, solve, make the plan.

    ``method`` is ``"cpsat"``, ``"greedy"`` or ``"exhaustive"``; ``build`` goes to
    :func:`~agent.fires.columns.build_problem` (``max_group``, ``max_salvo``, ``aims``).
    ``time_limit`` is the whole call: the columns get up to :data:`BUILD_SHARE` of it (the most
    promising aims first), CP-SAT what is left; with too little left, or no solution found in
    it, the plan is greedy's on the columns built (``stats["degraded"]`` says why). ``None``: no
    limit, so the plan is the same on any machine.
    """
    from .cpsat import solve_cpsat
    from .exhaustive import solve_exhaustive
    from .greedy import solve_greedy

    if method not in ("cpsat", "greedy", "exhaustive"):
        raise FireplanError(f"unknown fire planning method {method!r}: cpsat, greedy or exhaustive")
    deadline = Deadline.after(time_limit if method != "exhaustive" else None)
    problem = build_problem(state, side, smoke=smoke, weights=weights, deadline=deadline.share(BUILD_SHARE), **build)
    if method == "cpsat":
        left = deadline.remaining * SOLVER_SHARE
        solution = None
        if left >= MIN_SOLVER_SECONDS:
            try:
                solution = solve_cpsat(problem, time_limit=left, num_workers=num_workers, random_seed=random_seed)
            except FireplanError:
                problem.stats["degraded"] = "CP-SAT found no plan in the time left: greedy plan"
        else:
            problem.stats["degraded"] = "no time left for CP-SAT: greedy plan"
        solution = solution or solve_greedy(problem)
    elif method == "greedy":
        solution = solve_greedy(problem)
    else:
        solution = solve_exhaustive(problem)
    return make_plan(problem, solution)
