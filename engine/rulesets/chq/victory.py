"""Army Morale, objectives and the result (CHQ-29).

Morale Points start at the scenario's value or ceil(units / 2) + Command Dice;
a dispersed unit costs its side D3; at 0 a side's morale collapses and it
loses at the end of that turn. Objectives are held by a side with an
unsuppressed unit on them and no enemy unit on them; a first capture gives
the objective's points, a later capture moves them between the sides. At the
turn limit the side with more Morale Points wins.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .actions import D3
from .facts import GameFacts

__all__ = ["initial_morale", "d3_outcomes", "objective_holder", "capture_points", "result", "scaled_score"]


def initial_morale(facts: GameFacts, side: str) -> int:
    """CHQ-29: the scenario's Morale Points, or ceil(units / 2) + Command Dice."""
    given = facts.sides[side].morale_points
    if given is not None:
        return int(given)
    count_batteries = facts.s("morale_counts_batteries")
    units = [u for u in facts.units.values() if u.side == side and (count_batteries or not u.battery)]
    return math.ceil(len(units) / 2) + int(facts.sides[side].command_dice)


def d3_outcomes() -> list[tuple[D3, Fraction]]:
    return [(D3(v), Fraction(1, 3)) for v in (1, 2, 3)]


def objective_holder(facts: GameFacts, objective, units_on) -> str | None:
    """The side holding ``objective``: ``units_on`` maps side -> list of (suppressed,) flags of
    its units on it. Held by a side with an unsuppressed unit there and no enemy unit there."""
    a, b = facts.side_ids
    on_a, on_b = units_on.get(a, []), units_on.get(b, [])
    if on_a and not on_b and any(not s for s in on_a):
        return a
    if on_b and not on_a and any(not s for s in on_b):
        return b
    return None


def capture_points(facts: GameFacts, objective) -> int:
    """Points a capture is worth (CHQ-29): the objective's points in the scenario, or the fixed
    capture_points when objective_points_from_scenario is false."""
    if facts.s("objective_points_from_scenario"):
        return int(objective.points)
    return int(facts.s("capture_points"))


def result(facts: GameFacts, morale: dict[str, int], collapsed: set[str]) -> dict[str, float]:
    """+1 / -1 / 0 per side: a collapsed side loses (both collapsed: a draw); otherwise more
    Morale Points wins."""
    a, b = facts.side_ids
    if collapsed:
        if len(collapsed) == 2:
            return {a: 0.0, b: 0.0}
        loser = next(iter(collapsed))
        return {loser: -1.0, facts.other(loser): 1.0}
    if morale[a] == morale[b]:
        return {a: 0.0, b: 0.0}
    winner = a if morale[a] > morale[b] else b
    return {winner: 1.0, facts.other(winner): -1.0}


def scaled_score(facts: GameFacts, morale: dict[str, int]) -> dict[str, float]:
    """(own - enemy Morale Points) / score_scale, clipped to [-1, 1]: the analysis score."""
    a, b = facts.side_ids
    scale = float(facts.s("score_scale"))
    diff = max(-1.0, min(1.0, (morale[a] - morale[b]) / scale))
    return {a: diff, b: -diff}
