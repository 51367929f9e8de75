"""Narration: orders and dice results as sentences a player reads at the table.

Every sentence quotes the notation (so a tabletop player can copy the order onto the
table) and adds what the order does in words, from the ruleset's own description of the
action (``state.describe_actions``), and why, from the player's plan. Narration never
fails a game: when a ruleset says nothing about an action, the notation alone is used.

Examples
--------
>>> from engine.scenario import load_scenario
>>> state = load_scenario("maps/met_calm_bocage.json").new_game(seed=3)
>>> action = state.legal_actions()[0]
>>> order_sentence(state, action).startswith("British")
True
"""

from __future__ import annotations

from fractions import Fraction
from typing import Hashable

__all__ = ["side_name", "order_sentence", "outcome_sentence", "turn_number", "turn_header", "probability_text"]


def side_name(state, side: str) -> str:
    """The scenario's name for ``side`` (its id when it has none)."""
    try:
        return state.scenario.side(side).name or side
    except (KeyError, AttributeError):
        return side


def _point(point) -> str:
    try:
        x, y = point
        return f"{float(x):g},{float(y):g}"
    except (TypeError, ValueError):
        return str(point)


def _names(actors) -> str:
    actors = list(actors or ())
    if not actors:
        return "its units"
    if len(actors) == 1:
        return actors[0]
    return ", ".join(actors[:-1]) + " and " + actors[-1]


def _subject(actors) -> str:
    """The order's actors as its clause's subject, with a space; nothing when the description
    names none, the ordering side being the sentence's subject then."""
    return f"{_names(actors)} " if actors else ""


def _what(info: dict) -> str:
    """What the order does, in words, from ``describe_actions``' facts about it."""
    kind = info.get("kind", "")
    who = _names(info.get("actors"))
    subject = _subject(info.get("actors"))
    if kind == "chain":
        return f"takes a dice chain of {info.get('dice', '?')} dice to activate its units"
    if kind == "group":
        return f"activates {who}"
    if kind == "move":
        phrase = f"moves {who} to {_point(info.get('end') or info.get('to'))}"
        if info.get("objective"):
            phrase += ", onto an objective"
        elif info.get("cover"):
            phrase += ", into cover"
        return phrase
    if kind == "fire":
        phrase = f"{subject}fires at {info.get('target', 'the enemy')}"
        harm = info.get("harm")
        if isinstance(harm, (int, float)) and harm > 0:
            phrase += f" (expected harm {harm:.2f})"
        return phrase
    if kind == "smoke":
        at = info.get("at")
        return f"{subject}lays smoke" + (f" at {_point(at)}" if at is not None else " close by")
    if kind == "artillery":
        at = info.get("at")
        return f"{subject}brings down artillery" + (f" on {_point(at)}" if at is not None else "")
    if kind == "hold":
        return f"{subject}holds"
    if kind == "reload":
        return f"{subject}reloads"
    if kind in ("end", "pass"):
        return "is done for now" if kind == "end" else "lets the moment pass"
    return ""


def order_sentence(state, action: Hashable, reason: str = "", side: str | None = None) -> str:
    """One or two sentences for ``action`` about to be ordered by ``side`` (default: the side to move)."""
    side = side or state.current_player()
    info: dict = {}
    try:
        info = state.describe_actions([action], detail=False)[0] or {}
    except Exception:  # narration must never stop a game
        info = {}
    what = _what(info)
    sentence = f"{side_name(state, side)} orders `{action}`" + (f": {what}." if what else ".")
    reason = " ".join(str(reason).split())
    if reason:
        sentence += f" Why: {reason.rstrip('.')}."
    return sentence


def probability_text(probability) -> str:
    """``1/6 (16.7%)`` for an exact probability, ``16.7%`` for a float."""
    if isinstance(probability, Fraction):
        if probability.denominator == 1:
            return f"{float(probability):.0%}"
        if probability.denominator <= 1000:
            return f"{probability} ({float(probability):.1%})"
        return f"{float(probability):.2%}" if probability < Fraction(1, 100) else f"{float(probability):.1%}"
    return f"{float(probability):.1%}"


def outcome_sentence(state, outcome: Hashable, by: str = "computer") -> str:
    """The sentence for a chance result, with the odds it had (``state`` is before the roll)."""
    probability = None
    try:
        probability = dict(state.chance_outcomes()).get(outcome)
    except Exception:
        probability = None
    odds = f" (it had a {probability_text(probability)} chance)" if probability is not None else ""
    verb = "The dice" if by == "computer" else "The table roll"
    return f"{verb}: {outcome}{odds}."


def turn_number(state) -> int | None:
    """The turn (CHQ) or period (MET) the game is in, whichever the state counts."""
    for name in ("turn", "period"):
        value = getattr(state, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def turn_header(state) -> str:
    """``=== Turn 2 === <the state's one-line summary>``."""
    number = turn_number(state)
    word = "Period" if getattr(state, "period", None) is not None and getattr(state, "turn", None) is None else "Turn"
    line = f"=== {word} {number} ===" if number is not None else "==="
    describe = getattr(state, "describe", None)
    if callable(describe):
        try:
            line += f" {describe()}"
        except Exception:
            pass
    return line
