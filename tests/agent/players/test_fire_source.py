"""The search's fire plans (:class:`agent.search.sources.FireSource`) under a deadline: the
engine's first calls are described, and plans made of them, where a deadline among the
descriptions used to leave no fire plan and no time for the sources after it."""

from __future__ import annotations

import time

import numpy as np
import pytest

from agent.search.chance import ChanceResolver
from agent.search.macro import OutOfTime, Simulator
from agent.search.policy import BALANCED, PosturePolicy
from agent.search.sources import FireSource, _fire_value
from tests.engine.met.helpers import end_until, game, unit


def _battery_position():
    """MET: the British 25-pdrs' artillery phase, four German sections in the open."""
    units = [unit("gb-bty", "25pdr Field Battery", "gb"), unit("gb-1", "Sherman V", "gb", (100, 50))]
    units += [unit(f"de-{i}", "Grenadier Section", "de", (300 + 120 * i, 560), 180) for i in range(4)]
    return end_until(game(units), "artillery", "gb")


def _simulator(deadline=None) -> Simulator:
    policy = PosturePolicy(BALANCED)
    return Simulator("gb", ChanceResolver(np.random.default_rng(0)), policy, policy, deadline=deadline)


@pytest.fixture
def described(monkeypatch):
    """The artillery calls the engine is asked to describe exactly, in order."""
    seen = []
    state = _battery_position()
    describe = type(state).describe_actions

    def spy(self, batch, detail=True):
        if detail:
            seen.extend(a for a in batch if self.action_kind(a) == "artillery")
        return describe(self, batch, detail)

    monkeypatch.setattr(type(state), "describe_actions", spy)
    return seen


def _fired(plans) -> list:
    return [plan.forced[0] for plan in plans]


def _best_calls(state, calls, top=3) -> list:
    """The ``top`` calls by their exact description's value, each at its own aim, worked out
    here from every call's description."""
    infos = state.describe_actions(calls, detail=True)
    ranked = sorted((i for i, info in enumerate(infos) if info.get("harm", 0.0) > 0.0),
                    key=lambda i: (-_fire_value(infos[i]), i))
    chosen, aims = [], []
    for i in ranked:
        if infos[i].get("at") in aims:
            continue
        chosen.append(calls[i])
        aims.append(infos[i].get("at"))
    return chosen[:top]


def test_without_a_deadline_every_call_is_described_and_the_best_three_are_fired(described):
    state = _battery_position()
    calls = [a for a in state.legal_actions() if state.action_kind(a) == "artillery"]
    assert len(calls) > 30
    plans = FireSource().plans(state, "gb", _simulator(), np.random.default_rng(0))
    assert described == calls
    assert _fired(plans) == _best_calls(state, calls)
    assert all(plan.source == "fire" and plan.steps for plan in plans)


def test_with_time_short_only_the_engines_first_calls_are_described_and_still_fired(described, monkeypatch):
    """A tenth of a second from the deadline (``spare``): the first 12 calls (two chunks of 8,
    so 16) are described, the rest are not, and the plans fire the best of the 16."""
    state = _battery_position()
    calls = [a for a in state.legal_actions() if state.action_kind(a) == "artillery"]
    deadline = time.perf_counter() + 60.0  # the plans are recorded well before it
    monkeypatch.setattr("agent.search.sources.time.perf_counter", lambda: deadline - 0.05)
    plans = FireSource().plans(state, "gb", _simulator(deadline), np.random.default_rng(0))
    assert described == calls[:16]
    assert len(plans) == 3 and _fired(plans) == _best_calls(state, calls[:16])


def test_with_time_to_spare_under_a_deadline_the_plans_are_the_untimed_ones(described):
    state = _battery_position()
    untimed = FireSource().plans(state, "gb", _simulator(), np.random.default_rng(0))
    timed = FireSource().plans(state, "gb", _simulator(time.perf_counter() + 60.0), np.random.default_rng(0))
    assert _fired(timed) == _fired(untimed)


def test_a_deadline_before_the_first_calls_are_described_raises():
    with pytest.raises(OutOfTime):
        FireSource().plans(_battery_position(), "gb", _simulator(time.perf_counter() - 1.0), np.random.default_rng(0))
