"""The steps a MET game takes without a player: chance nodes and bookkeeping, queued in order.

A state keeps a queue of these. While the head is a chance event the state is a
chance node: :meth:`ChanceEvent.outcomes` lists its distinct outcomes with exact
probabilities and :meth:`ChanceEvent.resolve` applies the one drawn or typed in.
Bookkeeping steps (:class:`Step`) run as soon as they reach the head. Events are
frozen and name elements by id, so a cloned state shares them safely.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.dice import Distribution

from .deviation import Deviation, deviation_distribution
from .direct_smoke import direct_smoke_deviation
from .fires import Ignition, ignition_outcomes
from .resolution import MoraleLoss, Roll, morale_loss_outcomes, roll_outcomes

__all__ = [
    "Event",
    "ChanceEvent",
    "Step",
    "FireCheck",
    "SmokeCheck",
    "SmokeDeviation",
    "ApplyFireResults",
    "MissionLanding",
    "ArtilleryHit",
    "IgnitionCheck",
    "MoraleCheck",
    "EndPeriod",
]


class Event:
    chance: ClassVar[bool] = False


class ChanceEvent(Event):
    chance = True

    def outcomes(self, state) -> Distribution:  # pragma: no cover - abstract
        raise NotImplementedError

    def resolve(self, state, outcome) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class Step(Event):
    def run(self, state) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


# ---------------------------------------------------------------- direct fire phase (MET-18, MET-11, MET-13)
@dataclass(frozen=True, slots=True)
class FireCheck(ChanceEvent):
    """One d10 of direct fire (or of the grenade thrower) at ``target`` against ``fn``."""

    firer: str
    target: str
    fn: int
    weapon: str = "fire"

    def outcomes(self, state) -> Distribution[Roll]:
        return roll_outcomes(self.fn)

    def resolve(self, state, outcome: Roll) -> None:
        state._record_fire(self, outcome)

    def __str__(self) -> str:
        return f"{self.firer} {self.weapon} at {self.target}: d10 <= {self.fn}"


@dataclass(frozen=True, slots=True)
class SmokeCheck(ChanceEvent):
    """MET-13's HEAT hit check of a direct-fire smoke round aimed at ``(x, y)``."""

    firer: str
    x: float
    y: float
    fn: int

    def outcomes(self, state) -> Distribution[Roll]:
        return roll_outcomes(self.fn)

    def resolve(self, state, outcome: Roll) -> None:
        state._direct_smoke_check(self, outcome)

    def __str__(self) -> str:
        return f"{self.firer} smoke round at {self.x:g},{self.y:g}: d10 <= {self.fn}"


@dataclass(frozen=True, slots=True)
class SmokeDeviation(ChanceEvent):
    """Where an apparent miss of direct-fire smoke lands: half deviation, +2 (MET-13)."""

    firer: str
    x: float
    y: float

    def outcomes(self, state) -> Distribution[Deviation]:
        return direct_smoke_deviation(state.rules)

    def resolve(self, state, outcome: Deviation) -> None:
        state._direct_smoke_lands(self.firer, (self.x, self.y), outcome)

    def __str__(self) -> str:
        return f"{self.firer} smoke round deviates (half, +2)"


@dataclass(frozen=True, slots=True)
class ApplyFireResults(Step):
    """MET-19 (2): the direct fire phase's results, applied together."""

    def run(self, state) -> None:
        state._apply_fire_results()


# ---------------------------------------------------------------- artillery phase 5.1.4 (MET-1, MET-2, MET-19, MET-20)
@dataclass(frozen=True, slots=True)
class MissionLanding(ChanceEvent):
    """MET-2 deviation of one mission from its point of aim."""

    battery: str
    kind: str
    x: float
    y: float
    smoke_type: str | None = None

    def outcomes(self, state) -> Distribution[Deviation]:
        return deviation_distribution(rules=state.rules)

    def resolve(self, state, outcome: Deviation) -> None:
        state._land_mission(self, outcome)

    def __str__(self) -> str:
        what = f"{self.smoke_type or ''} smoke".strip() if self.kind == "smoke" else "HE"
        return f"{self.battery} {what} at {self.x:g},{self.y:g}: deviation"


@dataclass(frozen=True, slots=True)
class ArtilleryHit(ChanceEvent):
    """HE against one element in the beaten zone: d10 <= the battery's FN (cover -2)."""

    battery: str
    target: str
    fn: int

    def outcomes(self, state) -> Distribution[Roll]:
        return roll_outcomes(self.fn)

    def resolve(self, state, outcome: Roll) -> None:
        state._artillery_hit(self, outcome)

    def __str__(self) -> str:
        return f"{self.battery} HE on {self.target}: d10 <= {self.fn}"


@dataclass(frozen=True, slots=True)
class IgnitionCheck(ChanceEvent):
    """MET-20: does HE on a building set it burning."""

    battery: str
    feature: str
    fn: int

    def outcomes(self, state) -> Distribution[Ignition]:
        return ignition_outcomes(self.fn, state.rules)

    def resolve(self, state, outcome: Ignition) -> None:
        state._ignite(self, outcome)

    def __str__(self) -> str:
        return f"{self.battery} HE on building {self.feature}: fire?"


# ---------------------------------------------------------------- victory (MET-21) and the end of a period
@dataclass(frozen=True, slots=True)
class MoraleCheck(ChanceEvent):
    """A destroyed element costs its side a D3 of Army Morale Points."""

    side: str
    element: str

    def outcomes(self, state) -> Distribution[MoraleLoss]:
        return morale_loss_outcomes(state.rules)

    def resolve(self, state, outcome: MoraleLoss) -> None:
        state._lose_morale(self.side, outcome.points)

    def __str__(self) -> str:
        return f"{self.side} loses morale for {self.element}"


@dataclass(frozen=True, slots=True)
class EndPeriod(Step):
    """MET-19 (4): screens and fires age; recovery, reloads, objectives, victory."""

    def run(self, state) -> None:
        state._end_period()
