"""The AI's memory of its greedy rankings within a scope (agent.search.memory)."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

from agent.players import SearchPlayer
from agent.players.greedy import GreedyPolicy
from agent.search import MacroSearch, OutOfTime, SearchConfig
from agent.search.destinations import RingMoves
from agent.search.evaluation import Weights
from agent.search.memory import ChoiceMemory
from agent.search.sources import GreedySource

from .test_search import MAPS, _decision


def _world(name: str = "met_le_mesnil", skip: int = 0):
    """A world drawn from the observation at a MET side's first movement order (seven elements)."""
    state = _decision(MAPS / f"{name}.json", skip=skip)
    side = state.current_player()
    search = MacroSearch(side, np.random.default_rng(0), sources=[])
    return state, search.world(state), side, search.sim


class _Counted:
    """Counts the rankings GreedyPolicy makes afresh (recalled ones are not made)."""

    def __init__(self):
        self.made = 0
        ranked = GreedyPolicy._ranked

        def counted(policy, *args, **kwargs):
            self.made += 1
            return ranked(policy, *args, **kwargs)

        self.method = counted


def test_the_next_orders_search_recalls_the_rest_of_the_greedy_plan_instead_of_ranking_it_again():
    _, world, side, simulator = _world()
    memory, counted = ChoiceMemory(), _Counted()
    with mock.patch.object(GreedyPolicy, "_ranked", counted.method):
        [plan] = GreedySource(memory=memory).plans(world, side, simulator, np.random.default_rng(1))
        assert len(plan.steps) == 7 and counted.made == 7 and len(memory) == 7
        after = world.clone()  # the order is given: the next search starts one order later
        after.apply_action(plan.steps[0].action)
        [again] = GreedySource(memory=memory).plans(after, side, simulator, np.random.default_rng(2))
        assert counted.made == 7  # nothing ranked afresh
        assert again.steps == plan.steps[1:]
        assert (memory.hits, memory.misses) == (6, 7)
        # without a memory the same plan costs its six rankings again
        [fresh] = GreedySource().plans(after, side, simulator, np.random.default_rng(2))
        assert counted.made == 13 and fresh.actions == again.actions


def test_a_recalled_ranking_is_the_one_made_in_that_position():
    _, world, side, _ = _world()
    memory = ChoiceMemory()
    made = GreedyPolicy(np.random.default_rng(3), memory=memory).ranked(world)
    recalled = GreedyPolicy(np.random.default_rng(4), memory=memory).ranked(world.clone())
    assert recalled == made and memory.hits == 1
    assert GreedyPolicy(np.random.default_rng(3)).ranked(world) == made  # the memory changed nothing


def test_a_policy_that_ranks_otherwise_does_not_recall_anothers_ranking():
    _, world, _, _ = _world()
    memory = ChoiceMemory()
    GreedyPolicy(np.random.default_rng(3), memory=memory).ranked(world)
    GreedyPolicy(np.random.default_rng(3), memory=memory, weights=Weights(risk=3.0)).ranked(world)
    GreedyPolicy(np.random.default_rng(3), memory=memory, more=RingMoves(bearings=4)).ranked(world)
    assert (memory.hits, memory.misses, len(memory)) == (0, 3, 3)


def test_a_ranking_cut_short_by_the_deadline_is_not_kept():
    """Out of time among the destinations off the engine's list, the order is chosen from what
    was weighed; the next search must weigh them all, not recall the short list."""
    _, world, _, _ = _world()
    rings, looks = RingMoves(), []

    def more(world, ranking):
        looks.append(0)  # the engine's list is weighed: the clock runs from here
        return rings(world, ranking)

    def deadline_among_the_rings():
        if looks:
            looks.append(1)
            if len(looks) > 30:
                raise OutOfTime

    memory = ChoiceMemory()
    listed, offered = len(world.legal_actions()), len(rings(world))
    ranking = GreedyPolicy(np.random.default_rng(3), memory=memory, more=more, check=deadline_among_the_rings).ranked(world)
    assert listed < len(ranking) < listed + offered
    assert len(memory) == 0
    whole = GreedyPolicy(np.random.default_rng(3), memory=memory, more=rings).ranked(world)
    assert len(whole) > len(ranking) + 100 and len(memory) == 1


def test_the_key_is_what_the_side_sees_not_the_world_drawn():
    """Worlds drawn from one observation with different hidden truths (which blinds are dummies)
    share a key: the memory reads nothing hidden."""
    state, _, side, _ = _world()
    search = MacroSearch(side, np.random.default_rng(0), sources=[])
    worlds = [search.world(state, np.random.default_rng(seed)) for seed in range(6)]
    truths = {tuple(sorted((b.id, b.dummy) for b in w.blinds.values())) for w in worlds}
    assert len(truths) > 1
    assert len({ChoiceMemory.key(w, "policy") for w in worlds}) == 1
    assert ChoiceMemory.key(worlds[0], "policy") != ChoiceMemory.key(worlds[0], "another policy")


def test_the_memory_keeps_the_most_recent_rankings_within_its_capacity():
    memory = ChoiceMemory(capacity=2)
    for key in ("a", "b", "a", "c"):
        memory.keep(key, [(0.0, key)])
    assert memory.recall("b") is None and memory.recall("a") == [(0.0, "a")] and memory.recall("c") == [(0.0, "c")]
    memory.keep(None, [(0.0, "x")])  # a ruleset whose observation is no key: nothing kept
    memory.keep("empty", [])
    assert len(memory) == 2 and memory.recall(None) is None


def test_an_unhashable_observation_is_no_key():
    _, world, _, _ = _world()
    with mock.patch.object(type(world), "observation", lambda self, side: {"side": side}):
        assert ChoiceMemory.key(world, "policy") is None


@pytest.mark.parametrize("remember", [True, False])
def test_the_ai_remembers_within_a_scope_and_forgets_at_the_next(remember):
    state = _decision(MAPS / "met_le_mesnil.json")
    side = state.current_player()
    scope = state.plan_scope(side)
    ai = SearchPlayer(seed=2, iterations=4, time_per_decision=None, config=SearchConfig(remember=remember))
    orders = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
            continue
        mover = state.current_player()
        if mover == side and state.plan_scope(side) != scope and orders:
            break  # the scope is over
        state.apply_action(ai.act(state) if mover == side else state.legal_actions()[0])
        orders += mover == side
    assert orders >= 3
    if not remember:
        assert len(ai.memory) == 0 and ai.memory.hits == 0
        return
    assert ai.memory.hits >= orders - 1  # each later order recalled at least its own first ranking
    ai.act(state)  # the first order of the next scope
    assert {key[1] for key in ai.memory._rankings} == {state.plan_scope(side)}
