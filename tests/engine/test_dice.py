"""engine.dice: exact distributions, checked by hand arithmetic and by vectorised Monte Carlo."""

from __future__ import annotations

import time
from fractions import Fraction
from math import comb, sqrt

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.dice import (
    Distribution,
    combined_fire_dice,
    effective_pool,
    opposed_check,
    successes,
    successes_and_sixes,
    sum_of_dice,
)
from engine.errors import FireplanError

ROLLS = 1_000_000


def assert_matches_samples(exact: Distribution, keys: np.ndarray, decode=lambda key: key) -> None:
    """Every outcome's frequency lies within 5 standard errors of its exact probability.

    The variance has a floor of 1/N so that one stray roll of a very rare
    outcome does not fail; an outcome the exact law calls impossible fails.
    """
    values, counts = np.unique(keys, return_counts=True)
    observed = {decode(int(value)): int(count) / keys.size for value, count in zip(values, counts)}
    impossible = [outcome for outcome in observed if outcome not in exact]
    assert not impossible, f"sampled outcomes with exact probability 0: {impossible[:5]}"
    for outcome, p in exact.items():
        p = float(p)
        error = sqrt(max(p, 1 / keys.size) * (1 - p) / keys.size)
        assert abs(observed.get(outcome, 0.0) - p) <= 5 * error, (outcome, observed.get(outcome, 0.0), p)


def roll(rng: np.random.Generator, n: int, rows: int = ROLLS) -> np.ndarray:
    return rng.integers(1, 7, size=(rows, n), dtype=np.int8)


# ---------------------------------------------------------------- Distribution
def test_distribution_merges_repeats_and_drops_zeros():
    d = Distribution([("a", Fraction(1, 4)), ("a", Fraction(1, 4)), ("b", Fraction(1, 2)), ("c", 0)])
    assert d.chance_outcomes() == [("a", Fraction(1, 2)), ("b", Fraction(1, 2))]
    assert "c" not in d and len(d) == 2


def test_distribution_items_are_sorted_and_probabilities_positive():
    d = successes(4, 3)
    assert [outcome for outcome, _ in d.items()] == sorted(d)
    assert all(p > 0 for _, p in d.items())
    assert sum(p for _, p in d.items()) == 1


@pytest.mark.parametrize(
    "pairs",
    [
        {"a": Fraction(1, 3)},  # sums to 1/3
        {"a": Fraction(3, 2), "b": Fraction(-1, 2)},  # a negative probability
        {"a": 0.5, "b": 0.5},  # floats are not exact
    ],
)
def test_distribution_refuses_bad_probabilities(pairs):
    with pytest.raises(ValueError):
        Distribution(pairs)


def test_distribution_is_immutable_and_hashable():
    d = successes(2, 4)
    with pytest.raises(AttributeError):
        d.anything = 1
    with pytest.raises(TypeError):
        d[0] = Fraction(1)  # type: ignore[index]
    assert hash(d) == hash(successes(2, 4)) and d == Distribution(dict(d.items()))


def test_distribution_helpers():
    d = successes(2, 4)  # 1/4, 1/2, 1/4
    assert d.probability(lambda k: k >= 1) == Fraction(3, 4)
    assert d.expectation() == 1
    assert d.expectation(lambda k: k * k) == Fraction(3, 2)  # 0/4 + 1/2 + 4/4
    assert d.map(lambda k: k % 2).chance_outcomes() == [(0, Fraction(1, 2)), (1, Fraction(1, 2))]
    assert d.weights() == (((0, 1), (1, 2), (2, 1)), 4)
    assert Distribution.from_weights({"x": 2, "y": 6}) == Distribution({"x": Fraction(1, 4), "y": Fraction(3, 4)})
    with pytest.raises(ValueError):
        Distribution.from_weights({"x": 1}, total=2)


# ---------------------------------------------------------------- successes
def test_successes_by_hand():
    # p = 1/2: 1, 2, 1 of 4
    assert successes(2, 4).chance_outcomes() == [(0, Fraction(1, 4)), (1, Fraction(1, 2)), (2, Fraction(1, 4))]
    # p = 1/3, q = 2/3: 8, 12, 6, 1 of 27
    assert successes(3, 5) == Distribution(
        {0: Fraction(8, 27), 1: Fraction(12, 27), 2: Fraction(6, 27), 3: Fraction(1, 27)}
    )


def test_successes_extremes_and_other_dice():
    assert successes(0, 4) == Distribution.certain(0)
    assert successes(3, 1) == Distribution.certain(3)
    assert successes(3, 7) == Distribution.certain(0)
    assert successes(1, 8, faces=10)[1] == Fraction(3, 10)  # d10 showing 8, 9 or 10


def test_successes_refuses_bad_counts():
    for bad in (-1, 2.0, True, "3"):
        with pytest.raises(FireplanError):
            successes(bad, 4)


def test_successes_monte_carlo():
    rng = np.random.default_rng(20240601)
    hits = (roll(rng, 10) >= 3).sum(axis=1)
    assert_matches_samples(successes(10, 3), hits)


@given(st.integers(0, 30), st.integers(1, 7))
def test_successes_mean_is_n_p(n, tn):
    p = Fraction(max(0, 7 - tn), 6)
    assert successes(n, tn).expectation() == n * p


# ---------------------------------------------------------------- successes and sixes
def test_successes_and_sixes_by_hand():
    # one die at 4+: fail 3/6, 4 or 5: 2/6, six: 1/6
    assert successes_and_sixes(1, 4) == Distribution(
        {(0, 0): Fraction(1, 2), (1, 0): Fraction(1, 3), (1, 1): Fraction(1, 6)}
    )
    # two dice at 4+: fail f = 1/2, plain success a = 1/3, six x = 1/6
    assert successes_and_sixes(2, 4) == Distribution(
        {
            (0, 0): Fraction(1, 4),  # f f
            (1, 0): Fraction(1, 3),  # 2 f a
            (1, 1): Fraction(1, 6),  # 2 f x
            (2, 0): Fraction(1, 9),  # a a
            (2, 1): Fraction(1, 9),  # 2 a x
            (2, 2): Fraction(1, 36),  # x x
        }
    )


@pytest.mark.parametrize("n, tn", [(0, 4), (5, 2), (6, 4), (7, 6), (12, 3)])
def test_successes_and_sixes_marginals(n, tn):
    joint = successes_and_sixes(n, tn)
    assert joint.map(lambda sx: sx[0]) == successes(n, tn)
    assert joint.map(lambda sx: sx[1]) == successes(n, 6)
    assert all(sixes <= hits for hits, sixes in joint)


def test_successes_and_sixes_at_six_plus_every_success_is_a_six():
    assert all(hits == sixes for hits, sixes in successes_and_sixes(5, 6))


def test_successes_and_sixes_needs_a_rollable_tn():
    for tn in (0, 7):
        with pytest.raises(FireplanError):
            successes_and_sixes(3, tn)


def test_successes_and_sixes_monte_carlo():
    rng = np.random.default_rng(7)
    dice = roll(rng, 8)
    keys = (dice >= 4).sum(axis=1) * 100 + (dice == 6).sum(axis=1)
    assert_matches_samples(successes_and_sixes(8, 4), keys, decode=lambda key: divmod(key, 100))


def test_pools_of_thirty_dice_are_instant():
    start = time.perf_counter()
    successes_and_sixes.__wrapped__(30, 4)
    successes.__wrapped__(30, 3)
    sum_of_dice.__wrapped__(30)
    opposed_check(30, 30)
    assert time.perf_counter() - start < 1.0


# ---------------------------------------------------------------- CHQ-11 as arithmetic
def test_chq_11_tn_7_loses_a_die_and_rolls_6():
    assert effective_pool(5, 7) == (4, 6)


def test_chq_11_each_point_over_max_costs_a_die_never_below_zero():
    assert effective_pool(7, 8) == (5, 6)
    assert effective_pool(3, 9) == (0, 6)
    assert effective_pool(2, 12) == (0, 6)


def test_chq_11_tn_below_min_stays_min_and_adds_dice():
    assert effective_pool(2, 1) == (3, 2)
    assert effective_pool(4, 0) == (6, 2)
    assert effective_pool(0, 1) == (0, 2)  # nothing to fire gains nothing


def test_chq_11_in_range_unchanged_and_parameters_drive_it():
    assert effective_pool(4, 4) == (4, 4)
    assert effective_pool(4, 10, max_tn=10, min_tn=1) == (4, 10)
    assert effective_pool(4, 11, max_tn=10, min_tn=1) == (3, 10)
    with pytest.raises(FireplanError):
        effective_pool(-1, 4)


@given(st.integers(0, 30), st.integers(-5, 15))
def test_chq_11_effective_pool_is_rollable(dice, tn):
    effective_dice, effective_tn = effective_pool(dice, tn)
    assert 2 <= effective_tn <= 6 and effective_dice >= 0
    assert effective_dice == (max(0, dice - (tn - 6)) if tn > 6 else dice + max(0, 2 - tn) if dice else 0)


# ---------------------------------------------------------------- opposed checks
def test_chq_18_comms_4d_vs_3d_is_one_half():
    assert opposed_check(4, 3) == Fraction(1, 2)
    assert opposed_check(4, 3, tn=4, opposing_tn=4) == Fraction(1, 2)


def test_chq_18_opposed_check_by_hand():
    # strictly more: 1 vs 1 needs hit and miss, 1/2 * 1/2
    assert opposed_check(1, 1) == Fraction(1, 4)
    # 3 vs 3: ties have probability sum C(3,k)^2 / 64 = 20/64; the rest splits evenly
    assert opposed_check(3, 3) == Fraction(22, 64)
    assert opposed_check(0, 0) == 0
    assert opposed_check(2, 0) == Fraction(3, 4)
    # 1 die at 5+ against 1 at 4+: 1/3 * 1/2
    assert opposed_check(1, 1, tn=5, opposing_tn=4) == Fraction(1, 6)


def test_chq_22_supply_5d_vs_3d():
    # A - B + 3 = A + (3 - B) ~ Binomial(8, 1/2), so P(A > B) = P(Bin(8) >= 4) = (70+56+28+8+1)/256
    assert opposed_check(5, 3) == Fraction(163, 256)
    assert opposed_check(5, 3) == sum(Fraction(comb(8, k), 256) for k in range(4, 9))


def test_chq_18_opposed_check_monte_carlo():
    rng = np.random.default_rng(18)
    ours = (roll(rng, 5) >= 4).sum(axis=1)
    theirs = (roll(rng, 3) >= 5).sum(axis=1)
    p = opposed_check(5, 3, tn=4, opposing_tn=5)
    assert_matches_samples(Distribution({True: p, False: 1 - p}), ours > theirs, decode=bool)


# ---------------------------------------------------------------- combined fire dice
def test_chq_24_tot_adds_half_rounded_up():
    assert combined_fire_dice([4, 4, 4]) == 8  # 4 + 2 + 2, the seed's example
    assert combined_fire_dice([4, 3]) == 6  # 4 + ceil(3/2)


def test_chq_24_largest_battery_fires_full():
    # 5 full + ceil(3/2) = 7 beats 3 full + ceil(5/2) = 6
    assert combined_fire_dice([3, 5]) == combined_fire_dice([5, 3]) == 7
    assert combined_fire_dice([5, 5, 1]) == 9  # 5 + 3 + 1


def test_chq_27_barrage_first_full_then_halves_rounded_up():
    assert combined_fire_dice([4]) == 4
    assert combined_fire_dice([4, 3, 2]) == 7  # 4 + 2 + 1
    assert combined_fire_dice([3, 3, 3, 3]) == 9  # 3 + 2 + 2 + 2
    with pytest.raises(FireplanError):
        combined_fire_dice([])
    with pytest.raises(FireplanError):
        combined_fire_dice([4, -2])


@given(st.lists(st.integers(0, 12), min_size=1, max_size=6))
def test_chq_24_full_battery_choice_maximises_the_pool(dice):
    def pool(full: int) -> int:
        return dice[full] + sum(-(-d // 2) for i, d in enumerate(dice) if i != full)

    assert combined_fire_dice(dice) == max(pool(i) for i in range(len(dice)))


# ---------------------------------------------------------------- sums
def test_sum_of_dice_by_hand():
    assert sum_of_dice(0) == Distribution.certain(0)
    assert sum_of_dice(1) == Distribution({k: Fraction(1, 6) for k in range(1, 7)})
    two = sum_of_dice(2)
    assert [two[k] for k in range(2, 13)] == [Fraction(min(k - 1, 13 - k), 36) for k in range(2, 13)]
    assert sum_of_dice(3)[10] == Fraction(27, 216)  # 27 ways to make 10 with 3d6
    assert sum_of_dice(2, faces=3)[4] == Fraction(3, 9)  # 1+3, 2+2, 3+1


def test_sum_of_dice_monte_carlo():
    rng = np.random.default_rng(66)
    assert_matches_samples(sum_of_dice(4), roll(rng, 4).sum(axis=1, dtype=np.int64))
