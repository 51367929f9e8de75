"""Contempt: what a draw costs the searching side, so that it plays to win."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agent.search import SearchConfig
from agent.search.evaluation import SEARCH_WEIGHTS, Weights, draw_chance, evaluate, unfinished_value
from agent.search.settings import search_config, search_options
from engine.scenario import load_scenario

MAPS = "maps"


def _features(morale: float, remaining: float, scale: float = 4.0) -> dict:
    zero = dict.fromkeys(("objectives", "pressure", "risk", "fire", "material", "volley", "collapse"), 0.0)
    return zero | {"morale": morale, "remaining": remaining, "scale": scale}


def _normal_mass(mean: float, sd: float, low: float, high: float) -> float:
    """The normal's mass on [low, high] by the trapezoid rule on its density (independent of erf)."""
    x = np.linspace(low, high, 20001)
    density = np.exp(-0.5 * ((x - mean) / sd) ** 2) / (sd * math.sqrt(2.0 * math.pi))
    return float(np.sum((density[1:] + density[:-1]) * np.diff(x)) / 2.0)


@pytest.mark.parametrize("morale, remaining", [(0.0, 0.05), (0.3, 0.05), (-1.0, 0.1), (2.0, 0.9), (0.0, 0.9)])
def test_the_draw_chance_is_the_normal_final_margins_mass_within_half_a_point(morale, remaining):
    weights = Weights(scale=0.2, early=3.0)
    features = _features(morale, remaining)
    width = 4.0 * (0.2 + 3.0 * remaining)
    assert math.isclose(draw_chance(features, weights), _normal_mass(morale, width, -0.5, 0.5), rel_tol=1e-6)


def test_a_level_position_is_a_likelier_draw_late_than_early():
    early, late = _features(0.0, 0.9), _features(0.0, 0.05)
    assert draw_chance(late, SEARCH_WEIGHTS) > 0.5 > 0.1 > draw_chance(early, SEARCH_WEIGHTS)
    assert draw_chance(_features(3.0, 0.05), SEARCH_WEIGHTS) < 1e-3  # three points up at the end: hardly a draw


class _Finished:
    """A finished game's surface as evaluate reads it."""

    def __init__(self, result: float, score: float):
        self.result, self.margin = result, score

    def is_terminal(self):
        return True

    def returns(self):
        return {"gb": self.result, "de": -self.result}

    def score(self):
        return {"gb": self.margin, "de": -self.margin}


def test_contempt_takes_its_value_off_a_level_finish_and_only_off_a_level_finish():
    weights = Weights()
    assert evaluate(_Finished(0.0, 0.0), "gb", weights, contempt=0.4) == pytest.approx(-0.4)
    assert evaluate(_Finished(0.0, 0.0), "de", weights, contempt=0.4) == pytest.approx(-0.4)  # each side's own contempt
    assert evaluate(_Finished(1.0, 0.5), "gb", weights, contempt=0.4) == pytest.approx(0.9 + 0.05)
    assert evaluate(_Finished(1.0, 0.5), "de", weights, contempt=0.4) == pytest.approx(-0.9 - 0.05)


def test_contempt_takes_the_draw_chance_off_an_unfinished_position():
    state = load_scenario(f"{MAPS}/met_burning_village.json").new_game(seed=1)
    features = state.features("gb")
    plain = evaluate(state, "gb", SEARCH_WEIGHTS)
    assert plain == pytest.approx(float(unfinished_value(features, SEARCH_WEIGHTS)))
    assert plain == pytest.approx(-evaluate(state, "de", SEARCH_WEIGHTS))  # no contempt: antisymmetric
    chance = draw_chance(features, SEARCH_WEIGHTS)
    assert 0.0 < chance < 1.0
    assert evaluate(state, "gb", SEARCH_WEIGHTS, contempt=0.5) == pytest.approx(plain - 0.5 * chance)


def test_contempt_is_a_search_setting_off_by_default():
    assert SearchConfig().contempt == 0.0
    assert search_config(search_options(["contempt=0.5"])).contempt == 0.5


def test_the_searchs_leaves_are_valued_with_its_contempt(monkeypatch):
    import agent.search.mcts as mcts

    seen = []

    def spy(state, side, weights, contempt=0.0):
        seen.append(contempt)
        return evaluate(state, side, weights, contempt)

    monkeypatch.setattr(mcts, "evaluate", spy)
    state = load_scenario(f"{MAPS}/met_le_mesnil.json").new_game(seed=1)
    search = mcts.MacroSearch(state.current_player(), np.random.default_rng(0), config=SearchConfig(contempt=0.25))
    search.run(state, iterations=2, seconds=None)
    assert seen and set(seen) == {0.25}
