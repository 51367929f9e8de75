"""Which piece makes for which objective: shared by the rulesets' action descriptions.

An "advance" is scored by how much nearer a move brings a piece to its goal. If every piece's
goal were simply the nearest objective, a side would crowd one objective and leave the others
to the enemy (a defender stacking on the church while the crossroads falls). Matching nearest
pairs first sends one piece to each objective and lets the rest choose freely.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

__all__ = ["match_objectives"]

Point = tuple[float, float]


def match_objectives(pieces: Sequence[tuple[Hashable, Point]], objectives: Sequence[tuple[Hashable, Point]]) -> dict:
    """Pieces matched to objectives, nearest pairs first: each objective goes to the nearest piece
    not yet matched, so one piece makes for each objective and the rest are unmatched.
    ``pieces`` and ``objectives`` are (id, position) pairs; ties go to the earlier listed.

    >>> match_objectives([("a", (0, 0)), ("b", (1, 0))], [("x", (0, 1)), ("y", (0, 5))])
    {'a': 'x', 'b': 'y'}
    """
    pairs = sorted(
        (math.dist(pos, where), i, j) for i, (_, pos) in enumerate(pieces) for j, (_, where) in enumerate(objectives)
    )
    matched: dict = {}
    taken: set[int] = set()
    for _, i, j in pairs:
        piece = pieces[i][0]
        if piece not in matched and j not in taken:
            matched[piece] = objectives[j][0]
            taken.add(j)
    return matched
