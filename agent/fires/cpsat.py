"""The battery-allocation model in CP-SAT: weapon-target assignment over precomputed columns.

One Boolean per column (aim, battery group, sheaf, single/continuous, mode) and one per smoke
choice handed in; each carries its exact expected value (see :mod:`agent.fires.columns`).

Constraints (CHQ rules in brackets):

- batteries: the columns' battery counts per kind plus the batteries that smoke fit the free
  batteries of each kind; a battery smokes at most once (CHQ-17: one mission a turn; CHQ-12:
  smoke *or* fire);
- Staff Orders: one per battery per mission, one per smoke mission (CHQ-17, CHQ-23, CHQ-24);
- one column per aim point, and at most one column whose template (before deviation) covers
  any one enemy piece -- several batteries on one target are one ToT or salvo column, whose
  value counts their interaction exactly;
- time-on-target only where the engine offers it (Commonwealth and USA, CHQ-24) and an FO who
  sees the template centre (CHQ-17, CHQ-12): columns exist only for legal calls.

Objective: the sum of the chosen values (integers at ``columns.SCALE``). The model follows the
OR-Tools sample style: data, variables, constraints, objective, solve, extract.
"""

from __future__ import annotations

import time
from collections import defaultdict

from ortools.sat.python import cp_model

from engine.errors import FireplanError

from .columns import FireProblem
from .greedy import solve_greedy
from .solution import Solution

__all__ = ["solve_cpsat"]

_ACCEPTED = {cp_model.OPTIMAL: "OPTIMAL", cp_model.FEASIBLE: "FEASIBLE"}


def solve_cpsat(
    problem: FireProblem,
    *,
    time_limit: float = 5.0,
    num_workers: int = 1,
    random_seed: int = 0,
    hint: bool = True,
    deterministic: bool = True,
) -> Solution:
    """Solve the allocation to proven optimality (or the best found within ``time_limit``).

    Deterministic for a seed: one worker (the default) is; with more workers ``deterministic``
    turns on CP-SAT's ``interleave_search`` (reproducible, but much slower here than one worker).

    Raises
    ------
    FireplanError
        If CP-SAT reports anything but OPTIMAL or FEASIBLE.
    """
    started = time.perf_counter()

    # ---------------------------------------------------------------- data
    columns = [i for i in range(len(problem.columns)) if problem.column_int(i) > 0]
    smoke = [j for j in range(len(problem.smoke)) if problem.smoke_int(j) > 0]
    model = cp_model.CpModel()
    model.name = f"fire-allocation-{problem.side}"

    # ---------------------------------------------------------------- variables
    x = {i: model.new_bool_var(f"fire_{i}_{problem.columns[i].mode}_{problem.columns[i].aim[0]:g}_{problem.columns[i].aim[1]:g}") for i in columns}
    s = {j: model.new_bool_var(f"smoke_{j}_{problem.smoke[j].battery}") for j in smoke}

    # ---------------------------------------------------------------- constraints
    # batteries of each kind: fire columns plus batteries that smoke
    use: dict = defaultdict(list)
    for i in columns:
        for kind, n in problem.columns[i].kinds:
            use[kind].append((n, x[i]))
    by_battery: dict = defaultdict(list)
    for j in smoke:
        battery = problem.smoke[j].battery
        use[problem.kind_of(battery)].append((1, s[j]))
        by_battery[battery].append(s[j])
    for kind, terms in sorted(use.items()):
        model.add(sum(n * v for n, v in terms) <= len(problem.kinds.get(kind, ()))).with_name(f"batteries_{kind}")
    for battery, terms in sorted(by_battery.items()):
        model.add_at_most_one(terms).with_name(f"smoke_once_{battery}")
    # Staff Orders
    model.add(
        sum(problem.columns[i].staff * x[i] for i in columns) + sum(problem.smoke[j].staff * s[j] for j in smoke) <= problem.staff
    ).with_name("staff_orders")
    # one column per aim, one per enemy piece under a template before deviation
    by_aim: dict = defaultdict(list)
    by_piece: dict = defaultdict(list)
    for i in columns:
        by_aim[problem.columns[i].aim].append(x[i])
        for key in problem.columns[i].on_target:
            by_piece[key].append(x[i])
    for aim, terms in sorted(by_aim.items()):
        if len(terms) > 1:
            model.add_at_most_one(terms).with_name(f"aim_{aim[0]:g}_{aim[1]:g}")
    for key, terms in sorted(by_piece.items()):
        if len(terms) > 1:
            model.add_at_most_one(terms).with_name(f"target_{key}")

    # ---------------------------------------------------------------- objective
    model.maximize(sum(problem.column_int(i) * x[i] for i in columns) + sum(problem.smoke_int(j) * s[j] for j in smoke))
    if hint:
        start = solve_greedy(problem)
        for i in columns:
            model.add_hint(x[i], i in start.columns)
        for j in smoke:
            model.add_hint(s[j], j in start.smoke)

    # ---------------------------------------------------------------- solve
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = int(num_workers)
    solver.parameters.random_seed = int(random_seed)
    solver.parameters.interleave_search = bool(deterministic) and int(num_workers) > 1
    status = solver.solve(model)
    if status not in _ACCEPTED:
        raise FireplanError(f"CP-SAT could not solve the fire allocation: {solver.status_name(status)}")

    # ---------------------------------------------------------------- extract
    chosen = tuple(i for i in columns if solver.boolean_value(x[i]))
    smoked = tuple(j for j in smoke if solver.boolean_value(s[j]))
    objective = problem.value_int(chosen, smoked)
    if objective != int(round(solver.objective_value)):
        raise FireplanError(f"CP-SAT objective {solver.objective_value} disagrees with its solution's value {objective}")
    return Solution(
        chosen,
        smoked,
        objective,
        int(round(solver.best_objective_bound)),
        _ACCEPTED[status],
        "cpsat",
        time.perf_counter() - started,
        (("solver_seconds", solver.wall_time), ("branches", float(solver.num_branches)), ("variables", float(len(columns) + len(smoke)))),
    )
