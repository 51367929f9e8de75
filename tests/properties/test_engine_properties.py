"""Property tests over generated scenarios and random legal play, both rulesets, through the contract only.

Scenarios are generated from each map by moving every unit, blind and
objective to a random point of the table, shortening the game and (MET)
changing the wind. Each property is checked along random legal play. The
example budget comes from the hypothesis profile (``HYPOTHESIS_PROFILE``,
``ci`` by default: a fixed, small budget so CI stays fast).
"""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import IllegalActionError
from engine.game import TERMINAL
from engine.scenario import parse_scenario
from engine.view import table_view
from tests.conftest import SCENARIO_FILES

BASES = {path.stem: json.loads(path.read_text()) for path in SCENARIO_FILES}
MAX_STEPS = 6_000


@st.composite
def scenarios(draw):
    """A valid scenario made from one of the maps with everything moved."""
    name = draw(st.sampled_from(sorted(BASES)))
    data = copy.deepcopy(BASES[name])
    width, depth = data["table"]["width"], data["table"]["depth"]
    coordinate = lambda: [draw(st.floats(0.05 * width, 0.95 * width)), draw(st.floats(0.05 * depth, 0.95 * depth))]
    blind_positions = {}
    for blind in data["blinds"]:
        blind["position"] = blind_positions[blind["id"]] = coordinate()
    for unit in data["units"]:
        if "position" in unit:
            unit["position"] = blind_positions.get(unit.get("blind"), None) or coordinate()
            unit["facing"] = draw(st.floats(0, 359.9))
    for objective in data["objectives"]:
        objective["position"] = coordinate()
    limits = data["limits"]
    key = "turns" if "turns" in limits else "periods"
    limits[key] = draw(st.integers(1, 2))
    if data.get("weather"):
        data["weather"]["wind"] = {"from": draw(st.floats(0, 359.9)), "knots": draw(st.floats(0, 40))}
        data["weather"]["rain"] = draw(st.booleans())
    for side in data["sides"]:
        if "command_dice" in side and side["command_dice"]:
            side["staff_orders"] = draw(st.integers(0, side["command_dice"]))
    return parse_scenario(json.dumps(data), source=f"generated from {name}")


def _hidden_enemy_ids(scenario, side):
    """Ids the side must not see at the start: enemy units under blinds."""
    return {u.id for u in scenario.units if u.side != side and u.blind}


def _play(state, rng, on_step):
    for step in range(MAX_STEPS):
        if state.is_terminal():
            return step
        on_step(state)
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("the game did not end")


PROPERTY_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@PROPERTY_SETTINGS
@given(scenario=scenarios(), seed=st.integers(0, 2**31 - 1))
def test_chance_outcomes_are_positive_and_sum_to_one(scenario, seed):
    def check(state):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert outcomes and all(Fraction(p) > 0 for _, p in outcomes)
            assert sum(Fraction(p) for _, p in outcomes) == 1
            assert len({o for o, _ in outcomes}) == len(outcomes)

    _play(scenario.new_game(seed=seed), random.Random(seed), check)


@PROPERTY_SETTINGS
@given(scenario=scenarios(), seed=st.integers(0, 2**31 - 1))
def test_game_ends_within_its_limit_and_returns_are_a_result(scenario, seed):
    state = scenario.new_game(seed=seed)
    _play(state, random.Random(seed), lambda s: None)
    assert state.current_player() == TERMINAL
    assert sorted(state.returns().values()) in ([-1.0, 1.0], [0.0, 0.0])


@PROPERTY_SETTINGS
@given(scenario=scenarios(), seed=st.integers(0, 2**31 - 1), at=st.integers(0, 400))
def test_clone_is_independent_of_the_original(scenario, seed, at):
    state = scenario.new_game(seed=seed)
    rng = random.Random(seed)
    for _ in range(at):
        if state.is_terminal():
            break
        state.apply_action(state.sample_chance() if state.is_chance_node() else rng.choice(state.legal_actions()))
    twin = state.clone()
    before = (twin.current_player(), [str(a) for a in twin.legal_actions()] if not twin.is_terminal() else [])
    _play(state, random.Random(seed + 1), lambda s: None)  # play the original on to the end
    assert (twin.current_player(), [str(a) for a in twin.legal_actions()] if not twin.is_terminal() else []) == before
    _play(twin, random.Random(seed + 2), lambda s: None)  # and the clone still plays to its own end


@PROPERTY_SETTINGS
@given(scenario=scenarios(), seed=st.integers(0, 2**31 - 1))
def test_observation_never_reveals_dummies_or_unspotted_units(scenario, seed):
    state = scenario.new_game(seed=seed)
    for side in scenario.sides:  # at the start the enemy's units under blinds are not on the side's picture
        ids = {piece.id for piece in table_view(state, side.id).pieces}
        assert ids.isdisjoint(_hidden_enemy_ids(scenario, side.id))
    steps = [0]

    def check(s):
        steps[0] += 1
        if steps[0] % 50 != 1:  # every fiftieth step: a view costs an observation per side
            return
        for side in scenario.sides:
            for piece in table_view(s, side.id).pieces:
                if piece.side != side.id:
                    assert piece.dummy is None, f"{side.id} sees that {piece.id} is a dummy"

    _play(state, random.Random(seed), check)


@PROPERTY_SETTINGS
@given(scenario=scenarios(), seed=st.integers(0, 2**31 - 1))
def test_illegal_actions_raise_and_leave_the_state_unchanged(scenario, seed):
    """Actions legal at other moments are offered at this one: whatever is_legal rejects must raise."""
    state = scenario.new_game(seed=seed)
    rng = random.Random(seed)
    seen: list = []
    checked = [0]

    def check(s):
        if s.is_chance_node():
            return
        legal = s.legal_actions()
        seen.extend(rng.sample(legal, min(3, len(legal))))
        for candidate in rng.sample(seen, min(4, len(seen))):
            if s.is_legal(candidate):
                continue
            before = [str(a) for a in s.legal_actions()]
            with pytest.raises(IllegalActionError):
                s.apply_action(candidate)
            assert [str(a) for a in s.legal_actions()] == before
            checked[0] += 1

    _play(state, rng, check)


@PROPERTY_SETTINGS
@given(scenario=scenarios(), seed=st.integers(0, 2**31 - 1))
def test_same_seed_same_game_log(scenario, seed):
    def log(s):
        history = []
        rng = random.Random(seed)
        while not s.is_terminal():
            action = s.sample_chance() if s.is_chance_node() else rng.choice(s.legal_actions())
            history.append(str(action))
            s.apply_action(action)
        return history, s.returns()

    assert log(scenario.new_game(seed=seed)) == log(scenario.new_game(seed=seed))
