"""Plan smoke on a real game state: the ruleset's candidates, the known sight lines, a solver.

:func:`plan_smoke` is the smoke planner end to end. Everything it uses comes from the ruleset
through the state's planner hooks, and from what ``side`` knows:

- *candidates*: ``state.smoke_options(side)`` (battery smoke, dischargers, grenades, ...);
- *sight lines*: the edges of :func:`agent.visibility.visibility_graph` (built from
  ``state.known_pieces`` / ``state.sight_between``, so an enemy Blind is a marker and nothing
  hidden is read): every enemy unit's line to one of our units or route waypoints whose threat is
  known, and every line of ours to an enemy unit as one of our own fire lanes (``own=True``);
- *values*: for each line, the exact threat that smoke on it removes, at partial and at full
  density, asked of the ruleset: ``state.sight_between`` of that one pair with a thin screen of
  that density laid across the middle of the line, and its threat subtracted from the line's
  threat without smoke. No rule is re-implemented here: a ruleset in which any screen obscures
  gives equal values, one in which partial smoke only weakens fire gives less at partial;
- *budget*: ``state.smoke_resources(side)`` (each battery once, the Staff Orders in hand, each
  single-use item once), and for each battery the fire it gives up (CHQ-12) valued as the best
  ``state.threat(battery, enemy)`` over the enemy units ``side`` sees (0 when it sees none).

The lines of tick ``t`` (``0 <= t < ticks``) are today's lines again: the planner assumes the
pieces stand where they are (or at the given waypoints) and judges each option's screens as the
ruleset says they will be at that tick (a MET screen laid now is partial next period).

Examples
--------
>>> from engine.scenario import load_scenario
>>> state = load_scenario("maps/met_calm_bocage.json").new_game(seed=0)
>>> plan = plan_smoke(state, "gb", method="greedy")
>>> plan.actions == tuple(a for o in plan.options for a in o.actions)
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace

from agent.budget import Deadline
from engine.errors import FireplanError
from engine.geometry import Density, Screen, rectangle

from ..visibility import visibility_graph
from .coverage import SightLine, build_coverage
from .cpsat import solve_cpsat
from .exhaustive import solve_exhaustive
from .greedy import solve_greedy
from .plan import Budget, SmokePlan

__all__ = ["StateSmokePlan", "plan_smoke", "smoke_budget", "smoke_sight_lines"]

METHODS = ("cpsat", "greedy", "exhaustive")

#: The probe screen laid across a line to ask the ruleset what smoke on it removes: this share
#: of the line's length across it, and this share along it, centred on the line's middle.
_PROBE_WIDTH, _PROBE_DEPTH = 0.2, 0.02
#: Of the time left: valuing the batteries' fire may take this share, then weighing the sight
#: lines this share; CP-SAT gets this share of what is left after the coverage is built; below
#: this many seconds the plan is greedy's.
BUDGET_SHARE, LINES_SHARE, SOLVER_SHARE, MIN_SOLVER_SECONDS = 0.25, 0.5, 0.85, 0.02
#: Shorter lines than this (pieces in base contact) cannot have a screen laid across them.
_MIN_LINE = 1e-3


@dataclass(frozen=True, slots=True)
class StateSmokePlan(SmokePlan):
    """A :class:`SmokePlan` made on a game state, whose :attr:`actions` a player can apply."""

    side: str = ""

    @property
    def actions(self) -> tuple:
        """The engine actions that lay the plan, option by option, in order."""
        return tuple(action for option in self.options for action in option.actions)


def _probe(a, b, density: Density) -> Screen:
    (ax, ay), (bx, by) = a, b
    length = math.hypot(bx - ax, by - ay)
    bearing = math.degrees(math.atan2(bx - ax, by - ay))
    polygon = rectangle(((ax + bx) / 2, (ay + by) / 2), width=_PROBE_WIDTH * length,
                        depth=max(_PROBE_DEPTH * length, 1e-6), bearing=bearing)
    return Screen(polygon, (density,), 0, "probe")


def _threat_through(state, side, observer_ref, target_ref, a, b, density) -> float:
    """The observer's threat on the target with a screen of ``density`` across the line (ruleset)."""
    table = state.sight_between(side, [observer_ref], [target_ref], screens=[_probe(a, b, density)])
    if not table["visible"][0, 0]:
        return 0.0
    value = float(table["threat"][0, 0])
    return 0.0 if math.isnan(value) else value


def smoke_sight_lines(state, side: str, *, ticks: int = 1, waypoints: Mapping | None = None,
                      deadline: Deadline | None = None) -> list[SightLine]:
    """The sight lines the planner weighs, as ``side`` knows the table (see the module docstring).

    Enemy unit -> our unit or waypoint, with known threat > 0: ``own=False``. Our unit -> enemy
    unit, with known threat > 0: ``own=True``. Each is repeated for ticks ``0 .. ticks - 1``.
    Lines are weighed most threatening first; when ``deadline`` passes the rest are left out.
    """
    graph = visibility_graph(state, side, waypoints=dict(waypoints or {}))
    edges = [(a, b, edge) for a, b, edge in graph.edges(data=True)
             if edge.get("threat") is not None and edge["threat"] > 0.0]  # unknown (a Blind at either end) or harmless
    edges.sort(key=lambda item: -item[2]["threat"])
    base = []
    for a, b, edge in edges:
        if base and deadline is not None and deadline.passed:  # the most threatening line at least
            break
        threat = edge["threat"]
        na, nb = graph.nodes[a], graph.nodes[b]
        if na["kind"] != "unit":
            continue  # our waypoints look out too; only units fire now
        own = na["side"] == side
        if own and nb["kind"] != "unit":
            continue
        p, q = edge["line"]
        if math.dist(p, q) < _MIN_LINE:
            continue  # pieces in contact: no screen fits between them
        values = []
        for density in (Density.PARTIAL, Density.FULL):
            values.append(max(0.0, threat - _threat_through(state, side, na["ref"], nb["ref"], p, q, density)))
        partial, full = values
        if full < partial:  # a ruleset's full smoke never helps less than its partial smoke
            full = partial
        if full <= 0.0:
            continue
        target_id = b if isinstance(b, str) else f"{b[1]} at waypoint {b[2]}"
        base.append((p, q, (partial, full), own, str(a), target_id))
    return [
        SightLine(p, q, t, values, own=own, observer_id=o, target_id=tg)
        for t in range(ticks)
        for p, q, values, own, o, tg in base
    ]


def smoke_budget(state, side: str, options=None, *, own_lane_penalty: float = 1.0,
                 max_options: int | None = None, deadline: Deadline | None = None) -> Budget:
    """The budget of ``side``'s smoke now: ``state.smoke_resources(side)`` for the capacities and,
    for every resource that is a battery, its best ``state.threat`` at an enemy unit ``side``
    sees as ``battery_fire_value`` (resources with no such fire get none: nothing is given up).
    Resources not yet weighed when ``deadline`` passes are valued as the dearest one weighed."""
    capacities = dict(state.smoke_resources(side) if options is None else state.smoke_resources(side, options=options))
    if options is not None:
        for option in options:
            for name, _ in option.resources:
                capacities.setdefault(name, 0)  # not offered by the ruleset now: unusable
    enemies = [p["id"] for p in state.known_pieces(side) if p["side"] != side and p["kind"] == "unit"]
    fire, unweighed = {}, []
    for name in capacities:
        if fire and deadline is not None and deadline.passed:
            unweighed.append(name)
            continue
        best = max((float(state.threat(name, e)) for e in enemies), default=0.0)
        if best > 0.0:
            fire[name] = best
    dearest = max(fire.values(), default=0.0)
    fire.update({name: dearest for name in unweighed if dearest > 0.0})
    return Budget(capacities, max_options=max_options, battery_fire_value=fire, own_lane_penalty=own_lane_penalty)


def plan_smoke(
    state,
    side: str,
    *,
    method: str = "cpsat",
    ticks: int = 1,
    waypoints: Mapping[str, Sequence[tuple[float, float]]] | None = None,
    scenarios: int = 1,
    seed: int = 0,
    time_limit: float = 2.0,
    num_workers: int = 2,
    budget: Budget | None = None,
) -> StateSmokePlan:
    """The smoke ``side`` should lay now: a :class:`StateSmokePlan` with the ``actions`` to apply.

    Parameters
    ----------
    state:
        A CHQ or MET state; it is read, never changed.
    side:
        Who plans; only what it knows is used.
    method:
        ``"cpsat"`` (optimal or best found in ``time_limit``), ``"greedy"`` or ``"exhaustive"``.
    ticks:
        Ticks (CHQ pulses/phases, MET periods) over which lines count, from now.
    waypoints:
        ``{unit: [(x, y), ...]}``: route points of our units, whose enemy lines count too.
    scenarios, seed:
        Deviation scenarios (1: as aimed) and their seed; the same seed gives the same plan.
    time_limit, num_workers:
        The whole call's seconds (valuing the batteries' fire may take :data:`BUDGET_SHARE`
        of it, weighing the sight lines, the most threatening first, :data:`LINES_SHARE` of the rest; CP-SAT gets what is left, and with too little left the
        plan is greedy's, ``stats`` saying ``degraded``), and CP-SAT's workers.
    budget:
        Overrides :func:`smoke_budget`.
    """
    if method not in METHODS:
        raise FireplanError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if isinstance(ticks, bool) or not isinstance(ticks, int) or ticks < 1:
        raise FireplanError(f"ticks must be a whole number >= 1, got {ticks!r}")
    deadline = Deadline.after(time_limit if method != "exhaustive" else None)
    options = list(state.smoke_options(side))
    budget = budget if budget is not None else smoke_budget(state, side, options, deadline=deadline.share(BUDGET_SHARE))
    lines = smoke_sight_lines(state, side, ticks=ticks, waypoints=waypoints, deadline=deadline.share(LINES_SHARE))
    coverage = build_coverage(options, lines, scenarios=scenarios, seed=seed)
    left = deadline.remaining * SOLVER_SHARE
    if method == "cpsat" and left >= MIN_SOLVER_SECONDS:
        plan = solve_cpsat(coverage, budget, time_limit=left, num_workers=num_workers, seed=seed)
    elif method in ("cpsat", "greedy"):
        plan = solve_greedy(coverage, budget)
        if method == "cpsat":
            plan = replace(plan, stats=plan.stats + (("degraded", 1.0),))  # no time left for CP-SAT
    else:
        plan = solve_exhaustive(coverage, budget)
    return StateSmokePlan(**{f.name: getattr(plan, f.name) for f in fields(SmokePlan)}, side=side)
