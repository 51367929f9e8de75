"""The value of a plan, the budget it must fit, and what a plan says about itself.

Small hand-built boards whose answers can be worked out on paper: screens across horizontal
sight lines of a 10" table, batteries with capacity 1, Staff Orders, own fire lanes.
"""

from __future__ import annotations

import re

import pytest

from agent.smoke import (
    Budget,
    SightLine,
    build_coverage,
    evaluate,
    make_plan,
    solve_cpsat,
    solve_exhaustive,
    solve_greedy,
)
from engine.errors import FireplanError
from engine.geometry import Density, Screen, rectangle
from engine.options import SmokeOption

SOLVERS = {
    "cpsat": lambda coverage, budget: solve_cpsat(coverage, budget, time_limit=5.0),
    "greedy": solve_greedy,
    "exhaustive": solve_exhaustive,
}


def wall(x: float, y: float = 0.0, span: float = 5.0, densities=(Density.FULL,)) -> Screen:
    """A screen across the x axis at ``x``: it cuts horizontal lines with ``|y' - y| <= span / 2``."""
    return Screen(rectangle((x, y), width=span, depth=1, bearing=90), densities)


def option(x, resources=(), y=0.0, span=5.0, densities=None, ticks=1, label=None) -> SmokeOption:
    """An option laying one ``wall`` now, lasting ``ticks`` ticks (full smoke unless told)."""
    screen = wall(x, y, span, densities or (Density.FULL,) * ticks)
    return SmokeOption(
        actions=(("smoke", x, y),),
        screens=tuple((screen.aged(t),) for t in range(ticks)),
        resources=tuple(resources),
        label=label if label is not None else f"us-bty at ({x:g}, {y:g}) bearing 90",
    )


def enemy_line(y: float, value=1.0, tick: int = 0, name: str = "") -> SightLine:
    return SightLine((0, y), (10, y), tick, value, False, f"gb-{name or y}", f"us-{name or y}")


def own_lane(y: float, value=1.0, tick: int = 0) -> SightLine:
    return SightLine((10, y), (0, y), tick, value, True, f"us-mg-{y}", f"gb-{y}")


# -- the value of a choice ---------------------------------------------------------------------


def test_value_takes_the_best_grade_and_screens_do_not_stack():
    """A line's value is values[max grade]: a partial screen and a full one give the full value."""
    partial = option(3, densities=(Density.PARTIAL,))
    full = option(7)
    lines = [enemy_line(0, (0.3, 1.0)), enemy_line(1, (0.2, 0.2))]
    coverage = build_coverage([partial, full], lines)
    budget = Budget()
    assert evaluate(coverage, [0], budget).objective == pytest.approx(0.5)
    assert evaluate(coverage, [1], budget).objective == pytest.approx(1.2)
    assert evaluate(coverage, [0, 1], budget).objective == pytest.approx(1.2)  # no stacking
    assert evaluate(coverage, [], budget).objective == 0.0


def test_value_is_the_mean_over_scenarios():
    screen = wall(5)
    deviating = SmokeOption(("x",), ((screen,),), deviation=(((0.0, 0.0), 0.5), ((0.0, 20.0), 0.5)))
    coverage = build_coverage([deviating], [enemy_line(0, 2.0)], scenarios=50, seed=2)
    hits = int((coverage.outcome[0] == 0).sum())
    assert evaluate(coverage, [0], Budget()).objective == pytest.approx(2.0 * hits / 50)


def test_own_lanes_and_battery_fire_are_costs():
    opt = option(5, resources=[("us-bty-a", 1)])
    coverage = build_coverage([opt], [enemy_line(0, 1.0), own_lane(1, 0.4)])
    score = evaluate(coverage, [0], Budget({"us-bty-a": 1}, battery_fire_value={"us-bty-a": 0.25}, own_lane_penalty=1.5))
    assert score.threat_blocked == pytest.approx(1.0)
    assert score.own_lanes_cost == pytest.approx(0.6)
    assert score.fire_lost == pytest.approx(0.25)
    assert score.objective == pytest.approx(1.0 - 0.6 - 0.25)


# -- the budget ---------------------------------------------------------------------------------


@pytest.mark.parametrize("method", SOLVERS)
def test_two_options_sharing_a_battery_are_never_both_chosen(method):
    """Each is worth a lot on its own lines; the battery fires one mission."""
    options = [option(2, [("us-bty-a", 1)], y=0), option(8, [("us-bty-a", 1)], y=10), option(5, [("us-bty-b", 1)], y=20)]
    lines = [enemy_line(0, 3.0), enemy_line(10, 2.0), enemy_line(20, 1.0)]
    coverage = build_coverage(options, lines)
    plan = SOLVERS[method](coverage, Budget({"us-bty-a": 1, "us-bty-b": 1}))
    assert plan.indices == (0, 2)
    assert dict(plan.resources_used) == {"us-bty-a": 1, "us-bty-b": 1}


@pytest.mark.parametrize("method", SOLVERS)
def test_staff_orders_and_max_options_limit_the_plan(method):
    options = [option(5, [("staff_orders", 1)], y=10 * k) for k in range(4)]
    lines = [enemy_line(10 * k, float(k + 1)) for k in range(4)]
    coverage = build_coverage(options, lines)
    assert SOLVERS[method](coverage, Budget({"staff_orders": 2})).indices == (2, 3)
    assert SOLVERS[method](coverage, Budget({"staff_orders": 4}, max_options=1)).indices == (3,)
    assert SOLVERS[method](coverage, Budget({"staff_orders": 0})).indices == ()


@pytest.mark.parametrize("method", SOLVERS)
def test_own_lane_penalty_decides(method):
    """Option 0 cuts an enemy line worth 1 and our own lane worth 0.8: worth it only while the
    penalty weight keeps the lane's cost under 1."""
    lines = [enemy_line(0, 1.0), own_lane(1.5, 0.8)]
    coverage = build_coverage([option(5, span=4.0)], lines)
    assert SOLVERS[method](coverage, Budget(own_lane_penalty=1.0)).indices == (0,)
    assert SOLVERS[method](coverage, Budget(own_lane_penalty=1.3)).indices == ()
    plan = SOLVERS[method](coverage, Budget(own_lane_penalty=1.0))
    assert plan.own_lanes_cost == pytest.approx(0.8) and plan.objective == pytest.approx(0.2)
    assert [lane.label for lane in plan.own_cut] == ["us-mg-1.5 -> gb-1.5"]


@pytest.mark.parametrize("method", SOLVERS)
def test_a_battery_smokes_only_if_its_fire_is_worth_less(method):
    coverage = build_coverage([option(5, [("us-bty-a", 1)])], [enemy_line(0, 0.5)])
    assert SOLVERS[method](coverage, Budget({"us-bty-a": 1}, battery_fire_value={"us-bty-a": 0.4})).indices == (0,)
    assert SOLVERS[method](coverage, Budget({"us-bty-a": 1}, battery_fire_value={"us-bty-a": 0.6})).indices == ()


@pytest.mark.parametrize("method", ["cpsat", "exhaustive"])
def test_a_battery_with_two_missions_loses_its_fire_once(method):
    """Neither mission pays for the battery's fire alone; both together do."""
    options = [option(2, [("us-bty-a", 1)], y=0), option(8, [("us-bty-a", 1)], y=10)]
    coverage = build_coverage(options, [enemy_line(0, 0.5), enemy_line(10, 0.5)])
    budget = Budget({"us-bty-a": 2}, battery_fire_value={"us-bty-a": 0.7})
    plan = SOLVERS[method](coverage, budget)
    assert plan.indices == (0, 1) and plan.fire_lost == pytest.approx(0.7)
    assert plan.objective == pytest.approx(0.3)
    assert solve_greedy(coverage, budget).indices == ()  # one step at a time never sees it


def test_budget_errors_are_clear():
    coverage = build_coverage([option(5, [("us-bty-z", 1)])], [enemy_line(0)])
    with pytest.raises(FireplanError, match="us-bty-z"):
        solve_greedy(coverage, Budget())
    with pytest.raises(FireplanError, match="whole number"):
        Budget({"staff_orders": -1})
    with pytest.raises(FireplanError, match="not list"):
        Budget({}, battery_fire_value={"us-bty-a": 1.0})
    with pytest.raises(FireplanError, match="do not fit"):
        make_plan(coverage, Budget({"us-bty-z": 0}), [0])


# -- what a plan says ----------------------------------------------------------------------------


def test_plan_reports_lines_by_tick_and_explain_counts_them():
    lines = [enemy_line(y, 0.3, tick=t, name=f"{t}.{y}") for t in (0, 1) for y in (-2, -1, 0, 1, 2, 9)]
    lines += [enemy_line(0.5, 0.2, tick=2, name="late")]
    lines += [own_lane(1.5, 0.1)]
    smoke = option(5, resources=[("staff_orders", 1), ("us-bty-a", 1)], ticks=2, label="us-bty-a at (5, 0) bearing 90")
    coverage = build_coverage([smoke], lines)
    budget = Budget({"staff_orders": 3, "us-bty-a": 1}, battery_fire_value={"us-bty-a": 0.5})
    plan = solve_cpsat(coverage, budget)
    by_tick = plan.blocked_by_tick()
    assert sorted(by_tick) == [0, 1] and [len(v) for v in by_tick.values()] == [5, 5]
    assert {line.label for line in by_tick[0]} == {f"gb-0.{y} -> us-0.{y}" for y in (-2, -1, 0, 1, 2)}
    assert plan.threat_by_tick() == pytest.approx({0: 1.5, 1: 1.5})
    assert plan.threat_blocked == pytest.approx(3.0) and plan.own_lanes_cost == pytest.approx(0.1)
    text = plan.explain(tick_word="pulse", threat_word="Disruption")
    assert text.startswith("Smoke from us-bty-a at (5, 0) bearing 90 cuts 10 enemy sight lines to our units")
    assert "this pulse and next" in text
    assert "removing 3 expected Disruption" in text
    assert "blocks 1 of our own fire lane" in text
    assert re.search(r"it costs 1 Staff Order and battery us-bty-a's fire this turn\.", text)


def test_explain_with_two_screens_counts_shared_lines_once():
    lines = [enemy_line(y, 1.0) for y in (0, 1, 2, 3)]
    options = [option(3, y=0.5, span=2.0, label="A"), option(7, y=1.5, span=2.0, label="B")]
    coverage = build_coverage(options, lines)
    plan = make_plan(coverage, Budget(), [0, 1])
    text = plan.explain()
    assert "Smoke from A cuts 2 enemy sight lines" in text  # y = 0 and 1
    assert "Smoke from B cuts 2 enemy sight lines" in text  # y = 1 and 2
    assert "Together they cut 3 enemy sight lines, removing 3 expected threat" in text
    assert [line.by for line in plan.blocked] == [(0,), (0, 1), (1,)]


def test_explain_with_scenarios_gives_expected_counts():
    screen = wall(5)
    deviating = SmokeOption(("x",), ((screen,),), deviation=(((0.0, 0.0), 0.5), ((0.0, 20.0), 0.5)), label="B1")
    coverage = build_coverage([deviating], [enemy_line(0, 1.0), enemy_line(1, 1.0)], scenarios=4, seed=5)
    hits = int((coverage.outcome[0] == 0).sum())
    plan = make_plan(coverage, Budget(), [0])
    expected = f"{2 * hits / 4:.1f}" if hits % 2 else str(2 * hits // 4)
    assert f"Smoke from B1 cuts {expected} enemy sight line" in plan.explain()
    assert plan.blocked[0].probability == pytest.approx(hits / 4)


def test_empty_plan_explains_itself():
    coverage = build_coverage([option(5)], [enemy_line(20)])
    plan = solve_cpsat(coverage, Budget())
    assert plan.indices == () and plan.explain().startswith("No smoke")


def test_solver_arguments_are_checked():
    coverage = build_coverage([option(5)], [enemy_line(0)])
    with pytest.raises(FireplanError, match="time_limit"):
        solve_cpsat(coverage, Budget(), time_limit=0)
    with pytest.raises(FireplanError, match="num_workers"):
        solve_cpsat(coverage, Budget(), num_workers=0)
    with pytest.raises(FireplanError, match="overflow"):
        solve_cpsat(coverage, Budget(), objective_scale=1e30)
    assert solve_cpsat(coverage, Budget(), objective_scale=1000.0).objective == pytest.approx(1.0)
