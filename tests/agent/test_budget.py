"""Deadlines shared by the stages of a planning call."""

from __future__ import annotations

import doctest
import math

import agent.budget
from agent.budget import Deadline


def test_module_examples_run():
    assert doctest.testmod(agent.budget).failed == 0


def test_a_share_is_earlier_and_never_later_than_the_whole():
    whole = Deadline.after(100.0)
    half = whole.share(0.5)
    assert half.at < whole.at and 49.0 < half.remaining <= 50.0
    assert whole.share(1.0).at <= whole.at + 1e-9


def test_no_limit_stays_no_limit_and_a_spent_budget_has_nothing_left():
    assert math.isinf(Deadline.after(None).share(0.1).at)
    spent = Deadline.after(-5.0)
    assert spent.passed and spent.remaining == 0.0 and spent.share(0.5).passed
