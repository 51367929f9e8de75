"""CHQ fire resolution (CHQ-3..CHQ-6, CHQ-10, CHQ-11, CHQ-18, CHQ-22, CHQ-24, CHQ-27) as exact odds.

Three independent checks: numbers worked by hand for tiny pools, a brute-force
enumeration of every roll for small pools, and vectorised Monte Carlo of 10^6
fires for realistic ones.
"""

from __future__ import annotations

import itertools
import time
from collections import defaultdict
from fractions import Fraction
from math import sqrt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dice import Distribution
from engine.errors import FireplanError
from engine.rulesets import load_ruleset
from engine.rulesets.chq.fire import (
    NO_EFFECT,
    FireResult,
    barrage_fire_odds,
    chq_fire_odds,
    comms_odds,
    fire_outcomes,
    p_dispersed,
    supply_odds,
    tot_fire_odds,
)

ROLLS = 1_000_000
CHQ = load_ruleset("chq")


def assert_matches_samples(exact: Distribution, keys: np.ndarray, decode=lambda key: key) -> None:
    """Every outcome's frequency within 5 standard errors (variance floored at 1/N); no impossible outcome."""
    values, counts = np.unique(keys, return_counts=True)
    observed = {decode(int(value)): int(count) / keys.size for value, count in zip(values, counts)}
    impossible = [outcome for outcome in observed if outcome not in exact]
    assert not impossible, f"sampled outcomes with exact probability 0: {impossible[:5]}"
    for outcome, p in exact.items():
        p = float(p)
        error = sqrt(max(p, 1 / keys.size) * (1 - p) / keys.size)
        assert abs(observed.get(outcome, 0.0) - p) <= 5 * error, (outcome, observed.get(outcome, 0.0), p)


def simulate_fire(rng, dice, tn, reaction, reaction_tn=4, high_suppression=False, on_miss=False, base=6):
    """10^6 fires rolled die by die, encoded as disruption * 10^4 + suppressed * 10^3 + forced back."""
    fire = rng.integers(1, 7, size=(ROLLS, dice), dtype=np.int8)
    hits, sixes = (fire >= tn).sum(axis=1), (fire == 6).sum(axis=1)
    react = rng.integers(1, 7, size=(ROLLS, reaction), dtype=np.int8)
    checks = hits >= 1
    if high_suppression and on_miss:
        checks = np.ones(ROLLS, dtype=bool)
    saves = np.where(checks, (react >= reaction_tn).sum(axis=1), 0)
    target_sixes = np.where(checks, (react == 6).sum(axis=1), 0)
    disruption = np.maximum(hits - saves, 0)
    suppressed = (target_sixes <= sixes) if high_suppression else (target_sixes < sixes)
    suppressed &= checks
    unmatched = np.where(disruption > 0, np.maximum(sixes - target_sixes, 0), 0)
    extra = rng.integers(1, 7, size=(ROLLS, dice), dtype=np.int8)
    pushed = base + (extra * (np.arange(dice) < unmatched[:, None])).sum(axis=1)
    forced_back = np.where(disruption > 0, pushed, 0)
    return disruption * 10_000 + suppressed * 1_000 + forced_back


def decode(key: int) -> FireResult:
    disruption, rest = divmod(key, 10_000)
    suppressed, forced_back = divmod(rest, 1_000)
    return FireResult(disruption, bool(suppressed), forced_back)


def brute_force_fire(dice, tn, reaction, reaction_tn=4, high_suppression=False, on_miss=False, base=6):
    """Every roll of every die, forced-back dice included, each with its exact weight."""
    weights: dict[FireResult, Fraction] = defaultdict(Fraction)
    each = Fraction(1, 6 ** (dice + reaction))
    for fire in itertools.product(range(1, 7), repeat=dice):
        hits, sixes = sum(f >= tn for f in fire), fire.count(6)
        for react in itertools.product(range(1, 7), repeat=reaction):
            if hits == 0 and not (high_suppression and on_miss):
                weights[NO_EFFECT] += each
                continue
            saves, target_sixes = sum(r >= reaction_tn for r in react), react.count(6)
            disruption = max(0, hits - saves)
            suppressed = target_sixes <= sixes if high_suppression else target_sixes < sixes
            if not disruption:
                weights[FireResult(0, suppressed, 0)] += each
                continue
            unmatched = max(0, sixes - target_sixes)
            for push in itertools.product(range(1, 7), repeat=unmatched):
                weights[FireResult(disruption, suppressed, base + sum(push))] += each / 6**unmatched
    return Distribution(weights)


# ---------------------------------------------------------------- CHQ-3 disruption
def test_chq_3_one_die_against_no_reaction_by_hand():
    d = fire_outcomes(1, 4, 0)
    # miss 3/6; 4 or 5: 1 Disruption, forced back 6"; a six: 1 Disruption, suppressed, 6" + 1d6
    expected = {NO_EFFECT: Fraction(1, 2), FireResult(1, False, 6): Fraction(1, 3)}
    expected |= {FireResult(1, True, 6 + k): Fraction(1, 36) for k in range(1, 7)}
    assert d == Distribution(expected)


def test_chq_3_reaction_successes_cancel_disruption():
    # 1D at 4+ against 1D at 4+: Disruption needs a hit (1/2) and a failed save (1/2)
    odds = chq_fire_odds(1, 4, 1)
    assert odds.disruption == (Fraction(3, 4), Fraction(1, 4))
    # 2D at 4+ against 1D: 2 net = 2 hits (1/4) unsaved (1/2) = 1/8;
    # 1 net = 2 hits saved (1/4 * 1/2) + 1 hit unsaved (1/2 * 1/2) = 3/8; the rest 1/2
    assert chq_fire_odds(2, 4, 1).disruption == (Fraction(1, 2), Fraction(3, 8), Fraction(1, 8))


def test_chq_3_a_miss_forces_no_reaction_check():
    # 1D at 6+ against 1D at 4+: a miss (5/6) does nothing; a six saved by a six (1/6 * 1/6) does nothing either
    d = fire_outcomes(1, 6, 1)
    assert d[NO_EFFECT] == Fraction(5, 6) + Fraction(1, 36)


def test_chq_3_suppressed_target_reacts_at_5_plus():
    odds = chq_fire_odds(3, 4, 4, suppressed_target=True)
    assert odds.effective_reaction_tn == CHQ.setting("reaction_tn_suppressed") == 5
    assert odds.outcomes == fire_outcomes(3, 4, 4, reaction_tn=5)
    assert chq_fire_odds(3, 4, 4, reaction_tn=4, suppressed_target=True).effective_reaction_tn == 4  # explicit wins
    assert chq_fire_odds(3, 4, 4).effective_reaction_tn == 4


def test_chq_3_disruption_list_covers_the_pool():
    odds = chq_fire_odds(7, 3, 5)
    assert len(odds.disruption) == odds.effective_dice + 1 == 8
    assert sum(odds.disruption) == 1
    assert odds.expected_disruption == sum(k * p for k, p in enumerate(odds.disruption))


# ---------------------------------------------------------------- CHQ-4 suppression
def test_chq_4_a_six_suppresses_unless_matched():
    d = fire_outcomes(1, 6, 1)  # firer needs its six; target saves on 4+
    # six (1/6) then: target six (1/6) saves and matches; 4-5 (1/3) saves but is suppressed; miss (1/2) is disrupted
    assert d[FireResult(0, True, 0)] == Fraction(1, 6) * Fraction(1, 3)
    assert sum(d[FireResult(1, True, 6 + k)] for k in range(1, 7)) == Fraction(1, 6) * Fraction(1, 2)
    assert d.probability(lambda r: r.suppressed) == Fraction(1, 6) * Fraction(5, 6)


def test_chq_4_no_six_no_suppression():
    d = fire_outcomes(2, 4, 0)
    assert d.probability(lambda r: r.suppressed) == 1 - Fraction(5, 6) ** 2  # at least one six
    assert all(r.forced_back in (0, 6) for r in d if not r.suppressed)


def test_chq_4_target_needs_as_many_sixes():
    # 1D at 6+ against 3D: suppressed unless the target rolls at least one six: (5/6)^3 of a six's 1/6
    assert fire_outcomes(1, 6, 3).probability(lambda r: r.suppressed) == Fraction(1, 6) * Fraction(5, 6) ** 3


# ---------------------------------------------------------------- CHQ-5 high suppression
def test_chq_5_high_suppression_ties_suppress():
    hs = fire_outcomes(1, 4, 1, high_suppression=True)
    # hit without six (1/3): suppressed unless the target rolls a six (5/6); hit with six (1/6): always (Y <= 1)
    assert hs.probability(lambda r: r.suppressed) == Fraction(1, 3) * Fraction(5, 6) + Fraction(1, 6)  # 4/9
    normal = fire_outcomes(1, 4, 1)
    assert normal.probability(lambda r: r.suppressed) == Fraction(1, 6) * Fraction(5, 6)  # 5/36


def test_chq_5_firer_without_six_suppresses_target_without_six():
    d = fire_outcomes(1, 4, 0, high_suppression=True)
    assert d.probability(lambda r: r.suppressed) == Fraction(1, 2)  # every hit suppresses
    assert d[FireResult(1, True, 6)] == Fraction(1, 3)  # a 4 or 5: no unmatched six, 6" only


def test_chq_5_high_suppression_on_miss_reading():
    on_miss = fire_outcomes(1, 4, 1, high_suppression=True, on_miss=True)
    # the miss (1/2) now checks too and is suppressed unless the target rolls a six (5/6)
    assert on_miss.probability(lambda r: r.suppressed) == Fraction(4, 9) + Fraction(1, 2) * Fraction(5, 6)  # 31/36
    assert fire_outcomes(1, 4, 0, high_suppression=True, on_miss=True).probability(lambda r: r.suppressed) == 1
    # on_miss changes nothing without High Suppression: a miss never checks
    assert fire_outcomes(2, 4, 2, on_miss=True) == fire_outcomes(2, 4, 2)


def test_chq_5_reading_comes_from_the_setting():
    assert CHQ.setting("high_suppression_on_miss") is False
    odds = chq_fire_odds(3, 4, 3, high_suppression=True)
    assert not odds.on_miss and odds.outcomes == fire_outcomes(3, 4, 3, high_suppression=True)
    other = chq_fire_odds(3, 4, 3, high_suppression=True, on_miss=True)
    assert other.outcomes == fire_outcomes(3, 4, 3, high_suppression=True, on_miss=True)
    assert other.p_suppressed > odds.p_suppressed


# ---------------------------------------------------------------- CHQ-6 forced back and dispersal
def test_chq_6_forced_back_six_plus_d6_per_unmatched_six():
    fb = chq_fire_odds(2, 6, 0).forced_back
    # at 6+ every hit is a six: one six (10/36) pushes 6"+1d6; two (1/36) push 6"+2d6
    assert fb[0] == Fraction(25, 36)
    assert 6 not in fb
    assert fb[8] == Fraction(10, 36) * Fraction(1, 6) + Fraction(1, 36) * Fraction(1, 36)  # 61/1296
    assert fb[13] == Fraction(1, 36) * Fraction(6, 36)  # 2d6 = 7
    assert max(fb) == 18


def test_chq_6_matched_sixes_do_not_push():
    # 2D at 6+ against 1D at 6+: 1 Disruption comes from one six unsaved (10/36 * 5/6) or from two sixes, one
    # matched by the target's six (1/36 * 1/6); either way one six is unmatched: 6" + 1d6, never 2d6
    d = fire_outcomes(2, 6, 1, reaction_tn=6)
    one = [result for result in d if result.disruption == 1]
    assert sorted(result.forced_back for result in one) == list(range(7, 13))
    assert d[FireResult(1, True, 7)] == (Fraction(10, 36) * Fraction(5, 6) + Fraction(1, 36) * Fraction(1, 6)) / 6


def test_chq_6_only_disruption_forces_back():
    for result in fire_outcomes(5, 4, 4, high_suppression=True):
        assert (result.forced_back > 0) == (result.disruption > 0)
        assert result.forced_back == 0 or result.forced_back >= CHQ.setting("forced_back_base")


def test_chq_6_dispersed_when_disruption_reaches_cohesion():
    d = fire_outcomes(1, 4, 0)
    assert p_dispersed(d, current_disruption=2, cohesion=3) == Fraction(1, 2)
    assert p_dispersed(d, current_disruption=0, cohesion=3) == 0
    assert p_dispersed(d, current_disruption=3, cohesion=3) == 1
    odds = chq_fire_odds(7, 3, 5)
    assert odds.cohesion == CHQ.setting("cohesion") == 3
    assert odds.p_dispersed() == sum(odds.disruption[3:])
    assert odds.p_dispersed(1) == sum(odds.disruption[2:])
    with pytest.raises(FireplanError):
        p_dispersed(d, cohesion=0)


# ---------------------------------------------------------------- brute force and Monte Carlo
@pytest.mark.parametrize(
    "dice, tn, reaction, reaction_tn, high_suppression, on_miss",
    [
        (3, 4, 2, 4, False, False),
        (3, 3, 2, 5, False, False),
        (2, 6, 2, 4, False, False),
        (3, 4, 2, 4, True, False),
        (3, 5, 2, 4, True, True),
        (2, 2, 3, 5, True, False),
    ],
)
def test_chq_3_to_6_fire_matches_brute_force_enumeration(dice, tn, reaction, reaction_tn, high_suppression, on_miss):
    exact = fire_outcomes(dice, tn, reaction, reaction_tn, high_suppression, on_miss)
    assert exact == brute_force_fire(dice, tn, reaction, reaction_tn, high_suppression, on_miss)


@pytest.mark.parametrize(
    "seed, dice, tn, reaction, reaction_tn, high_suppression, on_miss",
    [
        (3, 7, 3, 5, 4, False, False),  # CHQ-3, CHQ-4, CHQ-6
        (5, 4, 4, 3, 4, True, False),  # CHQ-5, default reading
        (55, 4, 4, 3, 4, True, True),  # CHQ-5, on-miss reading
        (24, 8, 4, 5, 5, False, False),  # CHQ-24 ToT pool against a suppressed target
    ],
)
def test_chq_3_to_6_fire_matches_monte_carlo(seed, dice, tn, reaction, reaction_tn, high_suppression, on_miss):
    rng = np.random.default_rng(seed)
    exact = fire_outcomes(dice, tn, reaction, reaction_tn, high_suppression, on_miss)
    keys = simulate_fire(rng, dice, tn, reaction, reaction_tn, high_suppression, on_miss)
    assert_matches_samples(exact, keys, decode)
    # and the summary lines a user reads
    odds = chq_fire_odds(dice, tn, reaction, reaction_tn, high_suppression=high_suppression, on_miss=on_miss)
    disruption, suppressed = keys // 10_000, (keys // 1_000) % 10 == 1
    assert_matches_samples(Distribution(dict(enumerate(odds.disruption))), disruption)
    assert_matches_samples(Distribution({True: odds.p_suppressed, False: 1 - odds.p_suppressed}), suppressed, bool)
    assert_matches_samples(odds.forced_back, keys % 1_000)


def test_chq_24_tot_pool_matches_monte_carlo_of_three_batteries():
    # three 4D batteries rolled as 4D + 2D + 2D, then one fire of the pooled dice
    rng = np.random.default_rng(2424)
    odds = tot_fire_odds([4, 4, 4], 5)
    keys = simulate_fire(rng, 8, 4, 5)
    assert_matches_samples(odds.outcomes, keys, decode)


# ---------------------------------------------------------------- CHQ-10 and CHQ-11 through the builder
def test_chq_10_smoke_adds_two_to_tn():
    odds = chq_fire_odds(7, 3, 5, smoke=True)
    assert (odds.effective_dice, odds.effective_tn, odds.smoke_modifier) == (7, 5, 2)
    assert odds.outcomes == chq_fire_odds(7, 5, 5).outcomes


def test_chq_10_and_11_long_range_through_smoke_loses_a_die_and_rolls_6():
    odds = chq_fire_odds(4, 5, 3, smoke=True)
    assert (odds.effective_dice, odds.effective_tn) == (3, 6)


def test_chq_10_smoke_counted_once_unless_per_screen():
    assert CHQ.setting("smoke_tn_per_screen") is False
    assert chq_fire_odds(7, 3, 5, smoke=2).smoke_modifier == 2


def test_chq_11_tn_7_loses_a_die_and_rolls_6():
    odds = chq_fire_odds(5, 7, 3)
    assert (odds.effective_dice, odds.effective_tn) == (4, 6)
    assert odds.outcomes == fire_outcomes(4, 6, 3)


def test_chq_11_tn_below_2_adds_dice():
    odds = chq_fire_odds(5, 1, 3)
    assert (odds.effective_dice, odds.effective_tn) == (6, 2)
    assert len(odds.disruption) == 7


def test_chq_11_pool_reduced_to_zero_cannot_fire():
    with pytest.raises(FireplanError, match="cannot fire"):
        chq_fire_odds(1, 7, 3)
    with pytest.raises(FireplanError, match="cannot fire"):
        chq_fire_odds(2, 6, 3, smoke=True)
    with pytest.raises(FireplanError):
        chq_fire_odds(0, 4, 3)
    assert fire_outcomes(0, 4, 3, high_suppression=True, on_miss=True) == Distribution.certain(NO_EFFECT)


def test_chq_11_applies_to_the_reaction_pool_too():
    odds = chq_fire_odds(4, 4, 4, reaction_tn=7)
    assert (odds.effective_reaction, odds.effective_reaction_tn) == (3, 6)


@pytest.mark.parametrize("bad", [dict(dice=-1), dict(dice=2.5), dict(reaction=-2), dict(tn="4"), dict(smoke=-1)])
def test_builder_refuses_bad_arguments(bad):
    arguments = dict(dice=4, tn=4, reaction=3) | bad
    with pytest.raises(FireplanError):
        chq_fire_odds(**arguments)


def test_raw_fire_needs_a_rollable_tn():
    with pytest.raises(FireplanError):
        fire_outcomes(3, 7, 2)


# ---------------------------------------------------------------- summary and chance node
def test_fire_odds_summary_is_consistent():
    odds = chq_fire_odds(7, 3, 5, high_suppression=True)
    outcomes = odds.outcomes
    assert odds.p_any_effect == outcomes.probability(lambda r: r.disruption >= 1 or r.suppressed)
    assert odds.p_any_effect == 1 - outcomes.probability(lambda r: r == NO_EFFECT)
    assert odds.p_forced_back == 1 - odds.disruption[0] == 1 - odds.forced_back[0]
    chance = outcomes.chance_outcomes()
    assert len({outcome for outcome, _ in chance}) == len(chance)
    assert all(p > 0 for _, p in chance) and sum(p for _, p in chance) == 1


def test_fire_result_prints():
    assert str(NO_EFFECT) == "no effect"
    assert str(FireResult(0, True, 0)) == "suppressed"
    assert str(FireResult(2, True, 9)) == '2 Disruption, suppressed, forced back 9"'


def test_thirty_dice_fire_is_quick():
    start = time.perf_counter()
    fire_outcomes(30, 4, 10, high_suppression=True, on_miss=True)
    chq_fire_odds(30, 3, 8).p_any_effect
    assert time.perf_counter() - start < 2.0


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8), st.integers(2, 6), st.integers(0, 6), st.integers(2, 6))
def test_chq_5_high_suppression_never_suppresses_less(dice, tn, reaction, reaction_tn):
    normal = fire_outcomes(dice, tn, reaction, reaction_tn)
    hs = fire_outcomes(dice, tn, reaction, reaction_tn, high_suppression=True)
    hs_miss = fire_outcomes(dice, tn, reaction, reaction_tn, high_suppression=True, on_miss=True)

    def suppressed(d):
        return d.probability(lambda r: r.suppressed)

    assert suppressed(normal) <= suppressed(hs) <= suppressed(hs_miss)
    # High Suppression changes suppression only, never Disruption or forced-back distances
    assert normal.map(lambda r: (r.disruption, r.forced_back)) == hs.map(lambda r: (r.disruption, r.forced_back))
    assert all(r.disruption <= dice for r in normal)


# ---------------------------------------------------------------- ToT and barrage
def test_chq_24_tot_adds_half_rounded_up():
    odds = tot_fire_odds([4, 4, 4], 5)
    assert odds.effective_dice == 8 and odds.effective_tn == CHQ.setting("indirect_tn") == 4
    assert odds.outcomes == chq_fire_odds(8, 4, 5).outcomes
    assert tot_fire_odds([5, 3], 5, tn=3, smoke=True).outcomes == chq_fire_odds(7, 5, 5).outcomes


def test_chq_24_tot_needs_two_batteries():
    with pytest.raises(FireplanError):
        tot_fire_odds([4], 5)


def test_chq_27_barrage_group_pools_like_tot():
    assert barrage_fire_odds([4], 4).effective_dice == 4
    assert barrage_fire_odds([4, 3, 2], 4).effective_dice == 7  # 4 + 2 + 1
    with pytest.raises(FireplanError):
        barrage_fire_odds([], 4)


# ---------------------------------------------------------------- comms and supply
def test_chq_18_comms_4d_vs_3d_is_one_half():
    assert comms_odds() == comms_odds(4) == comms_odds(4, 3) == Fraction(1, 2)


def test_chq_18_comms_by_hand():
    # A - B + 3 ~ Bin(A + 3, 1/2), so P(A > B) = P(Bin(A + 3) >= 4)
    assert comms_odds(5) == Fraction(70 + 56 + 28 + 8 + 1, 256)
    assert comms_odds(2) == Fraction(5 + 1, 32)
    assert comms_odds(0) == 0


def test_chq_18_comms_matches_monte_carlo():
    rng = np.random.default_rng(1818)
    ours = (rng.integers(1, 7, size=(ROLLS, 4), dtype=np.int8) >= 4).sum(axis=1)
    theirs = (rng.integers(1, 7, size=(ROLLS, 3), dtype=np.int8) >= 4).sum(axis=1)
    p = comms_odds(4)
    assert_matches_samples(Distribution({True: p, False: 1 - p}), ours > theirs, bool)


def test_chq_22_supply_by_nation_and_staff_orders():
    assert supply_odds("USA") == supply_odds(5) == Fraction(163, 256)  # P(Bin(8) >= 4)
    assert supply_odds("Germany") == Fraction(15 + 6 + 1, 64)  # P(Bin(6) >= 4)
    assert supply_odds("Commonwealth") == Fraction(1, 2)
    assert supply_odds("USA", staff_orders=1) == 1 - Fraction(1 + 9 + 36 + 84, 512)  # P(Bin(9) >= 4)
    with pytest.raises(FireplanError, match="nation"):
        supply_odds("Italy")
