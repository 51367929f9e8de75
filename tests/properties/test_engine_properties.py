"""Properties of the game-state contract over generated scenarios and random legal play, both rulesets.

Each property is checked on scenarios varied from every map (positions, units,
turn limits, resources, weather, settings: see ``scenarios.py``) with random
legal choices. The example budget is the hypothesis profile in ``conftest.py``
("ci": fixed and small, derandomized; ``HYPOTHESIS_PROFILE=deep`` searches harder).
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import IllegalActionError
from engine.rulesets.chq.actions import parse_action as parse_chq
from engine.rulesets.met.actions import parse_action as parse_met

from .play import MAX_STEPS, fingerprint, game_clock, hidden_enemy_ids, play, screens_on_table
from .scenarios import generated_scenarios

property_settings = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _sides(state) -> list[str]:
    return [side.id for side in state.scenario.sides]


@property_settings
@given(generated_scenarios())
def test_chance_outcomes_are_exact_positive_and_sum_to_one(case):
    """At every chance node: distinct outcomes, exact Fractions, all positive, summing to 1."""
    state = case.scenario.new_game(case.game_seed)
    nodes = 0
    for before, _ in play(state, case.choice_seed):
        if before.is_chance_node():
            outcomes = before.chance_outcomes()
            assert outcomes, "a chance node with no outcomes"
            assert all(isinstance(p, Fraction) and p > 0 for _, p in outcomes), outcomes
            assert sum(p for _, p in outcomes) == 1
            assert len({o for o, _ in outcomes}) == len(outcomes)
            assert set(before.legal_actions()) == {o for o, _ in outcomes}
            nodes += 1
    assert nodes > 0


@property_settings
@given(generated_scenarios(), st.integers(0, 2**31 - 1))
def test_clone_is_independent_of_the_original_and_plays_the_same(case, fork_seed):
    """A clone played on changes nothing in the original; played the same way, it logs the same game."""
    state = case.scenario.new_game(case.game_seed)
    forks = random.Random(fork_seed)
    for before, _ in play(state, case.choice_seed):
        if forks.random() > 0.02:
            continue
        snapshot = fingerprint(before)
        twin, other = before.clone(), before.clone()
        assert fingerprint(twin) == snapshot
        for _ in play(other, fork_seed):  # the other clone plays on to its end, differently
            pass
        assert fingerprint(before) == snapshot, "playing a clone changed the original"
        assert fingerprint(twin) == snapshot, "playing one clone changed another"


def _same_but_whose_move(redrawn, seen) -> bool:
    """Equal observations, except whose move it is: a MET redraw withdraws the enemy's unseen orders of
    this phase and hands the move back to the enemy (``resample_hidden``), which tells nothing hidden."""
    whose = "to_move" if hasattr(seen, "to_move") else "to_act"
    return dataclasses.replace(redrawn, **{whose: getattr(seen, whose)}) == seen


@property_settings
@given(generated_scenarios())
def test_observation_never_reveals_an_enemy_dummy_or_unspotted_unit(case):
    """No id of an unspotted enemy unit appears in a side's observation; no enemy Blind says if it is a dummy;
    redrawing everything the side may not know leaves its observation unchanged."""
    state = case.scenario.new_game(case.game_seed)
    redraw = np.random.default_rng(case.choice_seed)
    checked = Counter()
    for step, (before, _) in enumerate(play(state, case.choice_seed)):
        if step % 7:
            continue
        for side in _sides(before):
            seen = before.observation(side)
            text = repr(seen)
            hidden, dummies = hidden_enemy_ids(before, side)
            leaked = sorted(uid for uid in hidden if f"'{uid}'" in text)
            assert not leaked, f"{side} sees unspotted {leaked}"
            assert all(blind.dummy is None for blind in seen.enemy_blinds)
            assert _same_but_whose_move(before.resample_hidden(side, redraw).observation(side), seen)
            checked["hidden"] += len(hidden)
            checked["dummies"] += len(dummies)
    assert checked, "no position was checked"


@property_settings
@given(generated_scenarios())
def test_every_legal_action_applies_and_the_game_ends_within_its_limit(case):
    """Every action ``legal_actions`` offers applies without error; the clock never passes the limit."""
    state = case.scenario.new_game(case.game_seed)
    steps = 0
    for before, action in play(state, case.choice_seed):
        assert before.is_legal(action), f"{action} offered but not legal: {before.illegal_reason(action)}"
        steps += 1
        now, limit = game_clock(before)
        assert now <= limit
    assert state.is_terminal() and steps < MAX_STEPS
    now, limit = game_clock(state)
    assert now <= limit
    assert sorted(state.returns().values()) in ([-1.0, 1.0], [0.0, 0.0])


def _mangled(action, rng: random.Random, parse):
    """A nearby order: the text of ``action`` with one number or name changed, when it still parses."""
    words = str(action).split()
    if not words:
        return None
    i = rng.randrange(len(words))
    word = words[i]
    if any(ch.isdigit() for ch in word):
        words[i] = "".join(str(rng.randrange(10)) if ch.isdigit() else ch for ch in word)
    else:
        words[i] = word[::-1]
    try:
        return parse(" ".join(words))
    except Exception:  # not an order at all: that is the parser's business, tested elsewhere
        return None


@property_settings
@given(generated_scenarios(), st.integers(0, 2**31 - 1))
def test_an_action_is_legal_rejects_raises_and_changes_nothing(case, probe_seed):
    """Orders from other moments, other sides and mangled texts: ``is_legal`` and ``apply_action`` agree."""
    state = case.scenario.new_game(case.game_seed)
    parse = parse_chq if case.scenario.ruleset.name == "chq" else parse_met
    probes = random.Random(probe_seed)
    seen_actions: list = []
    for before, action in play(state, case.choice_seed):
        seen_actions.append(action)
        if probes.random() > 0.1:
            continue
        candidates = probes.sample(seen_actions, min(4, len(seen_actions)))
        candidates += [m for m in (_mangled(a, probes, parse) for a in candidates) if m is not None]
        for candidate in candidates:
            snapshot = fingerprint(before)
            if before.is_legal(candidate):
                before.clone().apply_action(candidate)
                continue
            reason = before.illegal_reason(candidate)
            assert isinstance(reason, str) and reason.strip()
            try:
                before.apply_action(candidate)
            except IllegalActionError as error:
                assert str(error) == reason
            else:
                raise AssertionError(f"{candidate} was rejected ({reason}) but applied")
            assert fingerprint(before) == snapshot, f"the rejected {candidate} changed the state"


class _ScreenLives:
    """Our own account of every screen's life from the rules, kept step by step beside the engine's.

    CHQ-23: a screen lands at its caller's Logistics Phase count L and is gone at the start of
    the caller's Logistics Phase L+1 (L+2 with ``smoke_extra_pulse``); before that only a failed
    supply check (CHQ-22) or a Command Failure whose mission the caller drops (CHQ-19) removes it.
    MET-19/MET-7: a laid screen ages once at the end of every period after the one it was laid in
    (from that one too with ``new_screens_age_at_period_end``) and is gone when its density
    schedule runs out; an element's screen stays until the start of its side's movement in the
    next period.
    """

    def __init__(self, state):
        self.ruleset = state.scenario.ruleset
        self.lives: dict = {}
        self.on_table = Counter()
        self.log_length = 0
        self.ended = Counter()

    def check(self, state, action) -> None:
        if state.is_terminal():
            return
        now = screens_on_table(state)
        for key in now:
            self.lives.setdefault(key, self._life(state, key))
        news = " ".join(state.log[self.log_length:]) if self.ruleset.name == "chq" else ""
        for key, life in self.lives.items():
            gone = self._life_is_over(state, key, life)
            if gone or (self.on_table[key] and not now[key] and self._removed_early(key, life, action, news)):
                assert not now[key], f"screen {key[:4]} outlived its life"
                if self.on_table[key]:
                    self.ended["on time" if gone else "early"] += 1
            else:
                assert now[key] >= self.on_table[key], f"screen {key[:4]} went before its life ended ({action})"
            if self.ruleset.name == "met" and now[key]:
                for screen in self._screens(state, key):
                    assert screen.age == self._age(state, life), f"screen {key[:4]} aged {screen.age}"
        self.on_table = now
        self.log_length = len(getattr(state, "log", ()))

    def _removed_early(self, key, life, action, news: str) -> bool:
        if self.ruleset.name != "chq":
            return False
        batteries = life[2]
        return (type(action).__name__ == "Drop" and action.battery in batteries) or f"{','.join(batteries)} out of supply" in news

    def _life_is_over(self, state, key, life) -> bool:
        if self.ruleset.name == "chq":
            side, expiry, _ = life
            return state.lp_count[side] >= expiry
        kind, laid, n, until = life
        if until is not None:
            move_stage = list(state.table.sides).index(until)
            return state.period > laid + 1 or (state.period == laid + 1 and state.stage >= move_stage)
        return self._age(state, life) >= n

    def _age(self, state, life) -> int:
        kind, laid, n, until = life
        if until is not None:
            return 0
        fresh = bool(self.ruleset.setting("new_screens_age_at_period_end"))
        return max(0, state.period - laid - (0 if fresh else 1))

    @staticmethod
    def _screens(state, key):
        return [ms.screen for ms in state.screens if (ms.kind, ms.owner, ms.side, ms.laid, ms.until_movement_of, ms.screen.polygon.wkb) == key]

    def _life(self, state, key):
        if self.ruleset.name == "chq":
            mission = state.missions[key[1]]
            extra = 1 if self.ruleset.setting("smoke_extra_pulse") else 0
            return mission.side, state.lp_count[mission.side] + 1 + extra, tuple(mission.batteries)
        kind, owner, side, laid, until, wkb = key
        return kind, laid, len(self._screens(state, key)[0].densities), until


@property_settings
@given(generated_scenarios())
def test_screens_end_exactly_when_their_life_ends(case):
    """CHQ-23, CHQ-22, MET-19, MET-7: a screen stays on the table for exactly its life, and then it is gone."""
    state = case.scenario.new_game(case.game_seed)
    lives = _ScreenLives(state)
    for _ in play(state, case.choice_seed, on_step=lives.check):
        pass


@property_settings
@given(generated_scenarios())
def test_same_seed_same_game_log(case):
    """Two games of one scenario with the same seeds play and log exactly the same."""
    logs = []
    for _ in range(2):
        state = case.scenario.new_game(case.game_seed)
        actions = [str(action) for _, action in play(state, case.choice_seed)]
        logs.append((actions, fingerprint(state), state.returns()))
    assert logs[0] == logs[1]
