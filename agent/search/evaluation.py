"""Evaluation of a position for search leaves and for the greedy player.

A ruleset measures the situation in its own points (``state.features(side)``: morale,
objectives that would change hands now, soft pressure on the objectives, dispersal risk, the
balance of fire possible now, share of the game left, a decisive difference); this module
weighs those features into one number in ``[-1, 1]`` for ``side``: morale, objectives and
risk count in full, pressure and fire (which pay off only later) in proportion to the share
of the game left. A finished game is worth its result (+1 / 0 / -1) with the
final score as a small tie-break, so a certain win always beats any unfinished position.

Examples
--------
>>> from engine.scenario import load_scenario
>>> state = load_scenario("maps/chq_smoke_advance.json").new_game(seed=1)
>>> value = evaluate(state, "us")
>>> -1.0 <= value <= 1.0 and abs(value + evaluate(state, "de")) < 1e-12
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.game import GameState

__all__ = ["Weights", "DEFAULT_WEIGHTS", "evaluate", "point_value"]


@dataclass(frozen=True, slots=True)
class Weights:
    """How much each feature (in the ruleset's points) counts, and how far from 1 a position
    that is not finished may go (``ceiling``)."""

    objectives: float = 0.8
    pressure: float = 0.6
    risk: float = 1.0
    fire: float = 0.5
    ceiling: float = 0.9
    terminal_score: float = 0.1
    scale: float = 1.0  # times the ruleset's decisive difference: smaller is more wary of chance


DEFAULT_WEIGHTS = Weights()


def point_value(state: GameState, side: str, weights: Weights = DEFAULT_WEIGHTS, features: dict | None = None) -> float:
    """The expected point difference for ``side`` the features suggest (unbounded)."""
    f = state.features(side) if features is None else features
    return (
        f["morale"]
        + weights.objectives * f["objectives"]
        + weights.pressure * f["remaining"] * f["pressure"]
        + weights.risk * f["risk"]
        + weights.fire * f["remaining"] * f.get("fire", 0.0)
    )


def evaluate(state: GameState, side: str, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """Value of ``state`` for ``side`` in ``[-1, 1]``; exactly antisymmetric between the sides."""
    if state.is_terminal():
        result = float(state.returns()[side])
        score = float(state.score()[side])
        return (1.0 - weights.terminal_score) * result + weights.terminal_score * score
    features = state.features(side)
    return weights.ceiling * math.tanh(point_value(state, side, weights, features) / (weights.scale * features["scale"]))
