"""Command Dice, chains, pulses, Command Failure and Staff Orders (CHQ-13 to CHQ-15).

A side's Command Dice roll is one chance node whose outcomes are the distinct
multisets of faces (counts of 1s .. 6s), each with its exact multinomial
probability n! / (c1! ... c6!) / 6^n: 462 outcomes for 6 dice, not 46,656
sequences.

>>> rolls = command_roll_outcomes("us", 2)
>>> len(rolls), sum(p for _, p in rolls)
(21, Fraction(1, 1))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import factorial

from .actions import Chain, CommandRoll

__all__ = [
    "DicePool",
    "command_roll_outcomes",
    "command_failure",
    "first_pulse",
    "chain_problem",
    "canonical_chains",
    "staff_orders_earned",
]


@lru_cache(maxsize=64)
def _multisets(n: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    out = []
    total = 6**n

    def rec(face: int, left: int, counts: list[int]):
        if face == 6:
            counts.append(left)
            ways = factorial(n)
            for c in counts:
                ways //= factorial(c)
            out.append((tuple(counts), Fraction(ways, total)))
            counts.pop()
            return
        for c in range(left + 1):
            counts.append(c)
            rec(face + 1, left - c, counts)
            counts.pop()

    rec(1, n, [])
    return tuple(out)


def command_roll_outcomes(side: str, dice: int) -> list[tuple[CommandRoll, Fraction]]:
    """The chance node of one side's Command Dice roll: distinct multisets with exact odds."""
    return [(CommandRoll(side, counts), p) for counts, p in _multisets(int(dice))]


@dataclass(slots=True)
class DicePool:
    """A side's unspent dice this turn: ``faces[f]`` natural dice showing f (2..6) and ``wild`` dice
    received from an enemy Command Failure (CHQ-13). Mutable: it lives inside a game state."""

    faces: dict[int, int]
    wild: int = 0

    @classmethod
    def empty(cls) -> "DicePool":
        return cls({face: 0 for face in range(2, 7)}, 0)

    @property
    def total(self) -> int:
        return sum(self.faces.values()) + self.wild

    def copy(self) -> "DicePool":
        return DicePool(dict(self.faces), self.wild)

    def spend(self, chain: Chain) -> None:
        if chain.face is not None and chain.natural:
            self.faces[chain.face] -= chain.natural
        self.faces[6] -= chain.sixes
        self.wild -= chain.wild


def command_failure(counts) -> bool:
    """CHQ-13: a side with more 1s than 6s suffers a Command Failure."""
    return counts[0] > counts[5]


def first_pulse(counts_a, counts_b) -> int:
    """Who takes the first pulse when neither side failed: most 6s, ties broken by 5s, 4s, ... 2s.

    Returns 0 (side a), 1 (side b) or -1 (a full tie: a roll-off decides, CHQ-13).
    """
    for face in (6, 5, 4, 3, 2):
        a, b = counts_a[face - 1], counts_b[face - 1]
        if a != b:
            return 0 if a > b else 1
    return -1


def chain_problem(chain: Chain, pool: DicePool, staff_orders: int) -> str | None:
    """Why ``chain`` cannot be used from ``pool`` (CHQ-14, CHQ-15), or None."""
    if chain.dice <= 0:
        return "a dice chain needs at least one die"
    if min(chain.natural, chain.sixes, chain.wild, chain.staff) < 0:
        return "a dice chain cannot use a negative number of dice"
    if chain.face is not None and not 2 <= chain.face <= 6:
        return "a dice chain uses dice showing 2 to 6 (1s are discarded or given away)"
    if chain.face == 6 and chain.sixes:
        return "write a chain of 6s as '6:n' only"
    if chain.face is None and chain.natural:
        return "a chain's natural dice need a face"
    if chain.natural + chain.sixes + chain.wild == 0:
        return "a dice chain needs at least one Command Die; Staff Orders only join a chain as wild dice"
    if chain.face is not None and chain.natural > pool.faces.get(chain.face, 0):
        return f"you have only {pool.faces.get(chain.face, 0)} unspent dice showing {chain.face}"
    if chain.sixes > pool.faces[6] - (chain.natural if chain.face == 6 else 0):
        return f"you have only {pool.faces[6]} unspent 6s"
    if chain.wild > pool.wild:
        return f"you have only {pool.wild} wild dice from the enemy's Command Failure"
    if chain.staff > staff_orders:
        return f"you have only {staff_orders} Staff Orders to use as wild dice"
    return None


def canonical_chains(pool: DicePool) -> list[Chain]:
    """The chains legal_actions offers: for each face, all its dice, alone and with every wild die;
    all 6s; all wild dice. Any other legal chain is accepted by is_legal."""
    chains: list[Chain] = []
    wild6, wild = pool.faces[6], pool.wild
    for face in (2, 3, 4, 5):
        n = pool.faces[face]
        if n:
            chains.append(Chain(face, n))
            if wild6 or wild:
                chains.append(Chain(face, n, wild6, wild))
    if wild6:
        chains.append(Chain(6, wild6))
        if wild:
            chains.append(Chain(6, wild6, 0, wild))
    if wild and not chains:
        chains.append(Chain(None, 0, 0, wild))
    elif wild:
        chains.append(Chain(None, 0, 0, wild))
    return list(dict.fromkeys(chains))


def staff_orders_earned(chain: Chain, staff_dice_earn: bool, cap: int) -> tuple[int, bool]:
    """Staff Orders a chain earns (CHQ-15): a double 1, a triple 2, a quadruple 3 (capped), and
    whether they are instant (a chain of 6s) rather than usable from the next turn."""
    dice = chain.natural + chain.sixes + chain.wild + (chain.staff if staff_dice_earn else 0)
    earned = max(0, min(dice - 1, cap))
    return earned, chain.face == 6 and chain.sixes == 0
