"""Tiny CHQ scenarios built in code, and helpers that drive a state to a chosen situation."""

from __future__ import annotations

import json
from fractions import Fraction

from engine.rulesets.chq.actions import CommandRoll, parse_action
from engine.scenario import parse_scenario


def counts(*faces: int) -> tuple[int, ...]:
    """Command Dice faces -> the multiset counts of a CommandRoll."""
    out = [0] * 6
    for face in faces:
        out[face - 1] += 1
    return tuple(out)


def unit(uid, card, side, pos=None, facing=None, blind=None):
    u = {"id": uid, "card": card, "side": side}
    if pos is not None:
        u["position"] = list(pos)
        u["facing"] = facing if facing is not None else (0 if side == "us" else 180)
    if blind:
        u["blind"] = blind
    return u


def rect(x0, y0, x1, y1):
    return {"type": "Polygon", "coordinates": [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]]}


def feature(fid, kind, geometry, blocks, cover="none", **extra):
    width = extra.pop("width", None)
    f = {"type": "Feature", "id": fid, "properties": {"kind": kind, "blocks_sight": blocks, "cover": cover, **extra}, "geometry": geometry}
    if width is not None:
        f["width"] = width
    return f


def scenario(units, *, blinds=(), terrain=(), objectives=(), mission="meeting-engagement", turns=3, us=None, de=None, width=48, depth=36):
    sides = [
        {"id": "us", "name": "US", "nation": "USA", "edge": "south", "attacker": True, "command_dice": 5, "comms_dice": 4, "staff_orders": 3},
        {"id": "de", "name": "German", "nation": "Germany", "edge": "north", "command_dice": 5, "comms_dice": 4, "staff_orders": 2},
    ]
    sides[0].update(us or {})
    sides[1].update(de or {})
    data = {
        "format": "fireplan-scenario/1",
        "name": "test",
        "ruleset": "chq",
        "table": {"width": width, "depth": depth, "units": "in"},
        "sides": sides,
        "units": list(units),
        "blinds": list(blinds),
        "terrain": {"type": "FeatureCollection", "features": list(terrain)},
        "objectives": list(objectives),
        "limits": {"turns": turns},
        "mission": mission,
    }
    return parse_scenario(json.dumps(data))


def act(state, text: str):
    state.apply_action(parse_action(text, state))


def roll_command(state, us_faces, de_faces):
    """Apply both Command Dice rolls of a turn."""
    state.apply_action(CommandRoll("us", counts(*us_faces)))
    state.apply_action(CommandRoll("de", counts(*de_faces)))


def outcome_map(state) -> dict:
    outcomes = state.chance_outcomes()
    assert sum(p for _, p in outcomes) == 1
    return dict(outcomes)


def apply_outcome(state, predicate):
    """Apply the first chance outcome matching ``predicate`` (or equal to it)."""
    for outcome, _ in state.chance_outcomes():
        if (predicate(outcome) if callable(predicate) else outcome == predicate):
            state.apply_action(outcome)
            return outcome
    raise AssertionError(f"no outcome matches among {state.chance_outcomes()[:5]}")


def pulse(state, us_faces=(4, 4, 4, 3, 6), de_faces=(2, 2, 3, 3, 5), chain=None):
    """Start turn 1 with these dice (us takes the first pulse by default) and pick a chain."""
    roll_command(state, us_faces, de_faces)
    if chain:
        act(state, chain)
    return state


HALF = Fraction(1, 2)


def with_settings(sc, seed=1, **overrides):
    """A new game of ``sc`` under the CHQ settings with ``overrides`` (the other readings)."""
    import dataclasses
    from types import MappingProxyType

    from engine.rulesets.chq.facts import GameFacts
    from engine.rulesets.chq.game import ChqState

    rules = sc.ruleset
    settings = dict(rules.settings)
    for name, value in overrides.items():
        settings[name] = dataclasses.replace(settings[name], value=value)
    facts = GameFacts(dataclasses.replace(sc, ruleset=dataclasses.replace(rules, settings=MappingProxyType(settings))))
    return ChqState(facts, seed)
