"""A player that picks uniformly among the legal actions, with its own seeded generator."""

from __future__ import annotations

from typing import Hashable

import numpy as np

from engine.game import GameState

from .base import Player, PlannedAction

__all__ = ["RandomPlayer"]


class RandomPlayer(Player):
    """Uniform over ``legal_actions()``: the baseline every other player must beat."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def act(self, state: GameState) -> Hashable:
        actions = state.legal_actions()
        return actions[int(self.rng.integers(len(actions)))]

    def plan(self, state: GameState) -> list[PlannedAction]:
        return [PlannedAction(self.act(state), "chosen at random")]
