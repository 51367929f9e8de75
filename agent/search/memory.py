"""What the AI's greedy look-ahead has already worked out this scope, by what the side could see.

The AI searches at every order of a scope, and each search records the greedy plan for the rest
of the scope: the ranking of every order at every decision still to come. The next search, one
order later, ranks the same decisions again. A MET side's movement orders six elements, so a
scope of six orders ranks 6 + 5 + ... + 1 = 21 decisions where 6 would do, and on MET that
ranking is most of a search's time (each candidate destination needs its own sight picture).

:class:`ChoiceMemory` keeps each ranking under what the ranking side could know there: its
observation, the orders it may give and the scope. A later search that reaches a decision the
side would see the same way takes the ranking instead of making it again. The ranking was made
in another world drawn from the same observation, which is what making it again would do too:
nothing hidden is read. A ranking cut short by a deadline is not kept.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Hashable

from engine.game import GameState

__all__ = ["ChoiceMemory"]


class ChoiceMemory:
    """Rankings ``[(value, order), ...]`` by what the ranking side could see, the ``capacity``
    most recent kept. One memory serves one player and one way of ranking (its ``signature``)."""

    def __init__(self, capacity: int = 256):
        self.capacity = capacity
        self._rankings: OrderedDict[Hashable, tuple] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._rankings)

    @staticmethod
    def key(world: GameState, signature: Hashable) -> Hashable | None:
        """What the side to decide in ``world`` sees there, with the ranking's ``signature``;
        None when the ruleset's observation cannot be a key (not hashable)."""
        side = world.current_player()
        key = (signature, world.plan_scope(side), world.observation(side), tuple(world.legal_actions()))
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def recall(self, key: Hashable | None) -> list | None:
        if key is None:
            return None
        ranking = self._rankings.get(key)
        if ranking is None:
            self.misses += 1
            return None
        self._rankings.move_to_end(key)
        self.hits += 1
        return list(ranking)

    def keep(self, key: Hashable | None, ranking: list) -> None:
        if key is None or not ranking:
            return
        self._rankings[key] = tuple(ranking)
        self._rankings.move_to_end(key)
        while len(self._rankings) > self.capacity:
            self._rankings.popitem(last=False)

    def clear(self) -> None:
        self._rankings.clear()
