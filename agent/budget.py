"""Wall-clock budgets shared by the stages of one planning call.

A planner's ``time_limit`` is the whole call: building its model (columns, candidate
screens, sight lines) and solving it. A :class:`Deadline` is handed from stage to stage so
each can stop early, keeping what it has, and the solver gets what is left; with nothing
left the planner falls back to its greedy plan rather than fail.

Examples
--------
>>> deadline = Deadline.after(10.0)
>>> 9.0 < deadline.remaining <= 10.0 and not deadline.passed
True
>>> Deadline.after(None).remaining
inf
>>> Deadline.after(0.0).passed
True
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

__all__ = ["Deadline"]


@dataclass(frozen=True, slots=True)
class Deadline:
    """A moment on ``time.perf_counter``'s clock (``math.inf``: no limit)."""

    at: float

    @classmethod
    def after(cls, seconds: float | None) -> "Deadline":
        """The moment ``seconds`` from now; ``None`` never comes."""
        return cls(math.inf if seconds is None else time.perf_counter() + max(0.0, float(seconds)))

    @property
    def remaining(self) -> float:
        """Seconds left (0 once passed)."""
        return max(0.0, self.at - time.perf_counter())

    @property
    def passed(self) -> bool:
        return time.perf_counter() >= self.at

    def share(self, fraction: float) -> "Deadline":
        """An earlier deadline: ``fraction`` of the time left, for one stage of the work."""
        if math.isinf(self.at):
            return self
        return Deadline(time.perf_counter() + fraction * self.remaining)
