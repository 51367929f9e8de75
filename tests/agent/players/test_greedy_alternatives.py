"""The greedy plan's alternatives: the rollout algorithm's candidates for the search's root."""

from __future__ import annotations

import numpy as np
import pytest

from agent.players.greedy import GreedyPolicy
from agent.search import MacroSearch
from agent.search.sources import GreedySource

from .test_search import MAPS, _decision


def _position(name: str, skip: int):
    state = _decision(MAPS / f"{name}.json", skip=skip)
    side = state.current_player()
    search = MacroSearch(side, np.random.default_rng(0), sources=[])
    return search.world(state), side, search.sim


@pytest.mark.parametrize("name,skip", [("met_le_mesnil", 5), ("chq_smoke_advance", 4)])
def test_alternatives_open_with_the_greedy_ranking_s_next_orders_then_play_the_greedy_plan(name, skip):
    world, side, simulator = _position(name, skip)
    ranking = GreedyPolicy(np.random.default_rng(5)).ranked(world)  # the same draws as the source's first look
    assert len(ranking) >= 3
    plans = GreedySource(alternatives=2, margin=2.0).plans(world, side, simulator, np.random.default_rng(5))
    greedy, *alternatives = plans
    assert greedy.source == "greedy" and greedy.steps[0].action == ranking[0][1]
    assert [p.steps[0].action for p in alternatives] == [ranking[1][1], ranking[2][1]]
    for plan in alternatives:
        assert plan.source == "greedy alternative" and plan.follow == "greedy"
        assert world.is_legal(plan.steps[0].action)
        # then the greedy plan's orders that are still legal, in the greedy plan's order
        kept = [step for step in plan.steps[1:] if step in greedy.steps]
        assert kept and kept == [step for step in greedy.steps if step in kept]


def test_alternatives_are_only_the_orders_within_the_margin_of_the_best():
    world, side, simulator = _position("met_le_mesnil", 5)
    ranking = GreedyPolicy(np.random.default_rng(5)).ranked(world)
    best = ranking[0][0]
    margin = (best - ranking[2][0]) / 2 if best > ranking[2][0] else 0.0
    plans = GreedySource(alternatives=5, margin=margin).plans(world, side, simulator, np.random.default_rng(5))
    within = [action for value, action in ranking[1:6] if value >= best - margin]
    assert [p.steps[0].action for p in plans[1:]] == within[: len(plans) - 1]
    assert len(plans) - 1 == len(within)


def test_without_alternatives_the_source_gives_the_greedy_plan_alone():
    world, side, simulator = _position("met_le_mesnil", 5)
    plans = GreedySource().plans(world, side, simulator, np.random.default_rng(5))
    assert [p.source for p in plans] == ["greedy"]
