"""Players: one interface (``act(state) -> action``, ``plan(state)``), several strengths.

``RandomPlayer`` (uniform), ``GreedyPlayer`` (best one-step expected value), ``SearchPlayer``
(the AI: MCTS over whole-scope plans; also ``AIPlayer``), ``PosturePlayer`` (one plain way of
fighting, no search) and, with the ``openspiel`` extra,
``OpenSpielMCTSPlayer`` (OpenSpiel's MCTSBot as a peer). The last three load on first use, so
that :mod:`agent.search` and the players can import each other's parts.
"""

from .base import PlannedAction, Player
from .random_player import RandomPlayer

__all__ = ["Player", "PlannedAction", "RandomPlayer", "GreedyPlayer", "SearchPlayer", "AIPlayer", "PosturePlayer",
           "OpenSpielMCTSPlayer"]

_LAZY = {
    "GreedyPlayer": ("agent.players.greedy", "GreedyPlayer"),
    "SearchPlayer": ("agent.players.search", "SearchPlayer"),
    "AIPlayer": ("agent.players.search", "AIPlayer"),
    "PosturePlayer": ("agent.players.posture", "PosturePlayer"),
    "OpenSpielMCTSPlayer": ("agent.openspiel_adapter", "OpenSpielMCTSPlayer"),
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module 'agent.players' has no attribute {name!r}")
