"""Exact dice distributions, free of any ruleset.

A fire, a comms check or a move is a chance node, so the engine needs the
exact probability of every distinct result, not a sample: search may
enumerate the results, and tests compare them with hand arithmetic. Every
probability here is a :class:`fractions.Fraction`; floats appear only when a
caller displays them.

Pools of thirty dice must be instant, so nothing enumerates the ``faces**n``
rolls: counts come from binomial and multinomial closed forms and from
convolution, in integers over a common denominator, and become fractions once.

Examples
--------
>>> successes(2, 4)[1]
Fraction(1, 2)
>>> opposed_check(4, 3)
Fraction(1, 2)
>>> effective_pool(5, 7)
(4, 6)
>>> combined_fire_dice([4, 4, 4])
8
"""

from __future__ import annotations

import numbers
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from fractions import Fraction
from functools import lru_cache
from math import comb, lcm
from typing import Any, Generic, TypeVar

from engine.errors import FireplanError

__all__ = [
    "Distribution",
    "successes",
    "successes_and_sixes",
    "effective_pool",
    "opposed_check",
    "combined_fire_dice",
    "sum_of_dice",
]

T = TypeVar("T", bound=Hashable)
U = TypeVar("U", bound=Hashable)


class Distribution(Mapping, Generic[T]):
    """An immutable map from distinct outcomes to exact, positive probabilities summing to 1.

    It is what a chance node offers (``chance_outcomes()``), so outcomes with
    probability zero are dropped and repeated outcomes are merged on input.

    Parameters
    ----------
    probabilities : mapping or iterable of (outcome, probability) pairs
        Probabilities are ``Fraction`` or ``int``; floats are refused because
        they are not exact.

    Raises
    ------
    ValueError
        On a negative or inexact probability, or when they do not sum to 1.

    Examples
    --------
    >>> coin = Distribution({"heads": Fraction(1, 2), "tails": Fraction(1, 2)})
    >>> coin.probability(lambda side: side == "heads")
    Fraction(1, 2)
    >>> Distribution.certain(0).chance_outcomes()
    [(0, Fraction(1, 1))]
    """

    __slots__ = ("_table", "_index")

    def __init__(self, probabilities: Mapping[T, Fraction] | Iterable[tuple[T, Fraction]]):
        pairs = probabilities.items() if isinstance(probabilities, Mapping) else probabilities
        merged: dict[T, Fraction] = defaultdict(Fraction)
        for outcome, probability in pairs:
            if isinstance(probability, bool) or not isinstance(probability, (Fraction, int)):
                raise ValueError(f"probability of {outcome!r} must be a Fraction or int, got {probability!r}")
            if probability < 0:
                raise ValueError(f"probability of {outcome!r} is negative: {probability}")
            merged[outcome] += probability
        total = sum(merged.values(), Fraction(0))
        if total != 1:
            raise ValueError(f"probabilities sum to {total}, not 1")
        self._init({outcome: p for outcome, p in merged.items() if p})

    def _init(self, table: dict[T, Fraction]) -> None:
        try:
            ordered = tuple(sorted(table.items(), key=lambda item: item[0]))
        except TypeError:  # outcomes that do not order: a stable, readable order instead
            ordered = tuple(sorted(table.items(), key=lambda item: repr(item[0])))
        object.__setattr__(self, "_table", ordered)
        object.__setattr__(self, "_index", dict(ordered))

    @classmethod
    def certain(cls, outcome: T) -> Distribution[T]:
        """The distribution of a result that is sure to happen."""
        return cls({outcome: Fraction(1)})

    @classmethod
    def from_weights(cls, weights: Mapping[T, int], total: int | None = None) -> Distribution[T]:
        """Normalise integer ``weights`` (counts of equally likely rolls) by ``total``.

        ``total`` defaults to the sum of the weights; when given it must equal
        that sum, which catches a count that lost some rolls.

        >>> Distribution.from_weights({"hit": 1, "miss": 2})["hit"]
        Fraction(1, 3)
        """
        weight_sum = sum(weights.values())
        if total is None:
            total = weight_sum
        if weight_sum != total or total <= 0:
            raise ValueError(f"weights sum to {weight_sum}, expected {total}")
        if any(weight < 0 for weight in weights.values()):
            raise ValueError("weights must not be negative")
        self = cls.__new__(cls)
        self._init({outcome: Fraction(weight, total) for outcome, weight in weights.items() if weight})
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Distribution is immutable")

    # -- the Mapping interface
    def __getitem__(self, outcome: T) -> Fraction:
        return self._index[outcome]

    def __iter__(self) -> Iterator[T]:
        return (outcome for outcome, _ in self._table)

    def __len__(self) -> int:
        return len(self._table)

    def __contains__(self, outcome: object) -> bool:
        return outcome in self._index

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Distribution):
            return self._index == other._index
        return NotImplemented

    def __hash__(self) -> int:
        return hash(frozenset(self._index.items()))

    def __repr__(self) -> str:
        body = ", ".join(f"{outcome!r}: {p}" for outcome, p in self._table)
        return f"Distribution({{{body}}})"

    def items(self) -> tuple[tuple[T, Fraction], ...]:  # type: ignore[override]
        """``(outcome, probability)`` pairs in ascending order of outcome."""
        return self._table

    def outcomes(self) -> tuple[T, ...]:
        """The distinct outcomes, in ascending order."""
        return tuple(outcome for outcome, _ in self._table)

    def chance_outcomes(self) -> list[tuple[T, Fraction]]:
        """The ``[(outcome, probability)]`` list a chance node returns."""
        return list(self._table)

    # -- questions
    def probability(self, predicate: Callable[[T], bool]) -> Fraction:
        """P(predicate(outcome)).

        >>> successes(3, 4).probability(lambda hits: hits >= 2)
        Fraction(1, 2)
        """
        return sum((p for outcome, p in self._table if predicate(outcome)), Fraction(0))

    def expectation(self, value: Callable[[T], Any] | None = None) -> Fraction:
        """E[value(outcome)]; by default the outcome itself, which must be a number.

        >>> successes(3, 4).expectation()
        Fraction(3, 2)
        """
        if value is None:
            return sum((p * outcome for outcome, p in self._table), Fraction(0))
        return sum((p * value(outcome) for outcome, p in self._table), Fraction(0))

    def map(self, function: Callable[[T], U]) -> Distribution[U]:
        """The distribution of ``function(outcome)``; outcomes that meet are merged.

        >>> successes(2, 4).map(lambda hits: hits > 0)[True]
        Fraction(3, 4)
        """
        return Distribution((function(outcome), p) for outcome, p in self._table)

    def weights(self) -> tuple[tuple[tuple[T, int], ...], int]:
        """Integer weights over the least common denominator: ``(pairs, denominator)``.

        Composing distributions in integers and dividing once is far faster
        than multiplying fractions (no gcd at every step).

        >>> successes(1, 4).weights()
        (((0, 1), (1, 1)), 2)
        """
        denominator = lcm(*(p.denominator for _, p in self._table))
        return tuple((outcome, p.numerator * (denominator // p.denominator)) for outcome, p in self._table), denominator


# ---------------------------------------------------------------- arguments
def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise FireplanError(f"{name} must be a whole number >= 0, got {value!r}")
    return int(value)


def _integer(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise FireplanError(f"{name} must be a whole number, got {value!r}")
    return int(value)


def _faces(faces: Any) -> int:
    faces = _integer("faces", faces)
    if faces < 1:
        raise FireplanError(f"a die needs at least one face, got {faces}")
    return faces


# ---------------------------------------------------------------- pools
@lru_cache(maxsize=1024, typed=True)
def successes(n: int, tn: int, faces: int = 6) -> Distribution[int]:
    """Successes of ``n`` dice, each succeeding when it shows ``tn`` or more (binomial).

    A ``tn`` of 1 or less always succeeds and one above ``faces`` never does;
    rules that change the pool for such TNs (CHQ-11) apply
    :func:`effective_pool` first.

    Examples
    --------
    >>> successes(3, 5).items()  # p = 1/3: 8, 12, 6, 1 of 27
    ((0, Fraction(8, 27)), (1, Fraction(4, 9)), (2, Fraction(2, 9)), (3, Fraction(1, 27)))
    """
    n, tn, faces = _count("dice", n), _integer("tn", tn), _faces(faces)
    hit = min(max(faces - tn + 1, 0), faces)
    miss = faces - hit
    weights = {k: comb(n, k) * hit**k * miss ** (n - k) for k in range(n + 1)}
    return Distribution.from_weights(weights, total=faces**n)


@lru_cache(maxsize=1024, typed=True)
def successes_and_sixes(n: int, tn: int, faces: int = 6) -> Distribution[tuple[int, int]]:
    """Joint distribution of ``(successes, sixes)`` for ``n`` dice at ``tn``.

    Suppression and forced-back distances count sixes (the top face) on top
    of successes, and a six is always a success, so each die falls in one of
    three classes (fail, success that is not a six, six) and the counts are
    multinomial. ``tn`` must lie in ``1..faces``: apply :func:`effective_pool`
    first.

    Examples
    --------
    >>> d = successes_and_sixes(1, 4)
    >>> d[(0, 0)], d[(1, 0)], d[(1, 1)]
    (Fraction(1, 2), Fraction(1, 3), Fraction(1, 6))
    """
    n, tn, faces = _count("dice", n), _integer("tn", tn), _faces(faces)
    if not 1 <= tn <= faces:
        raise FireplanError(f"tn must be between 1 and {faces} (apply effective_pool first), got {tn}")
    plain, miss = faces - tn, tn - 1  # faces giving a success that is not a six; failing faces
    weights: dict[tuple[int, int], int] = {}
    for sixes in range(n + 1):
        ways_sixes = comb(n, sixes)
        rest = n - sixes
        for others in range(rest + 1):
            weight = ways_sixes * comb(rest, others) * plain**others * miss ** (rest - others)
            if weight:
                weights[(sixes + others, sixes)] = weight
    return Distribution.from_weights(weights, total=faces**n)


def effective_pool(dice: int, tn: int, max_tn: int = 6, min_tn: int = 2) -> tuple[int, int]:
    """The ``(dice, tn)`` actually rolled when a TN leaves the range a die can roll.

    A TN above ``max_tn`` costs one die per point over and rolls at
    ``max_tn``; a TN below ``min_tn`` stays ``min_tn`` and adds one die per
    point under (CHQ-11 with its ruleset's settings). Dice never go negative,
    and an empty pool gains nothing: a unit with no dice of a kind (no AT
    dice, say) has nothing to fire however easy the shot.

    Examples
    --------
    >>> effective_pool(6, 7)  # long range through smoke: lose 1D, roll 6+
    (5, 6)
    >>> effective_pool(2, 9)
    (0, 6)
    >>> effective_pool(4, 1)
    (5, 2)
    """
    dice, tn = _count("dice", dice), _integer("tn", tn)
    max_tn, min_tn = _integer("max_tn", max_tn), _integer("min_tn", min_tn)
    if min_tn > max_tn:
        raise FireplanError(f"min_tn {min_tn} is above max_tn {max_tn}")
    if tn > max_tn:
        return max(0, dice - (tn - max_tn)), max_tn
    if tn < min_tn:
        return (dice + (min_tn - tn) if dice else 0), min_tn
    return dice, tn


def opposed_check(n: int, m: int, tn: int = 4, opposing_tn: int = 4, faces: int = 6) -> Fraction:
    """P(``n`` dice at ``tn`` score strictly more successes than ``m`` dice at ``opposing_tn``).

    This is the shape of a comms check (CHQ-18) and a supply check (CHQ-22).

    Examples
    --------
    >>> opposed_check(4, 3)  # one more coin than the other side: a fair bet
    Fraction(1, 2)
    >>> opposed_check(1, 0)
    Fraction(1, 2)
    """
    ours, theirs = successes(n, tn, faces), successes(m, opposing_tn, faces)
    total, below = Fraction(0), Fraction(0)  # below = P(theirs < k) as k rises
    for k in range(_count("dice", n) + 1):
        total += ours.get(k, 0) * below
        below += theirs.get(k, 0)
    return total


def combined_fire_dice(dice_list: Iterable[int]) -> int:
    """Fire dice of batteries firing together: one at full dice, every other at half, rounded up.

    Time-on-target (CHQ-24) and combined initial barrages (CHQ-27) count this
    way. The full battery is the largest: the pool is the sum of the halves
    (rounded up) plus the rounded-down half of the full battery, which the
    largest maximises; equal batteries make the choice moot.

    Examples
    --------
    >>> combined_fire_dice([4, 4, 4])
    8
    >>> combined_fire_dice([3, 5])
    7
    """
    dice = sorted((_count("battery dice", d) for d in dice_list), reverse=True)
    if not dice:
        raise FireplanError("combined fire needs at least one battery")
    return dice[0] + sum(-(-d // 2) for d in dice[1:])


@lru_cache(maxsize=256)
def _sum_counts(k: int, faces: int) -> tuple[int, ...]:
    """Number of ways ``k`` dice sum to each total ``0..k*faces``, by repeated convolution."""
    counts = [1]
    for _ in range(k):
        step = [0] * (len(counts) + faces)
        for total, ways in enumerate(counts):
            if ways:
                for face in range(1, faces + 1):
                    step[total + face] += ways
        counts = step
    return tuple(counts)


@lru_cache(maxsize=256, typed=True)
def sum_of_dice(k: int, faces: int = 6) -> Distribution[int]:
    """Distribution of the sum of ``k`` dice (zero dice sum to 0 for sure).

    Examples
    --------
    >>> sum_of_dice(2)[7]
    Fraction(1, 6)
    >>> sum_of_dice(0).chance_outcomes()
    [(0, Fraction(1, 1))]
    """
    k, faces = _count("dice", k), _faces(faces)
    counts = _sum_counts(k, faces)
    return Distribution.from_weights({total: ways for total, ways in enumerate(counts) if ways}, total=faces**k)
