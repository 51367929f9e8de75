"""Random legal play on a generated scenario, and what the properties read from a state.

The readers here (``fingerprint``, ``hidden_enemy_ids``, ``screens_on_table``,
``game_clock``) look at the true state the way a referee would, so the
properties can check the engine's own answers against them.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Callable, Hashable, Iterator

from engine.game import GameState

__all__ = ["play", "fingerprint", "hidden_enemy_ids", "screens_on_table", "game_clock", "MAX_STEPS"]

#: No generated game of at most three turns comes near this; reaching it is a failure.
MAX_STEPS = 20_000


def play(state: GameState, choice_seed: int, on_step: Callable[[GameState, Hashable], None] | None = None) -> Iterator[tuple[GameState, Hashable]]:
    """Play ``state`` to its end with uniformly random legal choices; yield (state before, action)."""
    chooser = random.Random(choice_seed)
    for _ in range(MAX_STEPS):
        if state.is_terminal():
            return
        action = state.sample_chance() if state.is_chance_node() else chooser.choice(state.legal_actions())
        yield state, action
        state.apply_action(action)
        if on_step is not None:
            on_step(state, action)
    raise AssertionError(f"the game did not end within {MAX_STEPS} steps")


def _log(state) -> tuple[str, ...]:
    return tuple(state.log if hasattr(state, "log") else state.history)


def fingerprint(state) -> tuple:
    """Everything either side could tell about the state, its history and its dice generator."""
    sides = [side.id for side in state.scenario.sides]
    return (
        state.current_player(),
        tuple(state.observation(side) for side in sides),
        _log(state),
        repr(state.rng.bit_generator.state),
        tuple(map(str, state.legal_actions())) if not state.is_terminal() else (),
    )


def hidden_enemy_ids(state, side: str) -> tuple[set[str], set[str]]:
    """(enemy units ``side`` has not spotted, enemy dummy Blinds), read from the true state."""
    if state.scenario.ruleset.name == "chq":
        enemy = state.facts.other(side)
        hidden = {uid for uid, u in state.units.items() if state.facts.units[uid].side == enemy and u.hidden}
        dummies = {b for b in state.blinds if state.facts.blinds[b].owner == enemy and state.facts.blinds[b].dummy}
        return hidden, dummies
    enemy = state.table.other(side)
    hidden = {e.id for e in state.elements.values() if e.side == enemy and e.blind is not None}
    dummies = {b.id for b in state.blinds.values() if b.owner == enemy and b.dummy}
    return hidden, dummies


def game_clock(state) -> tuple[int, int]:
    """(the turn or period now, the scenario's limit)."""
    scenario = state.scenario
    return state.clock, scenario.turns if scenario.turns is not None else scenario.periods


def screens_on_table(state) -> Counter:
    """The laid smoke screens on the table now, each as a hashable key (burning terrain excluded)."""
    if state.scenario.ruleset.name == "chq":
        return Counter(("chq", mid) for mid, m in state.missions.items() if m.status == "screen")
    return Counter(
        (ms.kind, ms.owner, ms.side, ms.laid, ms.until_movement_of, ms.screen.polygon.wkb)
        for ms in state.screens
        if not ms.screen.is_gone
    )
