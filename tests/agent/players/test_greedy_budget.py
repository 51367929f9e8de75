"""What the greedy choice costs under a search's deadline: sampled chance nodes that draw their
share of the branches, and artillery calls weighed before they are all described."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from agent.players.greedy import GreedyPolicy
from agent.search.macro import OutOfTime
from engine.rulesets.met.actions import Mission


class _Dice:
    """``depth`` chance nodes in a row, each of ``faces`` equally likely faces; the leaf is worth
    the sum of the faces rolled (exact expectation: depth x (faces - 1) / 2)."""

    def __init__(self, depth: int, faces: int = 20, rolled: tuple[int, ...] = ()):
        self.depth, self.faces, self.rolled = depth, faces, rolled

    def is_chance_node(self) -> bool:
        return len(self.rolled) < self.depth

    def chance_outcomes(self):
        return [(face, Fraction(1, self.faces)) for face in range(self.faces)]

    def clone(self) -> "_Dice":
        return _Dice(self.depth, self.faces, self.rolled)

    def apply_action(self, face: int) -> None:
        self.rolled += (face,)


@pytest.fixture
def leaves(monkeypatch):
    """The leaves the greedy choice evaluates (each worth its dice's sum)."""
    seen = []
    monkeypatch.setattr("agent.players.greedy.evaluate", lambda state, side, weights: seen.append(state) or sum(state.rolled))
    return seen


def test_nested_sampled_nodes_cost_samples_to_the_depth_without_sharing_and_samples_with_it(leaves):
    GreedyPolicy(np.random.default_rng(0)).expected(_Dice(3), "us", 64)
    assert len(leaves) == 4**3
    leaves.clear()
    GreedyPolicy(np.random.default_rng(0), share_draws=True).expected(_Dice(3), "us", 64)
    assert len(leaves) == 4 and all(len(leaf.rolled) == 3 for leaf in leaves)


def test_shared_draws_estimate_the_exact_expectation(leaves):
    """Monte Carlo against the exact value 3 x 19 / 2 = 28.5: the mean of 3,000 estimates of 4
    paths each (standard error 0.09) lies within 0.5."""
    estimates = [GreedyPolicy(np.random.default_rng(seed), share_draws=True).expected(_Dice(3), "us", 64)
                 for seed in range(3000)]
    assert abs(np.mean(estimates) - 28.5) < 0.5


def test_an_enumerated_node_shares_its_branches_among_sampled_children(leaves):
    """10 faces are enumerated (at most 16), each face's 64 // 10 = 6 branches cap the 20-face
    node below at its 4 samples: 40 leaves, as many as the budget allows."""
    class _Mixed(_Dice):
        def chance_outcomes(self):
            faces = 10 if not self.rolled else 20
            return [(face, Fraction(1, faces)) for face in range(faces)]

        def clone(self):
            return _Mixed(self.depth, self.faces, self.rolled)

    GreedyPolicy(np.random.default_rng(0), share_draws=True).expected(_Mixed(2), "us", 64)
    assert len(leaves) == 40


def _battery_position():
    """MET: the British 25-pdrs' artillery phase, four German sections in the open."""
    from tests.engine.met.helpers import end_until, game, unit

    units = [unit("gb-bty", "25pdr Field Battery", "gb"), unit("gb-1", "Sherman V", "gb", (100, 50))]
    units += [unit(f"de-{i}", "Grenadier Section", "de", (300 + 120 * i, 560), 180) for i in range(4)]
    state = game(units)
    return end_until(state, "artillery", "gb")


def test_without_a_deadline_the_artillery_shortlist_is_weighed_as_before():
    state = _battery_position()
    calls = [a for a in state.legal_actions() if isinstance(a, Mission)]
    assert len(calls) > 30
    ranking = GreedyPolicy(np.random.default_rng(0), share_draws=True).ranked(state.clone())
    assert sum(isinstance(a, Mission) for _, a in ranking) == 6  # artillery_top
    assert len(ranking) == len(state.legal_actions()) - len(calls) + 6


def test_a_deadline_while_the_rest_are_described_still_ranks_the_engines_first_calls(monkeypatch):
    """The engine lists the aims at pieces first: the first 2 x artillery_top calls are described
    and the best of them weighed before the rest, so a deadline among the rest ranks them, where
    before it gave up the whole ranking (and a MET side's mortars stayed silent)."""
    state = _battery_position()
    actions = state.legal_actions()
    calls = [a for a in actions if isinstance(a, Mission)]
    described = []
    describe = type(state).describe_actions
    monkeypatch.setattr(type(state), "describe_actions",
                        lambda self, batch, detail=True: described.extend(batch) or describe(self, batch, detail))

    def deadline_after_the_first_calls():
        if sum(isinstance(a, Mission) for a in described) > 12:
            raise OutOfTime

    policy = GreedyPolicy(np.random.default_rng(0), check=deadline_after_the_first_calls, share_draws=True)
    ranking = policy.ranked(state.clone())
    ranked_calls = [a for _, a in ranking if isinstance(a, Mission)]
    assert len(ranked_calls) == 6 and set(ranked_calls) <= set(calls[:12])
    assert len([a for a in described if isinstance(a, Mission)]) < len(calls)
    assert ranking[0][1] in ranked_calls  # fire beats ending the phase with four sections in the open


@pytest.mark.parametrize("top", [3, 12])
def test_the_ai_s_greedy_plan_weighs_as_many_artillery_calls_as_its_setting(top, monkeypatch):
    """``SearchConfig.greedy_artillery_top`` is the shortlist of the search's anchor plan (the
    greedy source) and of ``greedy-rings``: its first ranking weighs exactly that many calls."""
    from agent.search import MacroSearch
    from agent.search.settings import search_config, search_options

    config = search_config(search_options([f"greedy_artillery_top={top}", "move_bearings=0"]))
    state = _battery_position()
    side = state.current_player()
    search = MacroSearch(side, np.random.default_rng(0), config=config)
    rankings = []
    ranked = GreedyPolicy.ranked
    monkeypatch.setattr(GreedyPolicy, "ranked", lambda self, *a, **k: rankings.append(ranked(self, *a, **k)) or rankings[-1])
    world = search.world(state)
    search.sources[0].plans(world, side, search.sim, np.random.default_rng(0))
    assert sum(isinstance(a, Mission) for _, a in rankings[0]) == top
