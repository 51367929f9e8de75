"""The game-state contract every ruleset implements (as OpenSpiel does it).

A ``GameState`` is created from a frozen ``Scenario``; it changes only through
``apply_action``. Dice are never hidden random calls: when
``current_player()`` is ``CHANCE`` the state lists its outcomes with exact
probabilities, and whoever drives the game (a player, search, a test, a human
at the table typing the roll) picks one. ``sample_chance`` picks with the
state's own seeded generator, so the same seed gives the same game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from fractions import Fraction
from typing import Any, Hashable, Sequence

import numpy as np

from engine.errors import IllegalActionError

__all__ = ["CHANCE", "TERMINAL", "GameState", "copy_generator", "outcome_weights", "sample_outcome"]

#: ``current_player()`` at a chance node.
CHANCE = "chance"
#: ``current_player()`` once the game is over.
TERMINAL = "terminal"


def outcome_weights(outcomes: Sequence[tuple[Hashable, Fraction | float]]) -> np.ndarray:
    """The outcomes' probabilities as floats summing to 1, as :func:`sample_outcome` draws by them."""
    probabilities = np.array([float(p) for _, p in outcomes])
    return probabilities / probabilities.sum()


def sample_outcome(outcomes: Sequence[tuple[Hashable, Fraction | float]], rng: np.random.Generator,
                   weights: np.ndarray | None = None):
    """Pick one outcome of a chance node by its probability, with ``rng``; ``weights`` are
    :func:`outcome_weights` of ``outcomes`` when the caller keeps them (a node met again and again)."""
    index = rng.choice(len(outcomes), p=outcome_weights(outcomes) if weights is None else weights)
    return outcomes[int(index)][0]


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """A generator at the same point of the same stream as ``rng``, for ``clone``.

    Made with a fixed seed and then given ``rng``'s state: a search clones thousands of times a
    second, and ``copy.deepcopy`` or an unseeded bit generator (which asks the operating system
    for entropy) cost two to three times as long.
    """
    bits = type(rng.bit_generator)(0)
    bits.state = rng.bit_generator.state
    return np.random.Generator(bits)


class GameState(ABC):
    """One game in progress. Subclasses keep every random choice in chance nodes."""

    def __init__(self, seed: int | None = 0):
        self.rng = np.random.default_rng(seed)

    # ------------------------------------------------------------ whose move
    @abstractmethod
    def current_player(self) -> str:
        """A side id, ``CHANCE`` or ``TERMINAL``."""

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    # ------------------------------------------------------------ actions
    @abstractmethod
    def legal_actions(self) -> list[Hashable]:
        """A finite canonical list of actions (for a side) or outcomes (at a chance node)."""

    def is_legal(self, action: Hashable) -> bool:
        """Whether ``action`` is allowed now, including off-lattice placements a human makes."""
        return self.illegal_reason(action) is None

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[Hashable, Fraction]]:
        """At a chance node: the distinct outcomes with exact probabilities summing to 1."""

    def apply_action(self, action: Hashable) -> None:
        """Apply ``action`` in place; an illegal one raises ``IllegalActionError`` and changes nothing."""
        reason = self.illegal_reason(action)
        if reason is not None:
            raise IllegalActionError(reason)
        self._apply(action)

    @abstractmethod
    def illegal_reason(self, action: Hashable) -> str | None:
        """Why ``action`` is illegal, in words a player understands; None when it is legal."""

    @abstractmethod
    def _apply(self, action: Hashable) -> None:
        """Apply a legal action."""

    def sample_chance(self) -> Hashable:
        """The outcome of the current chance node, drawn with the state's seeded generator."""
        return sample_outcome(self.chance_outcomes(), self.rng)

    # ------------------------------------------------------------ copies, views, results
    @abstractmethod
    def clone(self) -> "GameState":
        """An independent copy (the generator included), for search and undo."""

    @abstractmethod
    def observation(self, side: str) -> Any:
        """What ``side`` may know: enemy blinds stay blinds, dummies are not revealed."""

    @abstractmethod
    def returns(self) -> dict[str, float]:
        """+1 / -1 / 0 per side at the end; 0 for both before it."""

    def score(self) -> dict[str, float]:
        """Scaled point difference per side (positive is good), for analysis and for greedy play."""
        raise NotImplementedError

    def require(self, condition: bool, reason: str) -> None:
        """Raise ``IllegalActionError(reason)`` unless ``condition``: for rules checks in ``_apply``."""
        if not condition:
            raise IllegalActionError(reason)
