"""Scoring what a fire plan actually did, to check its predicted expected value.

The planners predict from what the side knows; these functions score an outcome *after the fact*,
with the same frozen values (the :class:`~agent.fires.board.Board` built when planning), on the
state the game reached. A Blind is scored under the hypothesis that came true (the unit it hid or
a dummy: the truth, read through the scoring-only hook ``scoring_unit_under``); a unit still under
its Blind may have been hit through its base. Nothing here is used by the planners.

:func:`realised_effect` scores one state; :func:`realise` plays a plan's actions ``n`` times on
clones with independent dice (each clone's own seeded generator) and returns the realised effects,
for a Monte Carlo check of a plan's ``expected_value``.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from dataclasses import replace

from .board import Board

__all__ = ["realised_effect", "realise", "mean_and_ci"]


def realised_effect(board: Board, state, now: bool = True) -> float:
    """The effect (in the board's values) of everything that happened between the board's state
    and ``state``: for every piece the board tracks, damage there minus damage at the start."""
    fp = state.fire_planning()
    total = 0.0
    for key, tracks in board.by_key.items():
        first = tracks[0]
        if first.hypothesis:  # an enemy Blind when planned: score the hypothesis that was true
            blind = first.start.blind
            unit = fp.scoring_unit_under(blind)
            if unit is None:
                track = next(t for t in tracks if t.hypothesis == "dummy")
                after = track.start if state.blinds[blind].alive else replace(track.start, pos=None, hidden=False, gone=True)
            else:
                track = next(t for t in tracks if t.hypothesis == fp.battery_kind(unit))
                real = fp.unit_piece(unit)  # hidden or not: a template may catch its base, not its marker
                after = replace(track.start, pos=real.pos, disruption=real.disruption, suppressed=real.suppressed,
                                hidden=state.blinds[blind].alive and real.hidden, gone=real.gone)
        else:
            track = first
            after = fp.unit_piece(track.start.unit)
        after = _canonical(board, track, after)
        start = board.damage(track, board.sid(track.start), now)
        total += track.value.sign * (board.damage(track, board.sid(after), now) - start)
    return total


def _canonical(board: Board, track, state):
    """A dispersed unit as the hooks' landing outcomes write it (only its Disruption matters)."""
    if state.gone or state.pos is None:
        cohesion = track.value.cohesion
        return type(state)(state.side, state.unit, state.blind, None, state.facing, cohesion if state.unit is not None else 0,
                           False, False, True)
    return state


def realise(state, actions: Sequence, board: Board, n: int, seed: int = 0, *, finish=None, now: bool = True) -> np.ndarray:
    """Apply ``actions`` to ``n`` clones of ``state`` with independent dice and score each.

    Chance nodes are sampled with each clone's generator (seeded ``seed + i``). After each action
    the chance nodes are resolved until the next decision; ``finish(state)`` (optional) may then
    play on (e.g. end the pulse) before scoring.
    """
    out = np.empty(n)
    for i in range(n):
        game = state.clone()
        game.rng = np.random.default_rng(seed + i)
        for action in actions:
            game.apply_action(action)
            while game.is_chance_node():
                game.apply_action(game.sample_chance())
        if finish is not None:
            finish(game)
        out[i] = realised_effect(board, game, now)
    return out


def mean_and_ci(values: np.ndarray, z: float = 1.96) -> tuple[float, float, float]:
    """Mean and its ``z``-sigma confidence half-width (normal approximation), and the std."""
    values = np.asarray(values, dtype=float)
    sd = float(values.std(ddof=1)) if len(values) > 1 else 0.0
    return float(values.mean()), z * sd / math.sqrt(max(len(values), 1)), sd
