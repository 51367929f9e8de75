"""Fire planning: battery allocation each pulse, and the Initial Barrage before turn 1.

Battery allocation is a weapon-target assignment over precomputed columns (one per aim point,
battery group, sheaf, duration and mode) whose values are exact expectations from the engine's
own chance nodes (Comms Check, deviation, every piece under the template, cover, suppression,
Blinds by belief, our own units penalised): :func:`build_problem` makes the columns,
:func:`solve_cpsat` / :func:`solve_greedy` / :func:`solve_exhaustive` choose, and
:func:`make_plan` returns a :class:`FirePlan` whose :meth:`~FirePlan.actions` a player applies
and whose :meth:`~FirePlan.explain` says why. :func:`plan_fires` does all three.

The Initial Barrage (:mod:`agent.fires.barrage`) allocates rounds x battery groups x enemy Blinds,
each Blind weighted by the belief that it is real (from what the side observes only) and by what
it threatens, with smoke in the last round for our first move: :func:`plan_barrage`.

Examples
--------
>>> from engine.scenario import load_scenario
>>> state = load_scenario("maps/chq_blind_barrage.json").new_game(seed=3)
>>> plan = plan_barrage(state, "gb")
>>> plan.status, len(plan.actions()) == len(plan.situation.pending)
('OPTIMAL', True)
"""

from .barrage import BarragePlan, BarrageProblem, build_barrage, plan_barrage, solve_barrage_cpsat, solve_barrage_exhaustive, solve_barrage_greedy
from .board import BlindBelief, Board, PieceValue, Track, ValueWeights
from .columns import SCALE, Column, FireProblem, Mission, PieceEffect, SmokeChoice, build_problem, evaluate_missions
from .cpsat import solve_cpsat
from .exhaustive import EXHAUSTIVE_LIMIT, solve_exhaustive
from .greedy import solve_greedy
from .plan import FireOrder, FirePlan, make_plan, plan_fires
from .solution import Solution

__all__ = [
    "EXHAUSTIVE_LIMIT",
    "SCALE",
    "BarragePlan",
    "BarrageProblem",
    "BlindBelief",
    "Board",
    "Column",
    "FireOrder",
    "FirePlan",
    "FireProblem",
    "Mission",
    "PieceEffect",
    "PieceValue",
    "SmokeChoice",
    "Solution",
    "Track",
    "ValueWeights",
    "build_barrage",
    "build_problem",
    "evaluate_missions",
    "make_plan",
    "plan_barrage",
    "plan_fires",
    "solve_barrage_cpsat",
    "solve_barrage_exhaustive",
    "solve_barrage_greedy",
    "solve_cpsat",
    "solve_exhaustive",
    "solve_greedy",
]
