"""Plan sources: where the search's candidate macro-actions come from.

A plan source looks at a world (sampled from the player's observation) at the start of one of
the player's scopes and proposes a few :class:`~agent.search.macro.Plan` values. Sources plug
in: anything with a ``name`` and ``plans(world, side, simulator, rng) -> list[Plan]`` will do,
so the fire and smoke planners join the search as sources. The built-in ones:

- :class:`GreedySource`: the greedy player's plan (one-step exact expectation per order), and
  plans that open with the greedy ranking's next best orders instead (its alternatives). On MET
  its orders also weigh destinations off the engine's lattice
  (:mod:`agent.search.destinations`), at every order or at the first only.
- :class:`MovementSource`: one plan per posture (advance along the route to the objectives,
  assault, take cover, hold, withdraw), built from the engine's legal actions.
- :class:`FireSource`: the best artillery missions by exact expected effect (the ruleset's
  ``describe_actions``: Comms Check x deviation x fire odds), each fired at the first chance
  in the scope, time-on-target included when the ruleset offers it.
- :class:`SmokeSource`: the smoke planner (:mod:`agent.smoke`: coverage of the enemy's sight
  lines to our units by the ruleset's ``smoke_options``, solved greedily) gives the top few
  diverse smoke plans, each laid first and then held behind or advanced through.
- :class:`PlannerFireSource` and :class:`PlannerBarrageSource`: the fire planner's battery
  allocation and Initial Barrage (:mod:`agent.fires`), when it is installed.
"""

from __future__ import annotations

import time
from typing import Hashable, Protocol, Sequence

import numpy as np

from engine.game import GameState

from ..players.base import PlannedAction
from .destinations import NO_MORE_MOVES, RingMoves
from .evaluation import DEFAULT_WEIGHTS, Weights
from .macro import Plan, Replay, Simulator
from .memory import ChoiceMemory
from .policy import POSTURES, PosturePolicy

__all__ = [
    "PlanSource",
    "MovementSource",
    "GreedySource",
    "FireSource",
    "SmokeSource",
    "PlannerFireSource",
    "PlannerBarrageSource",
    "default_sources",
    "probe",
]


#: The source named by the greedy plan's alternatives (:class:`GreedySource`).
ALTERNATIVE = "greedy alternative"


class PlanSource(Protocol):
    name: str

    def plans(self, world: GameState, side: str, simulator: Simulator, rng: np.random.Generator) -> list[Plan]:
        """Candidate plans for ``side``'s scope starting in ``world`` (which must not be changed)."""


def probe(world: GameState, side: str, simulator: Simulator, wanted: Sequence[str], detail: bool = False):
    """Play the balanced posture through ``side``'s scope in a clone until a decision offers an
    action of one of the ``wanted`` kinds; return (that clone, its actions, their descriptions)
    or None. Planners use it to reach, e.g., the pulse decision after a CHQ chain."""
    state = world.clone()
    scope = state.plan_scope(side)
    policy = PosturePolicy(POSTURES["balanced"])
    for _ in range(200):
        simulator.check()
        simulator.to_decision(state)
        if state.is_terminal() or state.plan_scope(side) != scope:
            return None
        if state.current_player() != side:
            state.apply_action(simulator.default_choice(state)[0])
            continue
        actions = state.legal_actions()
        infos = state.describe_actions(actions, detail=detail)
        if any(info["kind"] in wanted for info in infos):
            return state, actions, infos
        state.apply_action(policy.choose(state)[0])
    return None


class MovementSource:
    """One plan per posture: the movement options of the scope."""

    name = "movement"

    def __init__(self, postures: Sequence[str] = ("balanced", "advance", "assault", "cover", "hold", "withdraw")):
        self.postures = tuple(postures)

    def plans(self, world, side, simulator, rng):
        out = []
        for name in self.postures:
            posture = POSTURES[name]
            out.append(simulator.record_plan(world, side, PosturePolicy(posture), label=f"{name}: {posture.reason}",
                                             source=self.name))
        return out


class GreedySource:
    """The greedy plan: the best one-step expected value at each decision of the scope
    (:class:`agent.players.greedy.GreedyPolicy`), so the search always weighs what a careful
    one-step player would do against the other plans.

    With ``alternatives``, also plans that first give one of the next best orders of the greedy
    ranking (at most that many, valued within ``margin`` of the best) and then the greedy plan's
    orders that are still legal: the rollout algorithm's candidates (Bertsekas), which settle by
    simulation what one step cannot tell apart. Each differs from the greedy plan in about one
    order, so in the paired test against it (same worlds, same dice) the difference is that
    order's, not the dice's.

    ``more`` (e.g. :class:`~agent.search.destinations.RingMoves`) adds orders the engine does not
    list to the greedy choice's, at the plan's first order only when ``more_first_only``.
    """

    name = "greedy"

    def __init__(self, alternatives: int = 0, margin: float = 0.1, more: RingMoves = NO_MORE_MOVES,
                 more_first_only: bool = False, memory: ChoiceMemory | None = None, **options):
        self.alternatives = alternatives
        self.memory = memory  # the rankings of the player's earlier searches this scope
        self.margin = margin
        self.more = more
        self.more_first_only = more_first_only
        self.options = options

    def plans(self, world, side, simulator, rng):
        from agent.players.greedy import GreedyPolicy

        first = GreedyPolicy(rng, check=simulator.check, more=self.more, memory=self.memory, **self.options)
        later = GreedyPolicy(rng, check=simulator.check, memory=self.memory, **self.options) if self.more_first_only else first
        policy = _FirstRanking(first, later)
        greedy = simulator.record_plan(world, side, policy, label="greedy: the best one-step expected value at each order",
                                       source=self.name)
        return [greedy] + self._alternatives(world, side, simulator, greedy, policy.first)

    def _alternatives(self, world, side, simulator, greedy: Plan, ranking) -> list[Plan]:
        if not self.alternatives or not ranking or not greedy.steps or greedy.steps[0].action != ranking[0][1]:
            return []
        best = ranking[0][0]
        out = []
        for rank, (value, action) in enumerate(ranking[1:], start=2):
            if len(out) >= self.alternatives or value < best - self.margin:
                break
            reason = f"greedy's order #{rank}: one-step expected value {value:+.3f} against {best:+.3f}"
            replay = Replay((PlannedAction(action, reason),) + greedy.steps, greedy.posture, follow="greedy")
            out.append(simulator.record_plan(world, side, replay, label=f"greedy, opening with {action} (its order #{rank})",
                                             source=ALTERNATIVE))
        return out


class _FirstRanking:
    """The greedy choice, keeping its ranking of the first decision it makes (empty when that
    decision had one order only); ``later`` makes the decisions after the first.

    The plan's first order is the one the player gives (it searches again at the next), so
    destinations off the lattice are weighed there; the rest of the scope only values that
    order, and a ranking with them takes 4-9x as long as one on the lattice."""

    follow = "greedy"

    def __init__(self, policy, later=None):
        self.policy = policy
        self.later = later or policy
        self.posture = policy.posture
        self.first = None

    def choose(self, world):
        if self.first is not None:
            return self.later.choose(world)
        choice = self.policy.choose(world)
        self.first = list(self.policy.ranking)
        return choice


class FireSource:
    """The ``top`` artillery missions by exact expected effect, on different targets."""

    name = "fire"

    def __init__(self, top: int = 3, postures: Sequence[str] = ("balanced",), chunk: int = 64):
        self.top = top
        self.postures = tuple(postures)
        self.chunk = chunk  # calls valued between two looks at the clock

    def plans(self, world, side, simulator, rng):
        found = probe(world, side, simulator, ("artillery",))
        if found is None:
            return []
        state, actions, kinds = found
        artillery = [i for i, info in enumerate(kinds) if info["kind"] == "artillery"]
        infos = {}
        for start in range(0, len(artillery), self.chunk):  # valuing every call on a big board takes long
            simulator.check()
            chunk = artillery[start:start + self.chunk]
            infos.update(zip(chunk, state.describe_actions([actions[i] for i in chunk], detail=True)))
        scored = [(_fire_value(info), i) for i, info in infos.items() if info.get("harm", 0.0) > 0.0]
        scored.sort(key=lambda t: (-t[0], t[1]))
        chosen, aims = [], []
        for score, i in scored:
            at = infos[i].get("at")
            if any(at is not None and a is not None and np.hypot(at[0] - a[0], at[1] - a[1]) < 1e-6 for a in aims):
                continue
            chosen.append(i)
            aims.append(at)
            if len(chosen) >= self.top:
                break
        out = []
        for i in chosen:
            info = infos[i]
            label = (f"fire: {actions[i]} (expected harm {info.get('harm', 0):.2f}, "
                     f"{info.get('kill', 0):.0%} to knock out)")
            for name in self.postures:
                out.append(simulator.record_plan(world, side, PosturePolicy(POSTURES[name]), forced=(actions[i],),
                                                 label=label, source=self.name))
        return out


def _fire_value(info: dict) -> float:
    """Rank of a mission: units knocked out first, then harm, Staff Orders a little."""
    return (3.0 * info.get("kill", 0.0) + 0.6 * info.get("harm", 0.0) + 0.2 * info.get("reveals", 0.0)
            - 1.0 * info.get("own_harm", 0.0) - 0.1 * info.get("cost", 0))


class SmokeSource:
    """Smoke plans from :mod:`agent.smoke`: the greedy max-coverage choice and the next best
    choice without its options, each laid first, then held behind or advanced through."""

    name = "smoke"

    def __init__(self, top: int = 2, postures: Sequence[str] = ("hold", "advance"), max_options: int = 160):
        self.top = top
        self.postures = tuple(postures)
        self.max_options = max_options

    def plans(self, world, side, simulator, rng):
        try:
            from agent.smoke import Budget, build_coverage, solve_greedy
        except ImportError:  # the planner is optional
            return []
        if not hasattr(world, "smoke_options") or not hasattr(world, "known_pieces"):
            return []
        found = probe(world, side, simulator, ("smoke",))
        if found is None:
            return []
        state = found[0]
        options = list(state.smoke_options(side))[: self.max_options]
        if not options:
            return []
        lines = _enemy_lines(state, side, max(len(o.screens) for o in options))
        if not lines:
            return []
        coverage = build_coverage(options, lines)
        capacities: dict[str, int] = {}
        seen = state.observation(side)
        for option in options:
            for resource, _ in option.resources:
                capacities[resource] = int(getattr(seen, "staff_orders", 1)) if resource == "staff_orders" else 1
        out, banned = [], set()
        for _ in range(self.top):
            allowed = [i for i in range(len(options)) if i not in banned]
            if not allowed:
                break
            sub = build_coverage([options[i] for i in allowed], lines) if banned else coverage
            plan = solve_greedy(sub, Budget(capacities))
            picked = [allowed[i] for i in plan.indices]
            if not picked or plan.objective <= 0:
                break
            banned.update(picked)
            forced = tuple(a for i in picked for a in options[i].actions)
            label = f"smoke: {', '.join(options[i].label for i in picked)} (blocks {plan.objective:.2f} threat)"
            for name in self.postures:
                out.append(simulator.record_plan(world, side, PosturePolicy(POSTURES[name]), forced=forced,
                                                 label=f"{label}, then {name}", source=self.name))
        return out


def _enemy_lines(state: GameState, side: str, ticks: int):
    """The enemy's sight lines to our units, worth the exact threat of its fire along them."""
    from agent.smoke import SightLine

    pieces = state.known_pieces(side)
    enemies = [p for p in pieces if p["side"] != side and p["kind"] == "unit"]
    own = [p for p in pieces if p["side"] == side and p["kind"] == "unit"]
    lines = []
    for e in enemies:
        for u in own:
            value = float(state.threat(e["id"], u["id"]))
            if value <= 0:
                continue
            for tick in range(max(1, ticks)):
                lines.append(SightLine(e["position"], u["position"], tick, (0.5 * value, value),
                                       observer_id=e["id"], target_id=u["id"]))
    return lines


class PlannerFireSource:
    """The fire planner's battery allocation (:func:`agent.fires.plan_fires`, greedy method: a
    weapon-target assignment of exact expected values), fired at the first chance in the scope.
    Quietly absent when the planner is not installed or cannot plan this position."""

    name = "fire planner"

    def __init__(self, method: str = "greedy", postures: Sequence[str] = ("balanced",), min_time: float = 0.4):
        self.method = method
        self.min_time = min_time
        self.postures = tuple(postures)
        self.last_error: str | None = None

    def plans(self, world, side, simulator, rng):
        if not hasattr(world, "fire_planning"):  # the planner needs the ruleset's fire-planning hooks
            return []
        found = probe(world, side, simulator, ("artillery",))
        if found is None:
            return []
        try:
            from agent.fires import plan_fires

            if simulator.deadline is not None and simulator.deadline - time.perf_counter() < self.min_time:
                return []  # the planner cannot be interrupted: leave it out when time is short
            pieces = found[0].known_pieces(side)
            aims = [p["position"] for p in pieces if p["side"] != side]
            limit = None if simulator.deadline is None else max(0.0, simulator.deadline - time.perf_counter())
            fire_plan = plan_fires(found[0], side, method=self.method, num_workers=1, random_seed=0, aims=aims, max_salvo=1,
                                   time_limit=limit)
            actions = tuple(fire_plan.actions())
            label = fire_plan.explain() if hasattr(fire_plan, "explain") else "fire plan"
        except Exception as error:  # the planner is optional and still evolving
            self.last_error = f"{type(error).__name__}: {error}"
            return []
        if not actions:
            return []
        return [simulator.record_plan(world, side, PosturePolicy(POSTURES[name]), forced=actions,
                                      label=f"fire planner: {label.splitlines()[0] if label else ''}", source=self.name)
                for name in self.postures]


class PlannerBarrageSource:
    """The Initial Barrage planner (:func:`agent.fires.plan_barrage`) for a barrage round.
    Quietly absent when the planner is not installed or the scope is not a barrage round."""

    name = "barrage planner"

    def __init__(self):
        self.last_error: str | None = None

    def plans(self, world, side, simulator, rng):
        if world.is_chance_node() or world.current_player() != side or not hasattr(world, "fire_planning"):
            return []
        if not any(info["kind"] == "barrage" for info in world.describe_actions(world.legal_actions(), detail=False)):
            return []
        try:
            from agent.fires import plan_barrage

            # no deadline (an iteration budget): no time limit either, so the plan is the same on any machine
            limit = None if simulator.deadline is None else max(0.02, min(0.25, 0.1 * (simulator.deadline - time.perf_counter())))
            barrage = plan_barrage(world, side, time_limit=limit, num_workers=1, random_seed=0)
            actions = tuple(barrage.actions())
        except Exception as error:  # the planner is optional and still evolving
            self.last_error = f"{type(error).__name__}: {error}"
            return []
        if not actions:
            return []
        return [simulator.record_plan(world, side, PosturePolicy(POSTURES["balanced"]), forced=actions,
                                      label="barrage planner: rounds x batteries x Blinds by belief", source=self.name)]


def default_sources(alternatives: int = 0, destinations: RingMoves = NO_MORE_MOVES,
                    first_only: bool = False, weights: Weights = DEFAULT_WEIGHTS,
                    memory: ChoiceMemory | None = None, share_draws: bool = False,
                    artillery_top: int = 6) -> list[PlanSource]:
    """The greedy plan (the search's anchor, ranking orders with ``weights`` and weighing the
    ``destinations`` off the engine's lattice too, at its first order only when ``first_only``;
    recalling the rankings in ``memory``; drawing their share at sampled chance nodes with ``share_draws``;
    weighing its ``artillery_top`` best artillery and smoke calls)
    and its ``alternatives``, the balanced posture's plan, fire plans, smoke plans, the barrage
    planner, the other movement options and the fire planner's plan: in that order, as far as
    the time for candidates allows."""
    return [GreedySource(alternatives, more=destinations, more_first_only=first_only, weights=weights, memory=memory,
                         share_draws=share_draws, artillery_top=artillery_top),
            MovementSource(("balanced",)),
            FireSource(), SmokeSource(), PlannerBarrageSource(),
            MovementSource(("advance", "assault", "cover", "hold", "withdraw")), PlannerFireSource()]


def unique(plans: Sequence[Plan]) -> list[Plan]:
    """Plans without repeats (the same orders), the first kept."""
    seen: set[Hashable] = set()
    out = []
    for plan in plans:
        key = plan.actions
        if key not in seen:
            seen.add(key)
            out.append(plan)
    return out
