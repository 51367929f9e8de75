"""The AI's search: macro-actions, plan sources, determinization, chance, evaluation, MCTS.

- :mod:`.macro`: :class:`Plan` (a whole scope of orders with reasons) and the
  :class:`Simulator` that records and replays plans in sampled worlds.
- :mod:`.sources`: plan sources (movement postures, fire plans, smoke plans); planners plug
  in as further sources.
- :mod:`.policy`: postures, the fast policies plans and rollouts are made of.
- :mod:`.chance`: chance nodes stratified where small, sampled where large, enumerated at leaves.
- :mod:`.evaluation`: a position's value from the ruleset's features.
- :mod:`.memory`: the greedy rankings a player has made this scope, recalled by its next searches.
- :mod:`.mcts`: :class:`MacroSearch`, information-set MCTS over plans with a time or
  iteration budget.
- :mod:`.settings`: ``FIELD=VALUE`` words as its settings, for experiments.

The player built on them is :class:`agent.players.SearchPlayer`.
"""

from .chance import ChanceResolver, expected_leaf
from .evaluation import DEFAULT_WEIGHTS, SEARCH_WEIGHTS, Weights, evaluate
from .macro import OutOfTime, Plan, Simulator
from .mcts import MacroSearch, SearchConfig, SearchResult
from .policy import BALANCED, POSTURES, Posture, PosturePolicy
from .sources import FireSource, MovementSource, PlanSource, SmokeSource, default_sources

__all__ = [
    "BALANCED",
    "DEFAULT_WEIGHTS",
    "SEARCH_WEIGHTS",
    "POSTURES",
    "ChanceResolver",
    "FireSource",
    "MacroSearch",
    "MovementSource",
    "OutOfTime",
    "Plan",
    "PlanSource",
    "Posture",
    "PosturePolicy",
    "SearchConfig",
    "SearchResult",
    "Simulator",
    "SmokeSource",
    "Weights",
    "default_sources",
    "evaluate",
    "expected_leaf",
]
