"""The player interface shared by the random, greedy and search players and by humans.

A player never changes the state it is given; it clones when it needs to look
ahead. ``plan`` returns the rest of the decision's intended actions with the
reasons, for narration and advice; ``act`` returns the next one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Hashable

from engine.game import GameState

__all__ = ["Player", "PlannedAction"]


@dataclass(frozen=True, slots=True)
class PlannedAction:
    action: Hashable
    reason: str = ""


class Player(ABC):
    """Chooses actions for whichever side is to move when it is asked."""

    name: str = "player"

    @abstractmethod
    def act(self, state: GameState) -> Hashable:
        """The action to take now; ``state.current_player()`` is a side this player plays."""

    def plan(self, state: GameState) -> list[PlannedAction]:
        """The intended actions with reasons; by default just the next action."""
        return [PlannedAction(self.act(state))]

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
