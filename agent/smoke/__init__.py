"""Smoke placement: which screens to lay so the enemy sees the least of us, at what cost.

A weighted maximum-coverage planner, independent of the ruleset: a ruleset supplies candidate
:class:`~engine.options.SmokeOption` values and the threat on each :class:`SightLine`;
:func:`build_coverage` records which lines each option would cut (per deviation scenario, at
partial or full grade); :func:`solve_cpsat`, :func:`solve_greedy` and :func:`solve_exhaustive`
choose options within a :class:`Budget` and return a :class:`SmokePlan` that can
:meth:`~SmokePlan.explain` itself.

Examples
--------
>>> from engine.geometry import Density, Screen, rectangle
>>> from engine.options import SmokeOption
>>> wall = Screen(rectangle((5, 0), width=4, depth=1, bearing=90), (Density.FULL,))
>>> option = SmokeOption(("smoke",), ((wall,),), resources=(("us-bty-a", 1),), label="us-bty-a")
>>> lines = [SightLine((0, 0), (10, 0), 0, (0.4, 0.4), observer_id="gb-1", target_id="us-1")]
>>> coverage = build_coverage([option], lines)
>>> plan = solve_cpsat(coverage, Budget({"us-bty-a": 1}))
>>> plan.status, plan.indices, round(plan.objective, 3)
('OPTIMAL', (0,), 0.4)
"""

from .coverage import GRADE_FULL, GRADE_NONE, GRADE_PARTIAL, Coverage, SightLine, build_coverage
from .cpsat import solve_cpsat
from .exhaustive import EXHAUSTIVE_LIMIT, solve_exhaustive
from .greedy import solve_greedy
from .plan import BlockedLine, Budget, OptionEffect, Score, SmokePlan, evaluate, make_plan
from .planner import StateSmokePlan, plan_smoke, smoke_budget, smoke_sight_lines

__all__ = [
    "EXHAUSTIVE_LIMIT",
    "GRADE_FULL",
    "GRADE_NONE",
    "GRADE_PARTIAL",
    "BlockedLine",
    "Budget",
    "Coverage",
    "OptionEffect",
    "Score",
    "SightLine",
    "SmokePlan",
    "StateSmokePlan",
    "build_coverage",
    "evaluate",
    "make_plan",
    "plan_smoke",
    "solve_cpsat",
    "solve_exhaustive",
    "smoke_budget",
    "smoke_sight_lines",
    "solve_greedy",
]
