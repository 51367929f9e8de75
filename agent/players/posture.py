"""Posture players: one way of fighting (advance, assault, cover, hold, withdraw, balanced), no search.

A :class:`PosturePlayer` draws a world from its observation (as the greedy player does: it
reads nothing hidden) and plays the order its posture scores best there that is legal in the
game. Postures are the search's movement options and rollout policy; as players they show
what each plain way of fighting can do from a seat, e.g. whether any of them beats a random
opponent there (``experiments/seat_ceiling.py``).

Examples
--------
>>> from engine.scenario import load_scenario
>>> state = load_scenario("maps/met_le_mesnil.json").new_game(seed=1)
>>> player = PosturePlayer("assault", seed=0)
>>> state.is_legal(player.act(state))
True
"""

from __future__ import annotations

from typing import Hashable

import numpy as np

from engine.game import GameState

from ..search.policy import POSTURES, best_legal_for_posture
from .base import PlannedAction, Player
from .greedy import observed_world

__all__ = ["PosturePlayer"]


class PosturePlayer(Player):
    """Plays one posture (a name in :data:`agent.search.policy.POSTURES`) in a world drawn
    from its observation; ``end`` or ``pass`` when nothing scores above zero."""

    def __init__(self, posture: str = "balanced", seed: int = 0):
        if posture not in POSTURES:
            raise ValueError(f"unknown posture {posture!r}: one of {', '.join(POSTURES)}")
        self.posture = POSTURES[posture]
        self.name = posture
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return f"PosturePlayer({self.posture.name!r}, seed={self.seed})"

    def act(self, state: GameState) -> Hashable:
        return self._choose(state).action

    def plan(self, state: GameState) -> list[PlannedAction]:
        return [self._choose(state)]

    def _choose(self, state: GameState) -> PlannedAction:
        actions = state.legal_actions()
        if len(actions) == 1:
            return PlannedAction(actions[0], "the only order possible")
        world = observed_world(state, state.current_player(), self.rng)
        best = best_legal_for_posture(world, state, self.posture)
        if best is None:
            return PlannedAction(actions[-1], "no order the posture ranked is legal here")
        return PlannedAction(*best)
