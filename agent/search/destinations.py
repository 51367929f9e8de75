"""Destinations off the engine's lattice: where the AI may send an element besides the few
points the engine lists.

A MET element may end its move anywhere within its allowance, but ``legal_actions()`` offers a
canonical three or four destinations (toward each objective, into the nearest cover, back
toward its own edge). A player at the table looks further: the corner of a wood that still
sees the enemy, half a move toward the objective to stay out of the anti-tank gun's reach.
:class:`RingMoves` asks the ruleset for legal moves on rings around each element
(``state.ring_moves``), for the greedy choice to weigh beside the canonical ones.

Measured on the MET maps (README, "destinations off the engine's lattice"): the greedy player
weighing these too did better than the plain one in its seat in 32 of 80 games and worse in 16
(40-20-20 against 29-15-36: ``experiments/tournament.py --pairs greedy-rings:greedy``), and 26
and 17 on 80 fresh games (sign test on both, p = 0.011). The AI weighs them at every order of
its greedy plan by default (``SearchConfig.move_bearings``, ``rings_first_only``): at 32
simulations it went better than without them in 24 games and worse in 19 on games 0-9, and 32
and 16 on fresh games 10-19 (56 and 35 in all, p = 0.036).

Examples
--------
>>> from engine.scenario import load_scenario
>>> state = load_scenario("maps/met_strong_ridge.json").new_game(seed=1)
>>> while state.is_chance_node():
...     state.apply_action(state.sample_chance())
>>> moves = RingMoves()(state)
>>> len(moves) > len(state.legal_actions()) and all(state.is_legal(m) for m in moves)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Sequence

from engine.game import GameState

__all__ = ["RingMoves", "NO_MORE_MOVES"]


@dataclass(frozen=True, slots=True)
class RingMoves:
    """Moves at ``rings`` (fractions of the element's move) in ``bearings`` directions; nothing
    in a ruleset without ``ring_moves`` (CHQ moves by the table's inches along routes).

    ``focus`` > 0 keeps the rings of the elements whose orders lead the ranking of the engine's
    own orders (the first ``focus`` elements met in it): the coarse list chooses who moves, the
    rings then place it. Every element's rings cost a ranking 8.9x the engine's list; focus 2
    7.0x, and it picks the same order in 99 of 111 positions, focus 1 4.5x and 81 of 111
    (``experiments/bench_destinations.py``). At 1 s a decision focus 2 did not play better
    (README), so every element's rings stay the default."""

    rings: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)
    bearings: int = 12
    focus: int = 0

    def __call__(self, world: GameState, ranking: Sequence[tuple[float, Hashable]] = ()) -> list[Hashable]:
        """The moves to weigh beyond the engine's list, given how its orders ranked (best first)."""
        if not self.rings or self.bearings <= 0 or not hasattr(world, "ring_moves"):
            return []
        elements = self._leaders(world, ranking) if self.focus > 0 else None
        return world.ring_moves(self.rings, self.bearings, elements)

    def _leaders(self, world: GameState, ranking: Sequence[tuple[float, Hashable]]) -> set[str]:
        leaders: list[str] = []
        for _, action in ranking:
            for actor in world.describe_actions([action])[0].get("actors", ()):
                if actor not in leaders:
                    leaders.append(actor)
            if len(leaders) >= self.focus:
                break
        return set(leaders[: self.focus])


#: No orders beyond the engine's list.
NO_MORE_MOVES = RingMoves(rings=(), bearings=0)
