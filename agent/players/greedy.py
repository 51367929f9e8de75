"""The greedy player: the best one-step expected value, no search.

For each legal action it applies the action to a copy of a world drawn from its observation
(``state.resample_hidden``: it reads nothing hidden) and takes the exact expectation of the
evaluation (:func:`agent.search.evaluation.evaluate`: the game result when it is over, else
the ruleset's features in points, squashed) over the chance nodes that immediately follow:
enumerated when they have at most ``enumerate_limit`` outcomes (nested nodes up to
``max_branches`` leaves in all), otherwise ``samples`` seeded draws (the AI's search draws one
below another sampled node: ``share_draws``). It stops at the next
decision, whoever makes it. Ties (most orders do not change the evaluation at once: choosing
a group, a chain) are broken by the balanced posture's score of the order, then by the
engine's canonical order. To keep a decision cheap it looks at every order except artillery
and smoke, of which it keeps the ``artillery_top`` best by their exact expected effect.

The player is one step, as the issue defines it: the baseline the AI must beat. The policy
the AI's search uses also *looks through* an order that only picks who acts next (CHQ's
group): such an order changes nothing at once, so one step alone would choose the group by
posture, not by what the group can then do; looked through, it is worth the best order it
opens. With it the AI scored 25-3-12 against the one-step player on the CHQ maps, 24-1-15
without it (same seeds; ``experiments/tournament.py``, README).

Examples
--------
>>> from engine.scenario import load_scenario
>>> state = load_scenario("maps/met_calm_bocage.json").new_game(seed=2)
>>> action = GreedyPlayer(seed=0).act(state)
>>> state.is_legal(action)
True
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Collection, Hashable, Mapping, Sequence

import numpy as np

from engine.game import GameState

from ..search.chance import ChanceResolver
from ..search.destinations import NO_MORE_MOVES
from ..search.evaluation import DEFAULT_WEIGHTS, Weights, evaluate
from ..search.macro import OutOfTime, Simulator
from ..search.memory import ChoiceMemory
from ..search.policy import BALANCED, PosturePolicy, action_score
from .base import PlannedAction, Player

__all__ = ["GreedyPlayer", "GreedyPolicy", "observed_world"]

#: Ranks artillery and smoke for the shortlist, and breaks ties.
_RANKING = replace(BALANCED, artillery=True)

#: Kinds of order the greedy choice shortlists (``artillery_top`` of them): describing each
#: exactly is slow, and most are calls nobody would make.
HEAVY = ("artillery", "smoke")

#: Kinds of order that only pick who acts next: the search's greedy choice values one by the
#: best order it opens.
PICKS = ("group",)


def observed_world(state: GameState, side: str, rng: np.random.Generator) -> GameState:
    """A world drawn from ``side``'s observation of ``state`` (nothing hidden is read), played on
    by the balanced posture to ``side``'s decision (a MET world may be put back before the
    enemy's hidden orders)."""
    world = state.resample_hidden(side, rng)
    policy = PosturePolicy(BALANCED)
    Simulator(side, ChanceResolver(rng), policy, policy).to_own_decision(world)
    return world


class GreedyPolicy:
    """The greedy choice in a state it may look into (a world): the search uses it as a plan
    source; :class:`GreedyPlayer` gives it a world drawn from its observation.

    ``more`` adds orders to weigh after the engine's own, given how those ranked (the AI's
    destinations off the lattice, :mod:`agent.search.destinations`); a deadline that falls
    among them ends the ranking with the orders weighed so far, so that more orders never cost
    the order its greedy choice."""

    posture = BALANCED  # what finishes a greedy plan that runs out
    follow = "greedy"  # a plan it records is played on by the greedy choice (closed-loop)

    def __init__(self, rng: np.random.Generator, *, enumerate_limit: int = 16, max_branches: int = 64,
                 samples: int = 4, artillery_top: int = 6, weights: Weights = DEFAULT_WEIGHTS, check=None,
                 look_through: Collection[str] = PICKS, look_branches: int = 8,
                 more: Callable[[GameState, list], list] = NO_MORE_MOVES, memory: ChoiceMemory | None = None,
                 share_draws: bool = False):
        self.rng = rng
        # True: a sampled chance node draws at most its share of the branches (one below another
        # sampled node), so a chain of k sampled nodes costs ``samples`` leaves, not samples ** k:
        # a MET mortar call at an element took 0.62 s to weigh, one on empty ground 0.01 s
        self.share_draws = share_draws
        self.more = more  # orders to weigh beyond the engine's list (destinations off its lattice)
        self.memory = memory  # rankings already made this scope (the AI's, across its searches)
        self.look_through = frozenset(look_through)  # kinds valued by the best order they open
        self.look_branches = look_branches  # chance leaves a looked-through order's opened orders may enumerate
        self.check = check  # called before each lookahead: a search's deadline raises from it
        self.enumerate_limit = enumerate_limit
        self.max_branches = max_branches
        self.samples = samples
        self.artillery_top = artillery_top
        self.weights = weights
        self.last: list[tuple[Hashable, float]] = []
        self.ranking: list[tuple[float, Hashable]] = []  # (value, action) of the last choice, best first

    @property
    def signature(self) -> tuple:
        """Everything that makes this policy rank as it does: rankings in a shared memory are
        recalled only by a policy with the same."""
        return (self.more, self.weights, self.look_through, self.look_branches, self.enumerate_limit,
                self.max_branches, self.samples, self.artillery_top, self.share_draws)

    def ranked(self, world: GameState, *, look: bool = True, branches: int | None = None) -> list[tuple[float, Hashable]]:
        """(value, action) of the shortlisted actions, best first (ties: posture score, then order);
        ``look``: value an order of a ``look_through`` kind by the best one-step order it opens.
        A ranking in the ``memory`` is recalled; a whole one made here is kept there."""
        if self.memory is None or not look or branches is not None:
            return self._ranked(world, look, branches)[0]
        key = self.memory.key(world, self.signature)
        ranking = self.memory.recall(key)
        if ranking is not None:
            return ranking
        ranking, whole = self._ranked(world, look, branches)
        if whole:
            self.memory.keep(key, ranking)
        return ranking

    def _ranked(self, world: GameState, look: bool, branches: int | None) -> tuple[list[tuple[float, Hashable]], bool]:
        """The ranking, and whether it is whole (no deadline cut it short).

        Orders are weighed in three tiers: the engine's orders but artillery and smoke, then the
        ``artillery_top`` best of its artillery and smoke calls, then the orders ``more`` adds.
        A deadline inside the first tier raises; inside the others it ranks what was weighed.
        Describing every artillery call exactly is what takes long (a MET side with mortars has
        about 170 aim points, 0.2-1.6 s): the engine's first ``2 * artillery_top`` calls (MET lists
        a battery's aims at blinds and sighted enemies before its grid) are described and the
        best of them weighed before the rest are described, so a ranking cut short among the
        rest has still weighed those."""
        side = world.current_player()
        candidates = world.legal_actions()
        kinds = [world.action_kind(action) for action in candidates]
        heavy = [i for i, kind in enumerate(kinds) if kind in HEAVY]
        light = [i for i, kind in enumerate(kinds) if kind not in HEAVY]
        infos = dict(zip(light, self._described(world, [candidates[i] for i in light])))
        scored = self._weighed(world, side, candidates, infos, light, look, branches)
        calls, whole = self._weighed_calls(world, side, candidates, infos, heavy, look, branches)
        scored += calls
        extra = self.more(world, _best_first(scored, candidates)) if whole else []
        if extra:
            start = len(candidates)
            candidates = candidates + extra
            described = self._described(world, extra, anytime=True)
            infos.update(zip(range(start, start + len(described)), described))
            shortlist = self._shortlist(infos, range(start, start + len(described)))
            weighed = self._weighed(world, side, candidates, infos, shortlist, look, branches, cut_short=True)
            whole = len(described) == len(extra) and len(weighed) == len(shortlist)
            scored += weighed
        if look:
            self.last = [(candidates[-s[2]], s[0]) for s in scored]
        return _best_first(scored, candidates), whole

    def _weighed_calls(self, world: GameState, side: str, candidates: list, infos: dict[int, dict], heavy: list[int],
                       look: bool, branches: int | None) -> tuple[list[tuple[float, float, int]], bool]:
        """The scores of the ``artillery_top`` best artillery and smoke calls ``heavy``, and whether
        none was left out by a deadline; ``infos`` gets the calls' descriptions.

        Under a deadline the engine's first ``2 * artillery_top`` calls are described and their
        best weighed before the rest are described; cut short, every call weighed is scored."""
        first = 2 * self.artillery_top if self.check is not None else len(heavy)
        weighed: dict[int, tuple[float, float, int]] = {}
        shortlist: list[int] = []
        for batch in (heavy[:first], heavy[first:]):
            described = self._described(world, [candidates[i] for i in batch], anytime=True)
            infos.update(zip(batch, described))
            shortlist = self._heaviest([i for i in heavy if i in infos], infos)
            fresh = [i for i in shortlist if i not in weighed]
            scores = self._weighed(world, side, candidates, infos, fresh, look, branches, cut_short=True)
            weighed.update((-score[2], score) for score in scores)
            if len(described) < len(batch) or len(scores) < len(fresh):
                return list(weighed.values()), False
        return [weighed[i] for i in shortlist], True

    def _weighed(self, world: GameState, side: str, candidates: list, infos: Mapping[int, dict], indices: Sequence[int],
                 look: bool, branches: int | None, cut_short: bool = False) -> list[tuple[float, float, int]]:
        """(value, posture score, -index) of ``candidates[i]`` for each of ``indices``; with
        ``cut_short``, a deadline ends the list with the orders weighed so far."""
        scored = []
        for i in indices:
            try:
                if self.check is not None:
                    self.check()
                child = world.clone()
                child.apply_action(candidates[i])
                if look and infos[i]["kind"] in self.look_through and self._decides_next(child, side):
                    value = self.ranked(child, look=False, branches=self.look_branches)[0][0]
                else:
                    value = self.expected(child, side, self.max_branches if branches is None else branches)
            except OutOfTime:
                if not cut_short:
                    raise
                break
            scored.append((value, action_score(infos[i], _RANKING), -i))
        return scored

    def _shortlist(self, infos: Mapping[int, dict], indices: Sequence[int]) -> list[int]:
        """Of ``indices``, those worth weighing: every order but artillery and smoke, and of those
        the ``artillery_top`` best by the posture's score."""
        light = [i for i in indices if infos[i]["kind"] not in HEAVY]
        return sorted(light + self._heaviest([i for i in indices if infos[i]["kind"] in HEAVY], infos))

    def _heaviest(self, indices: Sequence[int], infos: Mapping[int, dict]) -> list[int]:
        """The ``artillery_top`` of the artillery and smoke ``indices`` best by the posture's score."""
        ranked = sorted(indices, key=lambda i: (-action_score(infos[i], _RANKING), i))
        return sorted(ranked[: self.artillery_top])

    def _described(self, world: GameState, actions: list, chunk: int = 8, anytime: bool = False) -> list[dict]:
        """``world.describe_actions(actions)``, a few at a time with ``check`` between: valuing
        hundreds of artillery calls exactly (8 batteries x 30 targets) takes seconds, and a
        deadline must be able to stop it. With ``anytime`` a deadline returns the first ones
        described instead of raising."""
        if self.check is None:
            return world.describe_actions(actions) if actions else []
        infos: list[dict] = []
        for start in range(0, len(actions), chunk):
            try:
                self.check()
            except OutOfTime:
                if not anytime:
                    raise
                break
            infos.extend(world.describe_actions(actions[start:start + chunk]))
        return infos

    @staticmethod
    def _decides_next(state: GameState, side: str) -> bool:
        return not state.is_terminal() and not state.is_chance_node() and state.current_player() == side

    def best_legal(self, world: GameState, state: GameState) -> tuple[Hashable, float] | None:
        """(action, value) of the best action ranked in ``world`` that is legal in ``state`` (the
        true game the world was drawn from); None when none is."""
        for value, action in self.ranked(world):
            if state.is_legal(action):
                return action, value
        return None

    def choose(self, world: GameState) -> tuple[Hashable, str]:
        actions = world.legal_actions()
        if len(actions) == 1:
            self.ranking = []
            return actions[0], "the only order possible"
        self.ranking = self.ranked(world)
        value, action = self.ranking[0]
        return action, f"greedy: best one-step expected value {value:+.3f}"

    def expected(self, state: GameState, side: str, branches: int) -> float:
        """The evaluation, in expectation over the chance nodes from ``state`` to the next decision."""
        if self.check is not None:
            self.check()
        if not state.is_chance_node():
            return evaluate(state, side, self.weights)
        outcomes = state.chance_outcomes()
        if len(outcomes) <= self.enumerate_limit and len(outcomes) <= branches:
            share = max(1, branches // len(outcomes))
            total = 0.0
            for outcome, p in outcomes:
                child = state.clone()
                child.apply_action(outcome)
                total += float(p) * self.expected(child, side, share)
            return total
        probabilities = np.array([float(p) for _, p in outcomes])
        probabilities /= probabilities.sum()
        size = max(1, min(self.samples, branches)) if self.share_draws else self.samples
        draws = self.rng.choice(len(outcomes), size=size, p=probabilities)
        total = 0.0
        for d in draws:
            child = state.clone()
            child.apply_action(outcomes[int(d)][0])
            total += evaluate(child, side, self.weights) if not child.is_chance_node() else self.expected(child, side, 1)
        return total / size


def _best_first(scored: list[tuple[float, float, int]], candidates: list) -> list[tuple[float, Hashable]]:
    return [(value, candidates[-neg]) for value, _, neg in sorted(scored, reverse=True)]


class GreedyPlayer(Player):
    """Best one-step expected evaluation over the chance nodes right after the action (no
    look-through: see the module's docstring)."""

    name = "greedy"

    def __init__(self, seed: int = 0, *, enumerate_limit: int = 16, max_branches: int = 64, samples: int = 4,
                 artillery_top: int = 6, weights: Weights = DEFAULT_WEIGHTS,
                 more: Callable[[GameState, list], list] = NO_MORE_MOVES):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.policy = GreedyPolicy(self.rng, enumerate_limit=enumerate_limit, max_branches=max_branches,
                                   samples=samples, artillery_top=artillery_top, weights=weights, look_through=(),
                                   more=more)

    @property
    def enumerate_limit(self) -> int:
        return self.policy.enumerate_limit

    @property
    def max_branches(self) -> int:
        return self.policy.max_branches

    @property
    def last(self) -> list[tuple[Hashable, float]]:
        return self.policy.last

    def __repr__(self) -> str:
        return f"GreedyPlayer(seed={self.seed})"

    def act(self, state: GameState) -> Hashable:
        return self._choose(state)[0]

    def plan(self, state: GameState) -> list[PlannedAction]:
        action, value = self._choose(state)
        return [PlannedAction(action, f"best one-step expected value {value:+.3f}")]

    # ------------------------------------------------------------------ internals
    def _choose(self, state: GameState) -> tuple[Hashable, float]:
        side = state.current_player()
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0], 0.0
        world = observed_world(state, side, self.rng)
        return self.policy.best_legal(world, state) or (actions[-1], 0.0)

    def _expected(self, state: GameState, side: str, branches: int) -> float:
        return self.policy.expected(state, side, branches)
