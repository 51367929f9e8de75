"""What every fire solver returns: the chosen columns and smoke choices, and how it got them."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Solution"]


@dataclass(frozen=True, slots=True)
class Solution:
    """A choice of columns and smoke choices of a :class:`~agent.fires.columns.FireProblem`.

    ``objective`` and ``bound`` are in the solvers' integer units (``columns.SCALE`` per
    Disruption point); ``status`` is ``OPTIMAL`` (proven), ``FEASIBLE`` (time limit hit) or
    ``HEURISTIC`` (greedy).
    """

    columns: tuple[int, ...]
    smoke: tuple[int, ...]
    objective: int
    bound: int
    status: str
    method: str
    wall_time: float
    stats: tuple[tuple[str, float], ...] = ()

    @property
    def proven(self) -> bool:
        return self.status == "OPTIMAL"
