"""The Initial Barrage planner (CHQ-25 to CHQ-28): never reads what is under a Blind, values each
Blind by a belief whose average over the possible truths is the engine's exact value, and is
optimal (CP-SAT equals exhaustive)."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest

import agent.fires as F
from agent.fires.barrage import build_barrage, make_barrage_plan, solve_barrage_cpsat, solve_barrage_exhaustive
from agent.fires.verify import realised_effect
from engine.rulesets.chq.actions import D3, Barrage
from engine.scenario import load_scenario, parse_scenario

from tests.engine.chq.helpers import with_settings

from .engine_exact import expectation

MAP = Path(__file__).resolve().parents[3] / "maps" / "chq_blind_barrage.json"
BLINDS = {"de-b1": (16, 26), "de-b2": (32, 27), "de-b3": (8, 27), "de-b4": (40, 26)}


def variant(truth: dict[str, str | None], *, batteries: int = 2):
    """The Blinds map with ``truth`` {blind: unit or None}: the units stand under their Blinds."""
    data = json.loads(MAP.read_text())
    for blind in data["blinds"]:
        blind.pop("dummy", None)
        if truth[blind["id"]] is None:
            blind["dummy"] = True
    for u in data["units"]:
        if u["id"] in truth.values():
            where = next(b for b, v in truth.items() if v == u["id"])
            u["blind"], u["position"] = where, list(BLINDS[where])
    units = [u for u in data["units"] if not u["id"].startswith("gb-bty")]
    units += [{"id": f"gb-bty-{i + 1}", "card": "British 25pdr Battery", "side": "gb"} for i in range(batteries)]
    data["units"] = units
    return parse_scenario(json.dumps(data))


def at_barrage(sc, rounds: int, seed: int = 3, **settings):
    state = with_settings(sc, seed, **settings) if settings else sc.new_game(seed=seed)
    state.apply_action(D3(rounds))  # the attacker's D3 of rounds (Take and Hold, CHQ-26)
    return state


TRUTH = {"de-b1": "de-rifle-1", "de-b2": "de-pak-1", "de-b3": None, "de-b4": None}
FLIPPED = {"de-b1": None, "de-b2": None, "de-b3": "de-pak-1", "de-b4": "de-rifle-1"}


def test_chq_28_barrage_plan_never_reads_the_blinds_truth():
    """Flip which Blinds hide the units: the plan, its values and its words do not change,
    although what the barrage really does changes."""
    plans, engine = [], []
    for truth in (TRUTH, FLIPPED):
        state = at_barrage(variant(truth), rounds=2)
        plan = F.plan_barrage(state, "gb")
        plans.append(plan)
        board = build_barrage(state, "gb").board
        value, _ = expectation(state, plan.actions(), lambda s: realised_effect(board, s))
        engine.append(float(value))
    a, b = plans
    assert [str(x) for x in a.actions()] == [str(x) for x in b.actions()]
    assert a.per_blind == b.per_blind and a.expected_value == b.expected_value
    assert a.explain().splitlines()[1:] == b.explain().splitlines()[1:]
    assert abs(engine[0] - engine[1]) > 1e-3  # the truth matters to the dice, not to the plan


def test_chq_27_belief_value_is_the_average_of_the_engines_exact_values_over_all_truths():
    """Every truth consistent with what the British know (two of the four Blinds real, hiding
    the rifle platoon and the PaK): the round's planned value equals the mean of the engine's
    exact expected effect of the same orders under each truth."""
    truths = []
    for real in itertools.permutations(sorted(BLINDS), 2):
        truth = {b: None for b in BLINDS}
        truth[real[0]], truth[real[1]] = "de-rifle-1", "de-pak-1"
        truths.append(truth)
    assert len(truths) == 12
    plan = problem = None
    total = Fraction(0)
    for truth in truths:
        state = at_barrage(variant(truth, batteries=3), rounds=1)
        if plan is None:
            problem = build_barrage(state, "gb")
            plan = make_barrage_plan(problem, solve_barrage_cpsat(problem))
        else:
            assert [str(x) for x in F.plan_barrage(state, "gb").actions()] == [str(x) for x in plan.actions()]
        value, _ = expectation(state, plan.actions(), lambda s: realised_effect(problem.board, s))
        total += value
    assert len({a.blind for a in plan.actions()}) >= 1
    assert plan.round_values[0][1] == pytest.approx(float(total / len(truths)), abs=1e-9)


@pytest.mark.parametrize("batteries,rounds,one_blind", [(2, 2, False), (3, 3, False), (3, 2, True), (1, 3, False)])
def test_chq_26_cpsat_equals_exhaustive(batteries, rounds, one_blind):
    settings = {"barrage_one_blind_per_round": True} if one_blind else {}
    state = at_barrage(variant(TRUTH, batteries=batteries), rounds=rounds, **settings)
    problem = build_barrage(state, "gb", smoke_candidates=6)
    cp, ex = solve_barrage_cpsat(problem), solve_barrage_exhaustive(problem)
    assert cp.status == "OPTIMAL" and cp.objective == ex.objective
    plan = make_barrage_plan(problem, cp)
    if one_blind:
        assert all(len(groups) <= 1 for _, groups, _, _ in plan.allocation)


@pytest.mark.parametrize("max_smoke", [1, 2])
def test_chq_27_cpsat_equals_exhaustive_with_smoke_in_the_last_round(max_smoke):
    from engine.scenario import load_scenario

    data = json.loads(Path(MAP.parent / "chq_smoke_advance.json").read_text())
    data["units"] += [{"id": "us-bty-2", "card": "US 105mm Battery", "side": "us"}]
    state = parse_scenario(json.dumps(data)).new_game(seed=3)
    problem = build_barrage(state, "us", max_smoke=max_smoke, smoke_candidates=6)
    assert problem.smoke
    cp, ex = solve_barrage_cpsat(problem), solve_barrage_exhaustive(problem)
    assert cp.status == "OPTIMAL" and cp.objective == ex.objective > 0
    assert len(cp.smoke) <= max_smoke
    del load_scenario


def test_chq_25_every_battery_fires_each_round_and_the_orders_apply():
    state = at_barrage(variant(TRUTH, batteries=3), rounds=3)
    for _ in range(3):
        plan = F.plan_barrage(state, "gb")
        assert sorted(a.battery for a in plan.actions()) == ["gb-bty-1", "gb-bty-2", "gb-bty-3"]
        for r, groups, screens, holding in plan.allocation:
            named = [b for _, bs in groups for b in bs] + [b for b, _, _ in screens] + list(holding)
            assert sorted(named) == ["gb-bty-1", "gb-bty-2", "gb-bty-3"]
            assert not screens or r == plan.rounds[-1]  # smoke only in the last round (CHQ-27)
            assert not holding or not groups
        for action in plan.actions():
            assert isinstance(action, Barrage)
            state.apply_action(action)
        while state.is_chance_node():
            state.apply_action(state.sample_chance())
        if state.barrage is None:
            break


def test_chq_26_d3_rounds_before_the_roll_are_planned_as_their_distribution():
    state = variant(TRUTH).new_game(seed=3)
    assert state.pending()[0] == "d3_rounds"
    plan = F.plan_barrage(state, "gb")
    values = dict(plan.alternatives)
    assert set(values) == {1, 2, 3, "D3 (mean)"}
    assert values["D3 (mean)"] == pytest.approx((values[1] + values[2] + values[3]) / 3)
    assert values[1] <= values[2] <= values[3]
    known = F.plan_barrage(at_barrage(variant(TRUTH), rounds=3), "gb")
    assert known.rounds == (1, 2, 3) and not known.alternatives
    assert known.expected_value == pytest.approx(values[3])


def test_chq_27_smoke_in_the_last_round_is_placed_for_our_first_move():
    from engine.scenario import load_scenario

    state = load_scenario("maps/chq_smoke_advance.json").new_game(seed=3)
    plan = F.plan_barrage(state, "us")
    assert plan.smoke_value > 0 and plan.smoke_lines
    (last, _, screens, _), = [a for a in plan.allocation if a[0] == plan.rounds[-1]]
    assert screens and all(r == plan.rounds[-1] or not s for r, _, s, _ in plan.allocation)
    assert "Smoke for our first move cuts" in plan.explain()


@pytest.mark.parametrize("batteries,rounds,one_blind", [(2, 2, False), (3, 3, False), (3, 2, True), (1, 3, False)])
def test_chq_25_greedy_barrage_is_legal_and_never_beats_the_optimum(batteries, rounds, one_blind):
    """CHQ-25/CHQ-27: the quick plan for a short budget fires every battery on a Blind in each round
    (one Blind a round with the setting) and is worth at most what exhaustive search finds."""
    settings = {"barrage_one_blind_per_round": True} if one_blind else {}
    state = at_barrage(variant(TRUTH, batteries=batteries), rounds=rounds, **settings)
    problem = build_barrage(state, "gb", smoke_candidates=6)
    greedy, ex = F.solve_barrage_greedy(problem), solve_barrage_exhaustive(problem)
    assert greedy.status == "HEURISTIC" and 0 < greedy.objective <= ex.objective
    plan = make_barrage_plan(problem, greedy)
    batteries_named = sorted(f"gb-bty-{i + 1}" for i in range(batteries))
    for r, groups, screens, holding in plan.allocation:
        assert sorted([b for _, bs in groups for b in bs] + list(holding)) == batteries_named and not screens
        assert not holding or not groups  # batteries hold only once every Blind is turned over
        assert len({blind for blind, _ in groups}) == len(groups)
        assert not one_blind or len(groups) <= 1
    for action in plan.actions():
        state.apply_action(action)


def test_chq_25_barrage_planner_with_no_time_left_plays_the_greedy_plan():
    state = at_barrage(variant(TRUTH, batteries=3), rounds=3)
    plan = F.plan_barrage(state, "gb", time_limit=0.0)
    assert plan.method == "greedy"
    assert sorted(a.battery for a in plan.actions()) == ["gb-bty-1", "gb-bty-2", "gb-bty-3"]
    for action in plan.actions():
        state.apply_action(action)


def test_chq_25_barrage_screens_stop_at_the_deadline_and_the_fire_columns_do_not():
    """Valuing the last round's screens (the enemy's threat along every line, with and without
    each screen) is an extra the deadline may cut; the fire columns are always built whole."""
    from agent.budget import Deadline

    state = load_scenario(MAP.parent / "chq_saint_aubin.json").new_game(seed=0)  # its barrage may lay smoke
    while state.is_chance_node():
        state.apply_action(state.sample_chance())
    whole = build_barrage(state, "us")
    cut = build_barrage(state, "us", deadline=Deadline.after(0.0))
    assert whole.smoke and not cut.smoke
    assert [(c.blind, c.kinds, c.value) for c in cut.columns] == [(c.blind, c.kinds, c.value) for c in whole.columns]
