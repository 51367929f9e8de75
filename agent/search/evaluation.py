"""Evaluation of a position for search leaves and for the greedy player.

A ruleset measures the situation in its own points (``state.features(side)``: morale,
objectives that would change hands now, soft pressure on the objectives, dispersal risk, the
balance of fire possible now, on MET elements still fighting, the next volley's expected
harm and its chance to end the game, share of the game left, a decisive difference); this
module weighs those features into one number in ``[-1, 1]`` for ``side``: morale, objectives,
risk, the volley and its chance to end the game (as that many decisive differences) count in
full, pressure, fire and material (which pay off only later) in proportion to the share of the
game left. A finished game is worth its result (+1 / 0 / -1) with the final score as a small
tie-break, so a certain win always beats any unfinished position.
The squashing is wider early in the game (``early``): a lead with most of the game left is
less sure to last than the same lead near the end (``experiments/fit_evaluation.py`` fits the
weights to how games end).

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

import numpy as np

from engine.game import GameState

__all__ = ["Weights", "DEFAULT_WEIGHTS", "SEARCH_WEIGHTS", "FEATURES", "draw_chance", "evaluate", "feature_row",
           "point_value", "unfinished_value"]

#: The features an unfinished position's value is made of (``state.features``).
FEATURES = ("morale", "objectives", "pressure", "risk", "fire", "material", "volley", "collapse", "remaining", "scale")


@dataclass(frozen=True, slots=True)
class Weights:
    """How much each feature (in the ruleset's points) counts, and how far from 1 a position
    that is not finished may go (``ceiling``)."""

    objectives: float = 0.8
    pressure: float = 0.6
    risk: float = 1.0
    fire: float = 0.5
    material: float = 0.0  # elements still fighting (MET), in proportion to the share of the game left
    volley: float = 0.0  # the expected harm of the next direct fire (MET), in full: it comes this period
    collapse: float = 0.0  # the chance the next direct fire ends the game by morale (MET), in decisive differences
    ceiling: float = 0.9
    terminal_score: float = 0.1
    scale: float = 1.0  # width of the squashing at the game's end, in decisive differences: smaller is surer
    early: float = 0.0  # width added with the whole game left (in proportion to the share left)


#: The greedy player's weights, which the maps' handicaps were balanced with.
DEFAULT_WEIGHTS = Weights()

#: The search's leaf values: weights fitted to how 240 greedy games ended
#: (``experiments/fit_evaluation.py --games 30 --validate 15``). Their values forecast results
#: better than the defaults (mean squared error 0.673 against 0.799 on 120 fresh games, 0.866
#: forecasting 0): the fire balance counts far more, soft pressure not at all, and a lead is
#: judged by how much of the game is left to overturn it. The chance that the next volley ends
#: the game counts as a decisive difference (``collapse=1``, set by hand, not fitted): in play it
#: went better than without in 7 games and worse in 2 (README, row "collapse").
SEARCH_WEIGHTS = Weights(objectives=0.6, pressure=0.0, risk=1.396, fire=4.417, collapse=1.0, scale=0.01, early=3.104)


def point_value(state: GameState, side: str, weights: Weights = DEFAULT_WEIGHTS, features: dict | None = None) -> float:
    """The expected point difference for ``side`` the features suggest (unbounded)."""
    return _points(state.features(side) if features is None else features, weights)


def _points(f: dict, weights: Weights):
    return (
        f["morale"]
        + weights.objectives * f["objectives"]
        + weights.pressure * f["remaining"] * f["pressure"]
        + weights.risk * f["risk"]
        + weights.fire * f["remaining"] * f.get("fire", 0.0)
        + weights.material * f["remaining"] * f.get("material", 0.0)
        + weights.volley * f.get("volley", 0.0)
        + weights.collapse * f["scale"] * f.get("collapse", 0.0)
    )


def unfinished_value(features: dict, weights: Weights = DEFAULT_WEIGHTS):
    """The value of an unfinished position from its features: numbers, or arrays of many
    positions' features at once (``experiments/fit_evaluation.py`` fits the weights so)."""
    return weights.ceiling * np.tanh(_points(features, weights) / _width(features, weights))


def _width(features: dict, weights: Weights):
    """The squashing's width in points: the decisive difference, wider with more of the game left."""
    return features["scale"] * (weights.scale + weights.early * features["remaining"])


def draw_chance(features: dict, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """The chance an unfinished position ends level: its point margin read as the mean of a
    normal final margin as wide as the squashing, the chance that margin lands within half a
    point of level. Early the width is several decisive differences and a draw is unlikely;
    with the game nearly over it shrinks, and a level position is a likely draw."""
    spread = _width(features, weights) * math.sqrt(2.0)
    margin = _points(features, weights)
    return 0.5 * (math.erf((0.5 - margin) / spread) - math.erf((-0.5 - margin) / spread))


def feature_row(state: GameState, side: str) -> dict[str, float]:
    """``side``'s :data:`FEATURES` in ``state``, as numbers (to fit the weights to results)."""
    features = state.features(side)
    return {k: float(features.get(k, 0.0)) for k in FEATURES}


def evaluate(state: GameState, side: str, weights: Weights = DEFAULT_WEIGHTS, contempt: float = 0.0) -> float:
    """Value of ``state`` for ``side`` in ``[-1, 1]``; without contempt exactly antisymmetric
    between the sides.

    ``contempt`` (a chess engine's word) is what a draw costs ``side``: a level finish, or an
    unfinished position's :func:`draw_chance`, counts that much against it, so that it plays
    to win rather than to not lose. With contempt the value is no longer antisymmetric: a
    search that negates it for the enemy reads the enemy as glad of a draw."""
    if state.is_terminal():
        result = float(state.returns()[side])
        score = float(state.score()[side])
        value = (1.0 - weights.terminal_score) * result + weights.terminal_score * score
        return value - contempt if (contempt and result == 0.0) else value
    features = state.features(side)
    value = float(unfinished_value(features, weights))
    return value - contempt * draw_chance(features, weights) if contempt else value
