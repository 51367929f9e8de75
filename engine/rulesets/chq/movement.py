"""Movement (CHQ-16), forced back (CHQ-6) and the canonical move destinations.

A move is a chance node over the sum of its variable dice: a group moves at
its slowest unit's speed, a k-fold move adds k fixed parts and k times the
variable dice, and a suppressed unit moves only the variable part (CHQ-14).
A path that crosses difficult terrain halves the whole move (house).

>>> from engine.rulesets.chq.movement import move_allowance_parts
>>> move_allowance_parts([("Average", 6, 1)], fold=2, suppressed=False)
(12, 2)
"""

from __future__ import annotations

import math
from fractions import Fraction

from engine.dice import sum_of_dice

from .actions import MoveRoll
from .facts import GameFacts

__all__ = [
    "speed_of",
    "move_allowance_parts",
    "move_roll_outcomes",
    "move_vector",
    "path_points",
    "forced_back",
    "canonical_destinations",
]


def speed_of(facts: GameFacts, move: str) -> tuple[str, int, int]:
    """``(name, fixed inches, variable dice)`` of a movement class from the movement table."""
    row = facts.table("movement")[move]
    return (move, int(row["fixed"]), int(row["dice"]))


def move_allowance_parts(speeds, fold: int, suppressed: bool) -> tuple[int, int]:
    """Fixed inches and number of variable d6 of a group's move (CHQ-16): the slowest unit's
    speed, ``fold`` times; a suppressed mover keeps only the variable part (CHQ-14)."""
    _, fixed, dice = min(speeds, key=lambda s: (s[1] + 3.5 * s[2], s[1]))
    return (0 if suppressed else fixed * fold), dice * fold


def move_roll_outcomes(dice: int) -> list[tuple[MoveRoll, Fraction]]:
    """The chance node of a move's variable dice: their sum, exactly."""
    return [(MoveRoll(total), p) for total, p in sum_of_dice(dice).items()]


def move_vector(start, to, allowance: float) -> tuple[float, float]:
    """The displacement of a move from ``start`` toward ``to``, at most ``allowance`` long."""
    dx, dy = to[0] - start[0], to[1] - start[1]
    length = math.hypot(dx, dy)
    if length <= allowance or length == 0:
        return (dx, dy)
    return (dx * allowance / length, dy * allowance / length)


def path_points(start, end, count: int) -> list[tuple[float, float]]:
    """``count`` evenly spaced points from ``start`` to ``end`` (both included)."""
    if count <= 1:
        return [tuple(end)]
    return [
        (start[0] + (end[0] - start[0]) * i / (count - 1), start[1] + (end[1] - start[1]) * i / (count - 1))
        for i in range(count)
    ]


def forced_back(facts: GameFacts, side: str, position, inches: float) -> tuple[float, float]:
    """Where a unit of ``side`` ends after being Forced Back ``inches`` toward its own edge (CHQ-6);
    it stops at the table edge (setting forced_back_clip)."""
    ex, ey = facts.edge_vector(side)
    return facts.clip((position[0] + ex * inches, position[1] + ey * inches))


def canonical_destinations(facts: GameFacts, leader_pos, reach: float, enemies, covers) -> list[tuple[float, float]]:
    """The small set of destinations legal_actions offers a group: each objective, toward and away
    from the nearest enemy, the nearest cover, and along the table edge both ways. ``reach`` is
    how far the move could go; points are clipped to the table and deduplicated."""
    points = [tuple(objective.position) for objective in facts.objectives]
    x, y = leader_pos
    if enemies:
        nearest = min(enemies, key=lambda p: math.hypot(p[0] - x, p[1] - y))
        points.append(tuple(nearest))
        dx, dy = x - nearest[0], y - nearest[1]
        d = math.hypot(dx, dy) or 1.0
        points.append((x + dx / d * reach, y + dy / d * reach))
    if covers:
        points.append(min(covers, key=lambda p: math.hypot(p[0] - x, p[1] - y)))
    edge = facts.edge_vector(facts.side_ids[0])
    along = (abs(edge[1]), abs(edge[0]))  # parallel to the sides' table edges
    points.append((x + along[0] * reach, y + along[1] * reach))
    points.append((x - along[0] * reach, y - along[1] * reach))
    out = []
    for p in points:
        q = facts.clip((round(p[0], 1), round(p[1], 1)))
        if math.hypot(q[0] - x, q[1] - y) > 0.5 and q not in out:
            out.append(q)
    return out
