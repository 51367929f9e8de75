"""The AI: information-set MCTS over whole-scope plans, with a time budget per decision.

At every decision with a choice the player searches (:class:`agent.search.MacroSearch`) the
plans for the rest of its scope (a CHQ pulse, a MET side's part of a phase, a barrage round, an
opportunity-fire window, ...) and plays the winning plan's first order: each order is chosen
with what the dice have done since the scope began (``replan="always"``, the default: it beat
searching once a scope against the greedy player, 20 games better and 8 worse of 80 on the same
seeds, see README). With ``replan="scope"`` it searches at the first decision of each scope and
keeps the winning plan; later decisions of the scope play the plan's next order that is legal,
and when the plan runs out the plan's posture finishes the scope in a world sampled from the
observation. Plans are closed-loop by default (``SearchConfig.closed_loop``): the
player plays the plan's forced orders (smoke, fire missions) as soon as each is legal and makes
every other decision with the plan's policy (its posture, or the greedy choice) in a world
drawn from the observation of the position reached, as the search simulated it. No order takes
more than its budget: the order that searched plays the plan's first order as the search
recorded it rather than looking again, and a later greedy look-ahead that runs out of the
order's time gives way to the plan's posture. The greedy rankings a search makes are kept for the
rest of the scope (:mod:`agent.search.memory`), so the next order's search recalls the rest of the
greedy plan instead of ranking it again and spends its second comparing plans. Everything the search looks at is a world drawn from
``state.observation(side)``: the true state is only asked whether an order is legal.

Examples
--------
>>> from engine.scenario import load_scenario
>>> state = load_scenario("maps/chq_smoke_advance.json").new_game(seed=3)
>>> ai = SearchPlayer(seed=1, iterations=4, time_per_decision=None)
>>> steps = ai.plan(state)
>>> state.is_legal(steps[0].action)
True
"""

from __future__ import annotations

import gc
import time
from contextlib import contextmanager
from typing import Hashable

import numpy as np

from engine.game import GameState

from ..search.macro import OutOfTime, Plan
from ..search.memory import ChoiceMemory
from .greedy import GreedyPolicy
from ..search.mcts import MacroSearch, SearchConfig, SearchResult
from ..search.policy import BALANCED, best_legal_for_posture
from ..search.sources import PlanSource
from .base import PlannedAction, Player

__all__ = ["SearchPlayer", "AIPlayer"]


class SearchPlayer(Player):
    """The AI opponent.

    Parameters
    ----------
    seed:
        Seed of the player's generator: worlds, chance and tie-breaks all come from it, so
        with an ``iterations`` budget the same seed plays the same game.
    time_per_decision:
        Seconds of search per decision (default 1.0); None for no time limit.
    iterations:
        Iterations of search per decision (None: as many as the time allows). Give an
        iteration budget and ``time_per_decision=None`` for a deterministic player.
    sources:
        Plan sources (default: movement postures, fire plans, smoke plans).
    config:
        :class:`~agent.search.SearchConfig`.
    replan:
        ``"always"`` (default): search at every decision; ``"scope"``: search once per scope
        and follow the plan.
    """

    name = "ai"

    def __init__(self, seed: int = 0, time_per_decision: float | None = 1.0, iterations: int | None = None,
                 sources: list[PlanSource] | None = None, config: SearchConfig = SearchConfig(), replan: str = "always"):
        if time_per_decision is None and iterations is None:
            raise ValueError("give the search a budget: time_per_decision, iterations or both")
        if replan not in ("scope", "always"):
            raise ValueError(f"replan must be 'scope' or 'always', got {replan!r}")
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.time_per_decision = time_per_decision
        self.iterations = iterations
        self.sources = sources
        self.config = config
        self.replan = replan
        self._plan: Plan | None = None
        self._scope = None
        self._cursor = 0
        self._pending: list = []  # the plan's forced orders not played yet (closed-loop)
        self.memory = ChoiceMemory()  # the greedy rankings this scope's searches have made
        self.last: SearchResult | None = None
        self.searches: list[float] = []  # seconds taken by each search (the decision-time benchmark)
        self.simulations: list[int] = []  # simulations each search ran: how far its budget went
        self._began = time.perf_counter()  # when the order being chosen was asked for
        _warm_up()

    def __repr__(self) -> str:
        budget = f"iterations={self.iterations}" if self.iterations else f"time={self.time_per_decision}s"
        return f"SearchPlayer(seed={self.seed}, {budget})"

    # ------------------------------------------------------------------ the interface
    def act(self, state: GameState) -> Hashable:
        with _long_lived_out_of_collection():
            return self._act(state)

    def _act(self, state: GameState) -> Hashable:
        self._began = time.perf_counter()
        side = state.current_player()
        scope = state.plan_scope(side)
        searched = False
        if self.replan == "always" or self._plan is None or scope is None or scope != self._scope:
            actions = state.legal_actions()
            if len(actions) == 1:
                return actions[0]
            self._search(state, side, scope)
            searched = True
        action = self._next_step(state)
        if action is not None:
            return action
        if searched:  # the search has had this order's time: the plan's own first order, if it stands
            action = self._first_recorded_order(state)
            if action is not None:
                return action
        return self._complete(state, side)

    def plan(self, state: GameState) -> list[PlannedAction]:
        """The whole scope's intended orders with reasons (searched afresh), the first legal now."""
        with _long_lived_out_of_collection():
            return self._plan_steps(state)

    def _plan_steps(self, state: GameState) -> list[PlannedAction]:
        self._began = time.perf_counter()
        side = state.current_player()
        result = self._search(state, side, state.plan_scope(side))
        if result.plan is None:
            return [PlannedAction(self._complete(state, side), "no plan: the posture's best order")]
        header = reason_header(result)
        steps = list(result.plan.steps)
        first = next((i for i, s in enumerate(steps) if state.is_legal(s.action)), None)
        if first is None:
            return [PlannedAction(self._complete(state, side), header)]
        steps = steps[first:]
        steps[0] = PlannedAction(steps[0].action, f"{header}: {steps[0].reason}")
        return steps

    # ------------------------------------------------------------------ internals
    @property
    def _memory(self) -> ChoiceMemory | None:
        """The memory the greedy look-aheads share, when the settings keep one."""
        return self.memory if self.config.remember else None

    def _search(self, state: GameState, side: str, scope) -> SearchResult:
        start = time.perf_counter()
        if scope is None or scope != self._scope:
            self.memory.clear()  # what was seen in another scope will not be seen again
        search = MacroSearch(side, self.rng, self.sources, self.config, self._memory)
        result = search.run(state, iterations=self.iterations, seconds=self._time_left())
        self.searches.append(time.perf_counter() - start)
        self.simulations.append(result.iterations)
        self.last = result
        self._plan, self._scope, self._cursor = result.plan, scope, 0
        self._pending = list(result.plan.forced) if result.plan is not None else []
        return result

    def _time_left(self) -> float | None:
        """The order's budget less what it has already spent (working out the legal orders of a
        fresh position can take a tenth of a second): the search must not start the clock again."""
        if self.time_per_decision is None:
            return None
        return max(0.0, self.time_per_decision - (time.perf_counter() - self._began))

    def _next_step(self, state: GameState) -> Hashable | None:
        if self._plan is None:
            return None
        if self.config.closed_loop:
            for k, action in enumerate(self._pending):
                if state.is_legal(action):
                    del self._pending[k]
                    return action
            return None
        steps = self._plan.steps
        while self._cursor < len(steps):
            action = steps[self._cursor].action
            self._cursor += 1
            if state.is_legal(action):
                return action
        return None

    def _first_recorded_order(self, state: GameState) -> Hashable | None:
        """The plan's first order as the search recorded it (its policy's choice in the search's
        first world), when it is legal: looking again would spend a second budget on the same
        decision."""
        plan = self._plan
        if plan is None or not plan.steps:
            return None
        action = plan.steps[0].action
        return action if state.is_legal(action) else None

    def _out_of_time(self) -> None:
        """Raise :class:`OutOfTime` once this order has had its budget (nothing without one)."""
        if self.time_per_decision is not None and time.perf_counter() - self._began > self.time_per_decision:
            raise OutOfTime

    def _complete(self, state: GameState, side: str) -> Hashable:
        """The plan's policy picks the order, in a world drawn from the observation; a greedy
        look-ahead that runs out of the order's time gives way to the plan's posture."""
        posture = self._plan.posture if self._plan is not None else BALANCED
        search = MacroSearch(side, self.rng, [], self.config)
        world = search.world(state)
        if self._plan is not None and self._plan.follow == "greedy":
            try:
                greedy = GreedyPolicy(self.rng, check=self._out_of_time, more=self.config.destinations,
                                      weights=self.config.greedy_weights, share_draws=self.config.share_draws,
                                      artillery_top=self.config.greedy_artillery_top,
                                      memory=self._memory)
                best = greedy.best_legal(world, state)
            except OutOfTime:
                best = None
            if best is not None:
                return best[0]
        best = best_legal_for_posture(world, state, posture)
        return best[0] if best is not None else state.legal_actions()[-1]


@contextmanager
def _long_lived_out_of_collection():
    """Everything alive when an order is asked for is left out of the garbage collector's scans
    until the order is given (``gc.freeze``), then put back (``gc.unfreeze``).

    A full collection scans every object the process holds, and the process's caches grow with
    the games it plays: a full collection took 0.08 s after one game and 0.18 s after seven
    (``gc.callbacks``), and one that falls after the search's last look at its deadline carries
    the order past its budget (3 searches of 6,581 in two tournaments; the one also timed on
    the CPU clock was computing, not waiting).
    Frozen, the long-lived objects cost a collection during the order nothing; garbage among
    them goes at the next full collection outside an order. Left alone when someone else has
    frozen objects (we would unfreeze theirs)."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _warm_up() -> None:
    """Import the planners now, so that the first decision's budget is not spent importing."""
    import importlib

    for name in ("agent.smoke", "agent.fires"):
        try:
            importlib.import_module(name)
        except Exception:  # optional planners: the search works without them
            pass


#: The AI opponent under its plain name.
AIPlayer = SearchPlayer


def reason_header(result: SearchResult) -> str:
    """The chosen plan's label, its source and what the search learnt of its value: a plan
    chosen before any simulation (its making took the order's time) has no value to show."""
    if result.iterations:
        known = f"value {result.value:+.2f} over {result.iterations} simulations"
    else:
        known = "not simulated: making it took the order's time"
    return f"{result.plan.label} [{result.plan.source}; {known}]"
