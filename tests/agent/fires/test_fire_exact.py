"""The fire planner's expected values equal the engine's exact values of the chosen actions.

Reference: :mod:`tests.agent.fires.engine_exact` applies the plan's actions to clones and
enumerates every chance node the engine raises (Comms Check CHQ-18, deviation CHQ-20, each fire
CHQ-3 to CHQ-6, D3 Morale), merging identical states. The planner's numbers come from its own
per-piece DP over the hooks' landing outcomes; the two must agree to rounding.
"""

from __future__ import annotations

import pytest

import agent.fires as F
from agent.fires.solution import Solution
from agent.fires.verify import mean_and_ci, realise, realised_effect
from engine.rulesets.chq.actions import End
from engine.scenario import load_scenario

from .engine_exact import expectation
from .helpers import scenario, to_pulse, unit


def _plan(problem, *indices):
    return F.make_plan(problem, Solution(tuple(indices), (), 0, 0, "OPTIMAL", "test", 0.0))


def _column(problem, **match):
    return next(c for c in problem.columns if all(getattr(c, k) == v for k, v in match.items()))


@pytest.fixture(scope="module")
def sherman():
    """German side, two 10.5cm batteries (no ToT), an FO 16" from a Sherman; a rifle platoon far off."""
    sc = scenario(
        [
            unit("de-obs", "German Rifle Platoon", "de", (20, 30), 180),
            unit("us-sherman", "US M4 Sherman Platoon", "us", (20, 14), 0),
            unit("us-rifle", "US Rifle Platoon", "us", (40, 4), 0),
            unit("de-bty-1", "German 10.5cm Battery", "de"),
            unit("de-bty-2", "German 10.5cm Battery", "de"),
        ],
        de={"staff_orders": 2},
    )
    state = to_pulse(sc.new_game(seed=1), "de")
    return state, F.build_problem(state, "de", keep_nonpositive=True)


def test_chq_17_salvo_joint_value_equals_engine_enumeration(sherman):
    """Two separate missions on one aim (CHQ-17, 18, 20): the second meets the Sherman as the
    first left it (suppressed: Reaction at 5+; forced back; or dispersed)."""
    state, problem = sherman
    column = _column(problem, mode="salvo", aim=(20.0, 14.0), sheaf="regular")
    plan = _plan(problem, column.index)
    assert len(plan.actions()) == 2 and plan.fire_value == pytest.approx(column.now, abs=1e-12)
    engine, _ = expectation(state, plan.actions(), lambda s: realised_effect(problem.board, s))
    assert plan.fire_value == pytest.approx(float(engine), abs=1e-9)
    assert plan.fire_value > 0


def test_chq_19_continuous_refire_and_chq_18_delay_follow_up_equal_engine(sherman):
    """The follow-up in our Logistics Phase: a continuous mission fires again where it landed
    (CHQ-19); a mission whose Comms Check failed arrives then (CHQ-18), without the value of a
    suppression before our move."""
    state, problem = sherman
    for duration in ("continuous", "single"):
        column = _column(problem, mode="single", duration=duration, aim=(20.0, 14.0), sheaf="regular")
        plan = _plan(problem, column.index)
        measure_now = lambda s: realised_effect(problem.board, s)  # noqa: E731
        measure_later = lambda s: realised_effect(problem.board, s, now=False)  # noqa: E731
        now, _ = expectation(state, plan.actions(), measure_now)
        mid, _ = expectation(state, plan.actions(), measure_later)
        end, _ = expectation(state, plan.actions(), measure_later, then=[End(), End()])
        assert column.now == pytest.approx(float(now), abs=1e-9)
        assert column.followup == pytest.approx(float(end - mid), abs=1e-9)
        assert column.followup > 0


def test_chq_20_two_aims_joint_value_equals_engine(sherman):
    """Two missions at different aims whose templates can both land on the Sherman: the plan's
    joint value is the engine's, and differs from the two values added up (the model's)."""
    state, problem = sherman
    a = _column(problem, mode="single", duration="single", aim=(20.0, 14.0), sheaf="regular")
    b = next(c for c in problem.columns if c.mode == "single" and c.duration == "single" and c.sheaf == "regular"
             and c.aim != a.aim and "us-sherman" in c.on_target)
    plan = _plan(problem, a.index, b.index)
    engine, _ = expectation(state, plan.actions(), lambda s: realised_effect(problem.board, s))
    assert plan.fire_value == pytest.approx(float(engine), abs=1e-9)
    assert abs(plan.fire_value - (a.now + b.now)) > 1e-6


def test_chq_24_tot_with_friendly_risk_equals_engine():
    """A US time-on-target of two batteries (CHQ-24: 4 + 2 dice, one Comms Check, one deviation)
    on a German rifle platoon, with one of our platoons where a long deviation can land on it
    (CHQ-21 artillery_hits_all): the friendly risk counts against the plan, exactly."""
    sc = scenario(
        [
            unit("us-obs", "US Rifle Platoon", "us", (6, 4), 0),
            unit("us-near", "US Rifle Platoon", "us", (20, 12), 0),
            unit("de-rifle", "German Rifle Platoon", "de", (20, 24), 180),
            unit("us-bty-1", "US 105mm Battery", "us"),
            unit("us-bty-2", "US 105mm Battery", "us"),
        ],
        us={"staff_orders": 2},
    )
    state = to_pulse(sc.new_game(seed=2), "us")
    problem = F.build_problem(state, "us", keep_nonpositive=True, aims=[(20.0, 24.0)])
    column = _column(problem, mode="tot", sheaf="regular")
    risk = next(e for e in column.effects if e.key == "us-near")
    assert risk.own and risk.p_touched > 0 and risk.value < 0
    plan = _plan(problem, column.index)
    assert plan.uses_tot and len(plan.actions()) == 1 and plan.actions()[0].batteries == ("us-bty-1", "us-bty-2")
    engine, _ = expectation(state, plan.actions(), lambda s: realised_effect(problem.board, s))
    assert plan.fire_value == pytest.approx(float(engine), abs=1e-9)


def test_monte_carlo_realised_mean_matches_prediction_on_a_map():
    """A weak check on a full map: the CP-SAT plan's realised mean over 300 games with the
    engine's own dice lies within 4 standard errors of its predicted expected value."""
    state = to_pulse(load_scenario("maps/chq_tot_crossroads.json").new_game(seed=1), "gb")
    problem = F.build_problem(state, "gb")
    plan = F.make_plan(problem, F.solve_cpsat(problem))
    values = realise(state, plan.actions(), problem.board, 300, seed=11)
    mean, half, sd = mean_and_ci(values, z=4.0)
    assert sd > 0
    assert abs(mean - plan.fire_value) <= half


def _blind_pair(real: str):
    """Two German Blinds in the open, one hiding a rifle platoon (``real``), the other a dummy."""
    spots = {"de-b1": (14, 22), "de-b2": (28, 22)}
    return scenario(
        [
            unit("us-obs", "US Rifle Platoon", "us", (21, 6), 0),
            unit("de-rifle", "German Rifle Platoon", "de", spots[real], 180, blind=real),
            unit("us-bty-1", "US 105mm Battery", "us"),
            unit("us-bty-2", "US 105mm Battery", "us"),
        ],
        blinds=[{"id": b, "owner": "de", "position": list(p), **({} if b == real else {"dummy": True})} for b, p in spots.items()],
        us={"staff_orders": 2},
    )


def test_chq_28_fire_plan_on_blinds_never_reads_the_truth_and_its_belief_value_is_exact():
    """The in-pulse planner sees two Blinds, one real: whichever it is, the plan is the same;
    and a mission's predicted value on a Blind is the mean of the engine's exact values over the
    two equally likely truths (CHQ-28: a real Blind revealed with +1D Reaction, a dummy removed)."""
    states = {real: to_pulse(_blind_pair(real).new_game(seed=5), "us") for real in ("de-b1", "de-b2")}
    plans = {real: F.plan_fires(s, "us") for real, s in states.items()}
    a, b = plans.values()
    assert [str(x) for x in a.actions()] == [str(x) for x in b.actions()] and a.actions()
    assert a.expected_value == b.expected_value and a.explain() .splitlines()[1:] == b.explain().splitlines()[1:]
    problem = F.build_problem(states["de-b1"], "us", keep_nonpositive=True, aims=[(14.0, 22.0)])
    column = _column(problem, mode="single", duration="single", sheaf="regular")
    belief = problem.board.beliefs["de-b1"]
    assert belief.p_real == pytest.approx(0.5) and [c for c, _, _ in belief.candidates] == ["German Rifle Platoon"]
    exact = []
    for real, state in states.items():
        plan = _plan(F.build_problem(state, "us", keep_nonpositive=True, aims=[(14.0, 22.0)]), column.index)
        value, _ = expectation(state, plan.actions(), lambda s: realised_effect(problem.board, s))
        exact.append(float(value))
    assert exact[0] != pytest.approx(exact[1])
    assert column.now == pytest.approx(sum(exact) / 2, abs=1e-9)
