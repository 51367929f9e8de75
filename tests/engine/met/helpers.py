"""Small MET scenarios built in code, and ways to drive a state to the moment a test needs."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from types import MappingProxyType

from engine.game import CHANCE
from engine.rulesets import Setting, load_ruleset
from engine.rulesets.met.actions import End
from engine.scenario import parse_scenario

RULES = load_ruleset("met")


def box(x0, y0, x1, y1):
    return {"type": "Polygon", "coordinates": [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]]}


def feature(fid, kind, geometry, blocks=True, cover="none", **properties):
    return {
        "type": "Feature",
        "id": fid,
        "properties": {"kind": kind, "blocks_sight": blocks, "cover": cover, **properties},
        "geometry": geometry,
    }


def unit(uid, card, side, position=None, facing=0, blind=None):
    data = {"id": uid, "card": card, "side": side}
    if position is not None:
        data["position"] = list(position)
        data["facing"] = facing
    if blind is not None:
        data["blind"] = blind
    return data


def scenario(units, *, terrain=(), blinds=(), objectives=(), periods=4, wind=(270, 10), rain=False,
             size=(1000, 1000), gb_attacks=True, morale=None):
    """A two-sided MET scenario: 'gb' on the south edge (side A when attacking), 'de' on the north."""
    sides = [
        {"id": "gb", "name": "British", "nation": "Commonwealth", "edge": "south", "attacker": gb_attacks},
        {"id": "de", "name": "German", "nation": "Germany", "edge": "north", "attacker": not gb_attacks},
    ]
    if morale is not None:
        for side, points in zip(sides, morale):
            side["morale_points"] = points
    data = {
        "format": "fireplan-scenario/1",
        "name": "test",
        "ruleset": "met",
        "table": {"width": size[0], "depth": size[1], "units": "m"},
        "sides": sides,
        "units": list(units),
        "blinds": list(blinds),
        "terrain": {"type": "FeatureCollection", "features": list(terrain)},
        "objectives": list(objectives),
        "limits": {"periods": periods},
        "weather": {"wind": {"from": wind[0], "knots": wind[1]}, "rain": rain},
    }
    return parse_scenario(json.dumps(data))


def game(units, seed=0, **options):
    return scenario(units, **options).new_game(seed)


def with_settings(**values):
    """The MET ruleset with some settings changed (for readings kept as settings)."""
    settings = dict(RULES.settings)
    for name, value in values.items():
        old = settings[name]
        settings[name] = Setting(name, value, old.source, old.rule, old.note)
    return dataclasses.replace(RULES, settings=MappingProxyType(settings))


def rescenario(sc, rules):
    """The same scenario played under other rules."""
    return dataclasses.replace(sc, ruleset=rules)


def end_until(state, phase, side=None, *, outcome=None, limit=500):
    """Apply ``end`` (and ``outcome`` at chance nodes: a callable picking from the outcomes) until
    it is ``side``'s decision in ``phase``."""
    for _ in range(limit):
        if state.is_terminal():
            raise AssertionError(f"the game ended before {phase} {side}")
        if state.current_player() == CHANCE:
            state.apply_action(pick(state, outcome))
            continue
        if state.phase == phase and (side is None or state.current_player() == side):
            return state
        state.apply_action(End())
    raise AssertionError("too many steps")


def pick(state, outcome=None):
    outcomes = [o for o, _ in state.chance_outcomes()]
    if outcome is None:
        return _miss_or_first(outcomes)
    return outcome(outcomes)


def _miss_or_first(outcomes):
    for o in outcomes:
        if str(o) in ("miss", "on-target", "no-fire", "morale -1"):
            return o
    return outcomes[0]


def resolve_chance(state, choose=None):
    """Resolve chance nodes (misses / on-target by default) until a decision or the end."""
    while state.current_player() == CHANCE:
        state.apply_action(pick(state, choose))
    return state


def outcome_table(state):
    return {str(o): p for o, p in state.chance_outcomes()}


def assert_distribution(pairs):
    total = Fraction(0)
    seen = set()
    for outcome, p in pairs:
        assert isinstance(p, Fraction) and p > 0
        assert outcome not in seen
        seen.add(outcome)
        total += p
    assert total == 1


def next_period(state, phase="move", side=None, *, outcome=None):
    """End phases until the next period's ``phase`` (for ``side``, default the first to act)."""
    period = state.period
    for _ in range(1000):
        if state.is_terminal():
            raise AssertionError("the game ended")
        if state.current_player() == CHANCE:
            state.apply_action(pick(state, outcome))
            continue
        if state.period > period and state.phase == phase and (side is None or state.current_player() == side):
            return state
        state.apply_action(End())
    raise AssertionError("too many steps")


def play_out(state, *, outcome=None):
    """Finish the game: ``end`` at every decision, ``outcome`` (default miss/on-target) at chance nodes."""
    for _ in range(10_000):
        if state.is_terminal():
            return state
        if state.current_player() == CHANCE:
            state.apply_action(pick(state, outcome))
        else:
            state.apply_action(End())
    raise AssertionError("too many steps")
