"""Playing one game between players: the loop every command, test and tournament shares.

Chance nodes are resolved with the state's own seeded generator, so a game is a
pure function of the scenario, the seed and the players' seeds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Hashable, Mapping

from engine.game import GameState

from .players import Player

__all__ = ["GameRecord", "play_game"]


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What happened: every action in order (chance outcomes included) and the result."""

    actions: tuple[tuple[str, Hashable], ...]
    returns: Mapping[str, float]
    decisions: int
    score: Mapping[str, float] = field(default_factory=dict)


def play_game(
    state: GameState,
    players: Mapping[str, Player],
    *,
    max_steps: int = 200_000,
    on_step: Callable[[GameState, str, Hashable], None] | None = None,
) -> GameRecord:
    """Play ``state`` to the end in place; ``players`` maps each side id to its player."""
    history: list[tuple[str, Hashable]] = []
    decisions = 0
    for _ in range(max_steps):
        if state.is_terminal():
            break
        mover = state.current_player()
        if state.is_chance_node():
            action = state.sample_chance()
        else:
            action = players[mover].act(state)
            decisions += 1
        if on_step is not None:
            on_step(state, mover, action)
        state.apply_action(action)
        history.append((mover, action))
    else:
        raise RuntimeError(f"game did not end within {max_steps} steps")
    return GameRecord(tuple(history), dict(state.returns()), decisions, dict(state.score()))
