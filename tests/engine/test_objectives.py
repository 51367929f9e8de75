"""Advancing on the objectives: pieces spread over them (``match_objectives``, the rulesets' move
descriptions), and the pressure feature rewards closing in while there is time to arrive."""

from __future__ import annotations

import doctest
import itertools
import math
from pathlib import Path

import pytest

import engine.rulesets.objectives as objectives_module
from engine.rulesets.chq import search_hooks as chq_hooks
from engine.rulesets.met import search_hooks as met_hooks
from engine.rulesets.objectives import match_objectives
from engine.scenario import load_scenario

MAPS = Path(__file__).resolve().parents[2] / "maps"


def test_the_doctest_holds():
    assert doctest.testmod(objectives_module).failed == 0


def test_one_piece_per_objective_nearest_pairs_first():
    pieces = [("near-both", (0.0, 0.0)), ("second", (0.0, 3.0)), ("third", (9.0, 9.0))]
    objectives = [("a", (0.0, 1.0)), ("b", (0.0, 4.0))]
    # near-both is nearest a (1) and b (4); second is 1 from b: the pairs go a-near-both, b-second
    assert match_objectives(pieces, objectives) == {"near-both": "a", "second": "b"}
    assert match_objectives(pieces, []) == {} and match_objectives([], objectives) == {}


@pytest.mark.parametrize("seed", range(20))
def test_the_matching_is_the_greedy_one_found_by_brute_force(seed):
    """Checked against its definition: repeatedly take the globally nearest free (piece, objective)."""
    import random

    rng = random.Random(seed)
    pieces = [(f"p{i}", (rng.uniform(0, 50), rng.uniform(0, 50))) for i in range(rng.randint(1, 5))]
    objectives = [(f"o{j}", (rng.uniform(0, 50), rng.uniform(0, 50))) for j in range(rng.randint(1, 4))]
    expected, free_p, free_o = {}, dict(pieces), dict(objectives)
    while free_p and free_o:
        p, o = min(itertools.product(free_p, free_o), key=lambda po: math.dist(free_p[po[0]], free_o[po[1]]))
        expected[p] = o
        del free_p[p], free_o[o]
    assert match_objectives(pieces, objectives) == expected


def test_chq_a_defender_sends_a_piece_to_the_crossroads_not_everyone_to_the_church():
    """chq_saint_aubin: the mortar is nearest the church, so the PaK's Blind (de-b3) makes for the
    crossroads; the rifles' Blinds, matched to nothing, make for the nearest objective, the church."""
    state = load_scenario(MAPS / "chq_saint_aubin.json").new_game(seed=0)
    describer = chq_hooks._Describer(state)
    describer.side, describer.enemy = "de", "us"
    church, crossroads = (38.0, 40.0), (38.0, 22.0)
    assert describer.goal(state.blinds["de-b3"].pos, "de-b3") == crossroads
    assert describer.goal(state.units["de-mortar-1"].pos, "de-mortar-1") == church
    assert describer.goal(state.blinds["de-b1"].pos, "de-b1") == church


def test_met_attackers_split_between_the_farm_and_the_crest():
    """met_strong_ridge: the Panther is nearest the farm, so the Panzer IV makes for the crest."""
    state = load_scenario(MAPS / "met_strong_ridge.json").new_game(seed=0)
    describer = met_hooks._Describer(state)
    describer.side, describer.enemy = "de", "gb"
    crest, farm = (640.0, 320.0), (290.0, 590.0)
    elements = state.elements
    assert describer.goal(elements["de-panther-1"].position, "de-panther-1") == farm
    assert describer.goal(elements["de-pz-1"].position, "de-pz-1") == crest
    assert describer.goal(elements["de-gren-1"].position, "de-gren-1") == farm


def _advanced(state, element: str, distance: float, towards):
    """A copy of a MET ``state`` with ``element`` moved ``distance`` straight towards a point."""
    copy = state.clone()
    moved = copy.elements[element]
    x, y = moved.position
    d = math.dist((x, y), towards)
    moved.position = (x + (towards[0] - x) * distance / d, y + (towards[1] - y) * distance / d)
    return copy


def _at_last_period(state):
    copy = state.clone()
    copy.period = copy.periods
    return copy


def test_met_pressure_rewards_an_advance_far_out_early_more_than_late():
    """Closeness decays over one typical move (the median, 100 m) times the periods left: a Sherman
    815 m from the farm's edge gains by advancing 150 m in the first of ten periods (it can still
    arrive: 3 points x (exp(-665/1000) - exp(-815/1000)) = 0.21 from the farm alone), and next to
    nothing in the last one."""
    state = load_scenario(MAPS / "met_le_mesnil.json").new_game(seed=0)
    farm = (725.0, 995.0)
    early = _advanced(state, "gb-sherman-3", 150.0, farm).features("gb")["pressure"] - state.features("gb")["pressure"]
    last = _at_last_period(state)
    late = _advanced(last, "gb-sherman-3", 150.0, farm).features("gb")["pressure"] - last.features("gb")["pressure"]
    assert early > 0.2 and 0.0 < late < 0.02
