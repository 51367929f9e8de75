"""Chance nodes in search: enumerated where small, sampled where large.

Inside a simulation a chance node is resolved by :class:`ChanceResolver`: a node with at most
``enumerate_limit`` outcomes is *stratified* (successive visits of the same edge of the search
tree walk the outcomes in exact proportion to their probabilities, by a low-discrepancy
sequence over the exact cumulative distribution), a larger one is sampled with the search's
generator. At a leaf, a small chance node is enumerated exactly: the leaf's value is the
probability-weighted mean over its outcomes (:func:`expected_leaf`).

Examples
--------
>>> import numpy as np
>>> from fractions import Fraction
>>> outcomes = [("hit", Fraction(1, 4)), ("miss", Fraction(3, 4))]
>>> resolver = ChanceResolver(np.random.default_rng(0), enumerate_limit=4)
>>> [resolver.pick(outcomes, stream=7, visit=k) for k in range(8)].count("hit")
2
"""

from __future__ import annotations

import math
from typing import Callable, Hashable, Sequence

import numpy as np

from engine.game import GameState

__all__ = ["ChanceResolver", "expected_leaf"]

_PHI = (math.sqrt(5.0) - 1.0) / 2.0


class ChanceResolver:
    """Resolves chance nodes for one search, reproducibly from its generator."""

    def __init__(self, rng: np.random.Generator, enumerate_limit: int = 12):
        self.rng = rng
        self.enumerate_limit = int(enumerate_limit)

    def pick(self, outcomes: Sequence[tuple[Hashable, object]], stream: int | None = None, visit: int = 0):
        """One outcome. ``stream`` names the chance event (its edge and order in the simulation);
        with a stream, a small node is stratified over ``visit``; otherwise it is sampled."""
        probabilities = np.array([float(p) for _, p in outcomes])
        probabilities /= probabilities.sum()
        if stream is not None and len(outcomes) <= self.enumerate_limit:
            offset = ((stream * 0x9E3779B1) % 2**32) / 2**32
            u = (offset + visit * _PHI) % 1.0
            index = int(np.searchsorted(np.cumsum(probabilities), u, side="right"))
            return outcomes[min(index, len(outcomes) - 1)][0]
        return outcomes[int(self.rng.choice(len(outcomes), p=probabilities))][0]

    def resolve(self, state: GameState, stream: int | None = None, visit: int = 0) -> None:
        """Apply one outcome of the chance node ``state`` is at."""
        state.apply_action(self.pick(state.chance_outcomes(), stream, visit))


def expected_leaf(state: GameState, value: Callable[[GameState], float], enumerate_limit: int = 12,
                  check: Callable[[], None] | None = None) -> float:
    """``value(state)``; at a chance node with few outcomes, its exact expectation over them.

    ``check`` is called before each outcome is valued (a search's deadline): each outcome is a
    fresh position whose sight must be worked out, up to a tenth of a second on
    chq_tot_crossroads, so a dozen of them could carry a search well past its budget."""
    if not state.is_chance_node():
        return value(state)
    outcomes = state.chance_outcomes()
    if len(outcomes) > enumerate_limit:
        return value(state)
    total = 0.0
    for outcome, p in outcomes:
        if check is not None:
            check()
        child = state.clone()
        child.apply_action(outcome)
        total += float(p) * value(child)
    return total
