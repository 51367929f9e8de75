"""Information-set Monte Carlo tree search over macro-actions.

Each simulation:

1. **Determinize**: draw a world from the player's observation
   (``state.resample_hidden(side, rng)``: the enemy's dummies, the units under its Blinds,
   its hidden declarations are redrawn; nothing hidden is read), and play the enemy's hidden
   declaration, if the world was put back at it, with the enemy's policy.
2. **Select** down an open-loop tree whose nodes are decision scopes and whose edges are
   plans (macro-actions from the plan sources, see :mod:`agent.search.sources`). At the root
   the plans are made once, in the first world, and compared by *sequential halving with
   common random numbers*: in round ``r`` every surviving plan is simulated once with the
   same world and the same dice stream, and after rounds 2, 4, 8, ... the worse half is
   dropped, so that a budget of a few dozen simulations goes to the plans that matter and
   their differences are not drowned by dice. The greedy plan is the *anchor*: it is never
   dropped, and the search plays another plan only when that plan beats it in a paired test
   over the rounds both were simulated in (same worlds, same dice), by ``anchor_z`` standard
   errors of the mean difference and by at least ``anchor_margin``. Few simulations cannot
   tell plans apart by small margins; the greedy choice is exact one step ahead, so noise
   alone must not pull the AI below it. Beside it stand its ``alternatives``: plans that open
   with the greedy ranking's next best orders and then play the greedy plan (the rollout
   algorithm's candidates). They differ from the anchor in about one order, so the paired test
   tells them apart in few simulations where whole-scope postures differ by too much noise.
   They are halved among themselves, so that they do not crowd the planners' plans out of
   the comparison (on chq_blind_barrage they pushed the barrage planner's plan out at round
   2). Deeper nodes (the enemy's reply, then ours)
   are expanded, with their owner's candidates made in the world that reaches them (the
   enemy's are its ``enemy_postures``, which may name the greedy plan), once
   their edge has ``expand_after`` visits, and chosen by UCB1 on the owner's mean value.
   Chance nodes are stratified where small and sampled where large
   (:class:`~agent.search.chance.ChanceResolver`).
3. **Roll out** both sides' balanced posture (``rollout_policy``: another posture, or the
   greedy choice) for ``rollout_scopes`` more scopes, or to the end of the game once in its last
   turn or period.
4. **Evaluate** the leaf for the player (:func:`~agent.search.evaluation.evaluate` with
   :data:`~agent.search.evaluation.SEARCH_WEIGHTS`, fitted to how games end; a small
   chance node at the leaf is enumerated exactly, the deadline looked at between its outcomes)
   and back the value up, negated for the enemy's nodes (the game is zero-sum).

The search is anytime: with a time budget it stops at the deadline (a simulation in flight is
abandoned) and returns the best surviving plan; with an iteration budget and a seed it is
deterministic. A lone candidate gets only ``lone_rounds`` simulations, for its value: there is
nothing to choose, and the time is the player's.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from engine.game import GameState

from .chance import ChanceResolver, expected_leaf
from .destinations import RingMoves
from .evaluation import DEFAULT_WEIGHTS, SEARCH_WEIGHTS, Weights, evaluate
from .macro import OutOfTime, Plan, Simulator
from .memory import ChoiceMemory
from .policy import BALANCED, POSTURES, PosturePolicy
from .sources import ALTERNATIVE, GreedySource, MovementSource, PlanSource, default_sources, unique

__all__ = ["SearchConfig", "SearchResult", "PlanStats", "MacroSearch"]


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """Knobs of the search; the defaults are the AI's."""

    uct_c: float = 0.5
    max_depth: int = 2
    expand_after: int = 3
    rollout_scopes: int = 1
    final_rollout: int = 40  # scopes rolled out in the last turn or period (to the end, in practice)
    enumerate_limit: int = 12
    enemy_postures: tuple[str, ...] = ("balanced", "advance", "hold")  # "greedy": the greedy player's plan
    halving: bool = True  # sequential halving at the root (False: UCB1 there too)
    weights: Weights = SEARCH_WEIGHTS  # the leaves' values (fitted to results; greedy keeps the defaults)
    greedy_weights: Weights = DEFAULT_WEIGHTS  # how the AI's own greedy plans rank orders one step ahead
    time_share: float = 0.9  # of the budget the search may use: the rest covers the last step
    plan_share: float = 0.5  # of the budget the root's candidates may use
    anchor_share: float = 0.9  # of the budget the anchor's plan may use: the other candidates get what is left of plan_share
    closed_loop: bool = True  # plans answer the dice (False: replay their recorded orders)
    anchor: str | None = "greedy"  # the source of the plan others must beat in a paired test (None: none)
    anchor_z: float = 1.0
    anchor_margin: float = 0.01
    alternatives: int = 2  # plans opening with the greedy ranking's next orders (default sources)
    lone_rounds: int = 4  # simulations for a lone candidate: enough for its value, nothing to choose
    rollout_policy: str = "balanced"  # both sides' play in rollouts: a posture's name, or "greedy" (slower)
    move_rings: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)  # the greedy plan's destinations off the lattice,
    move_bearings: int = 12  # ... in this many directions on each ring (0: the engine's lattice only)
    rings_first_only: bool = False  # True: at the plan's first order only (the one given), not at every order
    ring_focus: int = 0  # the rings of the elements leading the lattice's ranking only, this many (0: every element)
    remember: bool = True  # the player's greedy look-aheads share one memory through the scope (SearchPlayer)
    share_draws: bool = True  # the greedy plan's sampled chance nodes draw their share of the branches (see GreedyPolicy)
    greedy_artillery_top: int = 6  # artillery and smoke calls the greedy plan weighs, best by their exact expected effect
    contempt: float = 0.0  # what a draw costs the searching side at the leaves (evaluate): > 0 plays to win

    @property
    def destinations(self) -> RingMoves:
        """The moves the AI's greedy choice weighs beyond the engine's list (:mod:`.destinations`)."""
        return RingMoves(self.move_rings, self.move_bearings, self.ring_focus)


@dataclass
class PlanStats:
    plan: Plan
    visits: int = 0
    total: float = 0.0
    child: "Node | None" = None
    by_round: dict[int, float] = field(default_factory=dict)  # the root's values per round (paired tests)

    @property
    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


@dataclass
class Node:
    owner: str
    serial: int = 0
    edges: list[PlanStats] = field(default_factory=list)
    visits: int = 0
    expanded: bool = False


@dataclass(frozen=True)
class SearchResult:
    """The chosen plan and what the search saw of every candidate."""

    plan: Plan | None
    value: float
    iterations: int
    elapsed: float
    candidates: tuple[tuple[Plan, int, float], ...]  # (plan, visits, mean value)


class MacroSearch:
    """One decision's search for ``side``: ``run(state)`` returns a :class:`SearchResult`."""

    def __init__(self, side: str, rng: np.random.Generator, sources: list[PlanSource] | None = None,
                 config: SearchConfig = SearchConfig(), memory: ChoiceMemory | None = None):
        self.side = side
        self.rng = rng
        if sources is None:
            sources = default_sources(config.alternatives, config.destinations, config.rings_first_only,
                                      config.greedy_weights, memory, config.share_draws, config.greedy_artillery_top)
        self.sources = list(sources)
        self.config = config
        self.chance = ChanceResolver(rng, config.enumerate_limit)
        policy = PosturePolicy(BALANCED)
        self.sim = Simulator(side, self.chance, policy, policy, closed_loop=config.closed_loop)
        self.sim.rollout_choice = _rollout_choice(config.rollout_policy, rng, self.sim.check)
        self._enemy_sources = _enemy_sources(config.enemy_postures)
        self._serial = 0

    # ------------------------------------------------------------------ worlds
    def world(self, state: GameState, rng: np.random.Generator | None = None) -> GameState:
        """A world drawn from ``side``'s observation of ``state``, at ``side``'s decision."""
        world = state.resample_hidden(self.side, rng if rng is not None else self.rng)
        self.sim.to_own_decision(world)
        return world

    def candidates(self, world: GameState, owner: str, sources) -> list[Plan]:
        """The sources' plans, in order, until the deadline; a plan cut short by it is kept."""
        plans: list[Plan] = []
        self.sim.partials = []
        for source in sources:
            try:
                plans.extend(source.plans(world, owner, self.sim, self.rng))
            except OutOfTime:
                plans.extend(self.sim.partials)
                if plans:
                    break
                raise
        return unique(plans)

    # ------------------------------------------------------------------ the search
    def run(self, state: GameState, *, iterations: int | None = None, seconds: float | None = 1.0) -> SearchResult:
        start = time.perf_counter()
        deadline = None if seconds is None else start + self.config.time_share * seconds
        self._serial = 0
        root = Node(self.side, 0)
        root.edges = [PlanStats(p) for p in self._root_candidates(state, start, seconds)]
        self.sim.deadline = deadline
        root.expanded = True
        if not root.edges:
            return SearchResult(None, 0.0, 0, time.perf_counter() - start, ())
        anchor = next((e for e in root.edges if e.plan.source == self.config.anchor), None)
        base = int(self.rng.integers(2**62))
        done = 0
        survivors = [e for e in root.edges if e is not anchor]  # the anchor rides along every round
        rounds = 0
        try:
            while iterations is None or done < iterations:
                if seconds is None and iterations is None:
                    break
                if len(root.edges) == 1 and done >= self.config.lone_rounds:
                    break
                if self.config.halving:
                    for edge in ([anchor] if anchor is not None else []) + survivors:
                        if iterations is not None and done >= iterations:
                            break
                        self._iterate(state, root, base, rounds, forced=edge)
                        done += 1
                    rounds += 1
                    if rounds & (rounds - 1) == 0 and rounds >= 2:
                        survivors = _halved(survivors)
                else:
                    self._iterate(state, root, base, done)
                    done += 1
        except OutOfTime:
            pass
        pool = (survivors or [anchor]) if self.config.halving else root.edges
        visited = [e for e in pool if e.visits] or pool
        if self.config.halving:
            top = max(e.visits for e in visited)
            best = max((e for e in visited if e.visits == top), key=lambda e: e.mean)
            if anchor is not None and best is not anchor and not self._beats(best, anchor):
                best = anchor
        else:
            best = max(visited, key=lambda e: (e.visits, e.mean))
        elapsed = time.perf_counter() - start
        table = tuple((e.plan, e.visits, e.mean) for e in root.edges)
        return SearchResult(best.plan, best.mean, done, elapsed, table)

    def _root_candidates(self, state: GameState, start: float, seconds: float | None) -> list[Plan]:
        """The root's plans, made in a world drawn from the observation: the anchor's source may
        take ``anchor_share`` of the budget, the other sources what is left of ``plan_share``;
        the simulations that compare them have the rest.

        The greedy plan of a MET movement phase (every element's moves, each weighed at many
        destinations) can take longer than the candidates' share. Cut short, it was the lone
        candidate, simulated 4 times with half the second unused, and the next order ranked it
        all again; finished, its rankings are remembered for the rest of the scope."""
        def deadline(share: float) -> float | None:
            return None if seconds is None else start + share * seconds

        anchored = [s for s in self.sources if s.name == self.config.anchor][:1]
        others = [s for s in self.sources if s not in anchored]
        stages = [(anchored, max(self.config.anchor_share, self.config.plan_share))] if anchored else []
        stages.append((others, self.config.plan_share))
        plans: list[Plan] = []
        try:
            self.sim.deadline = deadline(stages[0][1])
            first = self.world(state)
            for sources, share in stages:
                self.sim.deadline = deadline(share)
                plans.extend(self.candidates(first, self.side, sources))
        except OutOfTime:
            pass
        return unique(plans)

    def _beats(self, challenger: PlanStats, anchor: PlanStats) -> bool:
        """Whether ``challenger`` is better than ``anchor`` in the paired test over their shared rounds."""
        shared = sorted(set(challenger.by_round) & set(anchor.by_round))
        if len(shared) < 2:
            return False
        differences = np.array([challenger.by_round[r] - anchor.by_round[r] for r in shared])
        mean = float(differences.mean())
        error = float(differences.std(ddof=1)) / math.sqrt(len(shared))
        return mean > self.config.anchor_margin and mean > self.config.anchor_z * error

    def _select(self, node: Node) -> PlanStats:
        for edge in node.edges:
            if edge.visits == 0:
                return edge
        log_n = math.log(max(1, node.visits))
        c = self.config.uct_c
        return max(node.edges, key=lambda e: e.mean + c * math.sqrt(log_n / e.visits))

    def _iterate(self, state: GameState, root: Node, base: int, round_: int, forced: PlanStats | None = None) -> None:
        """One simulation; its world and dice come from ``(base, round_)`` (common random numbers:
        every root plan of a round meets the same world and the same dice stream)."""
        sim, side = self.sim, self.side
        rng = np.random.default_rng([base, round_])
        self.chance.rng = rng
        world = self.world(state, rng)
        path: list[tuple[Node, PlanStats]] = []
        node = root
        depth = 0
        while node is not None and depth < self.config.max_depth and not world.is_terminal():
            owner = world.current_player()
            if owner != node.owner or world.plan_scope(owner) is None:
                break
            if not node.expanded:
                sources = self.sources if owner == side else self._enemy_sources
                node.edges = [PlanStats(p) for p in self.candidates(world, owner, sources)]
                node.expanded = True
                if not node.edges:
                    break
            edge = forced if (node is root and forced is not None) else self._select(node)
            sim.play_plan(world, owner, edge.plan, stream=node.serial * 977 + depth, visit=round_)
            path.append((node, edge))
            sim.to_decision(world)
            depth += 1
            if world.is_terminal() or depth >= self.config.max_depth:
                break
            if edge.child is None and edge.visits + 1 >= self.config.expand_after:
                self._serial += 1
                edge.child = Node(world.current_player(), self._serial)
            node = edge.child
        scopes = self.config.rollout_scopes
        if not world.is_terminal() and world.features(side).get("left", 1.0) < 1.0:
            scopes = self.config.final_rollout  # the last turn: play it out, the result is near
        sim.rollout(world, scopes)
        config = self.config
        value = expected_leaf(world, lambda s: evaluate(s, side, config.weights, config.contempt), config.enumerate_limit,
                              check=sim.check)
        for n, edge in path:
            signed = value if n.owner == side else -value
            if n is root:
                edge.by_round[round_] = signed
            edge.visits += 1
            edge.total += signed
            n.visits += 1


def _rollout_choice(name: str, rng: np.random.Generator, check):
    """Who plays the rollouts: a posture, or the greedy choice, which looks one step ahead at
    every order (better play, fewer simulations); None for ``balanced``, the simulator's default."""
    if name == BALANCED.name:
        return None
    if name == "greedy":
        from ..players.greedy import GreedyPolicy

        return GreedyPolicy(rng, check=check).choose
    if name not in POSTURES:
        raise ValueError(f"rollout_policy: expected greedy or a posture ({', '.join(POSTURES)}), got {name!r}")
    return PosturePolicy(POSTURES[name]).choose


def _enemy_sources(names: tuple[str, ...]) -> list[PlanSource]:
    """The enemy's candidate plans at its nodes: its postures, and the greedy player's plan
    when ``greedy`` is among the names."""
    postures = tuple(n for n in names if n != "greedy")
    sources: list[PlanSource] = [MovementSource(postures)] if postures else []
    if "greedy" in names:
        sources.append(GreedySource())
    return sources


def _halved(survivors: list[PlanStats]) -> list[PlanStats]:
    """The better half of the challengers (at least two), the greedy plan's alternatives halved
    among themselves (at least one): they are near copies of the anchor and would otherwise
    crowd the planners' plans out of the comparison early."""
    alternatives = [e for e in survivors if e.plan.source == ALTERNATIVE]
    others = [e for e in survivors if e.plan.source != ALTERNATIVE]
    kept = []
    for pool, floor in ((others, 2), (alternatives, 1)):
        pool = sorted(pool, key=lambda e: -e.mean)
        kept.extend(pool[: max(floor, math.ceil(len(pool) / 2))])
    return kept
