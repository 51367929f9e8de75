"""Fire plans obey the CHQ rules the planner must respect, and state their reasons."""

from __future__ import annotations

import pytest

import agent.fires as F
from engine.errors import IllegalActionError
from engine.rulesets.chq.actions import Call, Smoke
from engine.scenario import load_scenario

from .helpers import scenario, to_pulse, unit


@pytest.fixture(scope="module")
def german():
    """Three German batteries (Germany may not fire time-on-target) against a US company."""
    sc = scenario(
        [
            unit("de-obs-1", "German Rifle Platoon", "de", (14, 30), 180),
            unit("de-obs-2", "German Rifle Platoon", "de", (34, 30), 180),
            unit("us-sherman-1", "US M4 Sherman Platoon", "us", (16, 14), 0),
            unit("us-rifle-1", "US Rifle Platoon", "us", (24, 16), 0),
            unit("us-rifle-2", "US Rifle Platoon", "us", (34, 13), 0),
            unit("de-bty-1", "German 10.5cm Battery", "de"),
            unit("de-bty-2", "German 10.5cm Battery", "de"),
            unit("de-bty-3", "German 10.5cm Battery", "de"),
        ],
        de={"staff_orders": 3, "command_dice": 5},
    )
    state = to_pulse(sc.new_game(seed=4), "de")
    return state, F.build_problem(state, "de")


@pytest.fixture(scope="module")
def crossroads():
    state = to_pulse(load_scenario("maps/chq_tot_crossroads.json").new_game(seed=1), "gb")
    return state, F.build_problem(state, "gb")


def test_chq_24_german_side_never_gets_a_time_on_target(german):
    state, problem = german
    fp = state.fire_planning()
    assert not fp.tot_allowed("de")
    assert all(len(g) == 1 for g in fp.fire_groups("de"))
    assert problem.columns and {c.mode for c in problem.columns} <= {"single", "salvo"}
    assert any(c.mode == "salvo" for c in problem.columns)  # massing is by separate missions
    for method in ("cpsat", "greedy"):
        plan = F.plan_fires(state, "de", method=method)
        assert not plan.uses_tot
        assert plan.actions() and all(isinstance(a, Call) and len(a.batteries) == 1 for a in plan.actions())
    with pytest.raises(IllegalActionError, match="CHQ-24"):
        fp.fire_option("de", ("de-bty-1", "de-bty-2"), (16.0, 14.0))


def test_chq_24_commonwealth_side_does_get_time_on_target_columns(crossroads):
    _, problem = crossroads
    assert any(c.mode == "tot" for c in problem.columns)
    assert {n for c in problem.columns if c.mode == "tot" for _, n in c.kinds} == {2, 3}


def test_chq_17_plan_actions_are_legal_in_order_and_each_fo_sees_the_centre(german, crossroads):
    for (state, problem), side in ((german, "de"), (crossroads, "gb")):
        plan = F.make_plan(problem, F.solve_cpsat(problem))
        game = state.clone()
        for order in plan.orders:
            for action in order.actions:
                assert action.fo in game.observers_of_point(side, action.at, clear=True)
        for action in plan.actions():
            game.apply_action(action)  # raises IllegalActionError if the rules refuse it
            while game.is_chance_node():
                game.apply_action(game.sample_chance())
        assert plan.staff <= state.observation(side).staff_orders


def test_chq_17_staff_orders_bound_the_plan(german):
    state, _ = german
    poor = state.clone()
    poor.staff["de"] = 1
    plan = F.plan_fires(poor, "de")
    assert plan.staff <= 1 and len(plan.actions()) <= 1
    assert len(plan.resting) >= 2


def test_chq_12_handed_in_smoke_takes_its_battery_from_the_fire_plan(crossroads):
    state, problem = crossroads
    option = next(o for o in state.smoke_options("gb") if "gb-bty-2" in dict(o.resources))
    choice = F.SmokeChoice.from_option(option, value=5.0, batteries=("gb-bty-1", "gb-bty-2", "gb-bty-3"))
    plan = F.plan_fires(state, "gb", smoke=[choice])
    assert plan.smoke == (choice,)
    firing = {b for o in plan.orders for b in o.batteries}
    assert "gb-bty-2" not in firing
    assert plan.expected_value == pytest.approx(plan.fire_value + 5.0)
    actions = plan.actions()
    assert isinstance(actions[-1], Smoke) and all(isinstance(a, Call) for a in actions[:-1])  # fire first, then smoke
    game = state.clone()
    for action in actions:
        game.apply_action(action)
        while game.is_chance_node():
            game.apply_action(game.sample_chance())
    assert not game.is_legal(Call(("gb-bty-2",), (34.0, 14.0)))


def test_target_values_state_threat_objective_and_premove(crossroads):
    state, problem = crossroads
    board = problem.board
    values = {t.key: t.value for t in board.tracks if not t.value.own}
    ours = [u for u in state.on_table_units("gb")]
    for key, value in values.items():
        best = max(state.threat(key, u) for u in ours)
        assert value.threat == pytest.approx(best)  # no hidden enemy: the side's view is the truth
        assert value.premove == pytest.approx(board.weights.premove * best)
    assert values["de-rifle-1"].objective_points == 3  # it stands on the crossroads (CHQ-29)
    plan = F.make_plan(problem, F.solve_cpsat(problem))
    text = plan.explain()
    assert "threatens" in text and "objective point" in text and "Comms" in text
    named = [b for o in plan.orders for b in o.batteries] + list(plan.resting) + [s.battery for s in plan.smoke]
    assert sorted(named) == ["gb-bty-1", "gb-bty-2", "gb-bty-3"]


def test_a_unit_with_a_fire_marker_has_no_premove_value(crossroads):
    state, _ = crossroads
    marked = state.clone()
    marked.units["de-panther-1"].fire_marker = True
    board = F.Board(marked, "gb")
    value = next(t.value for t in board.tracks if t.key == "de-panther-1")
    assert value.premove == 0 and value.threat > 0
