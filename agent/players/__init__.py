"""Players: one interface (``act(state) -> action``, ``plan(state)``), several strengths."""

from .base import Player, PlannedAction
from .random_player import RandomPlayer

__all__ = ["Player", "PlannedAction", "RandomPlayer"]
