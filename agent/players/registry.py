"""Players by name, for the command line: ``make_player("ai", seed, time_budget)``.

``ai`` is the search player (:class:`agent.players.SearchPlayer`), ``greedy`` the one-step
player and ``random`` the uniform baseline. When a player's module cannot be imported (it
is optional, or still being built), the next weaker one stands in and ``make_player``
says so in the returned ``note``. Each posture (``balanced``, ``advance``, ``assault``,
``cover``, ``hold``, ``withdraw``) is a player too (:class:`agent.players.PosturePlayer`): a
plain way of fighting, no search; an easy opponent, or a probe of a scenario (does a side
that only holds win it?).

Examples
--------
>>> made = make_player("random", seed=1)
>>> made.name, made.player.name
('random', 'random')
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import FireplanError

from .base import Player
from .random_player import RandomPlayer

__all__ = ["PLAYER_NAMES", "POSTURE_NAMES", "ALL_PLAYERS", "MadePlayer", "ExplainedPlayer", "make_player", "reseed"]

#: The searching and baseline players, strongest first (the order a missing one falls back along).
PLAYER_NAMES = ("ai", "greedy", "random")
#: The posture players (:data:`agent.search.policy.POSTURES`).
POSTURE_NAMES = ("balanced", "advance", "assault", "cover", "hold", "withdraw")
#: Every name ``make_player`` knows.
ALL_PLAYERS = PLAYER_NAMES + POSTURE_NAMES


@dataclass(frozen=True)
class MadePlayer:
    """A player made by name: ``name`` is what was built (it may differ from the request)."""

    player: Player
    name: str
    note: str = ""


def _search(seed: int, time_budget: float, iterations: int | None) -> Player:
    from agent.players import SearchPlayer

    if iterations is not None:  # an iteration budget: the same decisions on any machine
        return SearchPlayer(seed=seed, time_per_decision=None, iterations=iterations)
    return SearchPlayer(seed=seed, time_per_decision=time_budget)


def _greedy(seed: int, time_budget: float, iterations: int | None) -> Player:
    from agent.players import GreedyPlayer

    return GreedyPlayer(seed=seed)


def _random(seed: int, time_budget: float, iterations: int | None) -> Player:
    return RandomPlayer(seed=seed)


_BUILDERS = {"ai": _search, "greedy": _greedy, "random": _random}


def make_player(name: str, seed: int = 0, time_budget: float = 1.0, iterations: int | None = None) -> MadePlayer:
    """The player called ``name`` (one of ``ALL_PLAYERS``), seeded, with ``time_budget`` seconds a decision
    (or, for the AI, ``iterations`` simulations a decision instead: deterministic).

    Falls back along ``ai`` → ``greedy`` → ``random`` when a player cannot be imported.
    """
    if name not in _BUILDERS and name not in POSTURE_NAMES:
        raise FireplanError(f"--ai: expected one of {', '.join(ALL_PLAYERS)}, got {name!r}")
    if not time_budget > 0:
        raise FireplanError(f"the time budget must be a positive number of seconds, got {time_budget!r}")
    if name in POSTURE_NAMES:
        from agent.players import PosturePlayer

        return MadePlayer(PosturePlayer(name, seed), name)
    missing = []
    for candidate in PLAYER_NAMES[PLAYER_NAMES.index(name):]:
        try:
            player = _BUILDERS[candidate](seed, time_budget, iterations)
        except (ImportError, AttributeError) as error:
            missing.append(f"{candidate} ({error})")
            continue
        note = f"the {name} player is not available, playing {candidate} instead" if candidate != name else ""
        return MadePlayer(player, candidate, note)
    raise RuntimeError("the random player always imports")  # pragma: no cover


def reseed(player: Player, seed: int, decision: int) -> None:
    """Give ``player`` a generator seeded by ``(seed, decision)`` before its ``decision``-th decision.

    A player's choices then depend only on the game so far, not on how many times the program
    was restarted: a game resumed from a save plays on as the uninterrupted one would have
    (exactly so for the random and greedy players and for a search with an iteration budget).
    """
    import numpy as np

    if hasattr(player, "rng"):
        player.rng = np.random.default_rng([int(seed), int(decision)])


class ExplainedPlayer:
    """A player that says why: ``decide(state)`` returns ``(action, reason)`` for narration.

    At the first decision of a scope (``state.plan_scope``) it asks the player's ``plan`` for the
    scope's orders with their reasons; later decisions of the scope ask ``act`` (which follows the
    plan) and take the reason of the planned step it returns. ``seed`` reseeds the player before
    each decision (see :func:`reseed`).
    """

    def __init__(self, player: Player, seed: int):
        self.player = player
        self.seed = seed
        self.pending: list = []
        self.pending_scope = None

    def decide(self, state, decision: int):
        side = state.current_player()
        reseed(self.player, self.seed, decision)
        scope = _scope(state, side)
        if self.pending and scope is not None and scope == self.pending_scope:
            action = self.player.act(state)
            for index, step in enumerate(self.pending):
                if step.action == action:
                    del self.pending[: index + 1]
                    return self._checked(state, action, step.reason)
            self.pending = []
            return self._checked(state, action, "the plan's next order")
        steps = self.player.plan(state)
        self.pending, self.pending_scope = list(steps[1:]), scope
        return self._checked(state, steps[0].action, steps[0].reason)

    def _checked(self, state, action, reason):
        if state.is_legal(action):
            return action, reason
        self.pending = []  # a player's mistake must not end a human's game
        return state.legal_actions()[0], "its choice was not legal, so the first legal order"


def _scope(state, side):
    plan_scope = getattr(state, "plan_scope", None)
    if not callable(plan_scope):
        return None
    try:
        return plan_scope(side)
    except Exception:
        return None
