"""The mutable parts of a CHQ game state, kept small so that ``clone()`` is cheap.

Units and pulses are mutable slotted records copied field by field; missions,
blinds, pending fires and agenda entries are frozen values shared by clones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["UnitState", "BlindState", "Pulse", "MoveContext", "Window", "BarrageRound", "Entry"]


@dataclass(slots=True)
class UnitState:
    """Where a unit is and what it carries. ``pos`` is None off table (batteries) or once dispersed."""

    pos: tuple[float, float] | None
    facing: float
    hidden: bool = False
    disruption: int = 0
    suppressed: bool = False
    fire_marker: bool = False
    dispersed: bool = False

    def copy(self) -> "UnitState":
        return UnitState(self.pos, self.facing, self.hidden, self.disruption, self.suppressed, self.fire_marker, self.dispersed)


@dataclass(frozen=True, slots=True)
class BlindState:
    pos: tuple[float, float]
    alive: bool = True


@dataclass(slots=True)
class Pulse:
    """One side's pulse in progress: the chain's unspent dice and who has acted (CHQ-14)."""

    side: str
    chain_face: int | None = None
    dice_left: int = 0
    activated: set = field(default_factory=set)
    fired: set = field(default_factory=set)
    folds: dict = field(default_factory=dict)
    group: tuple[str, ...] | None = None
    group_moved: bool = False
    group_rallied: bool = False
    group_fired: bool = False
    chosen: bool = False

    def copy(self) -> "Pulse":
        return Pulse(
            self.side,
            self.chain_face,
            self.dice_left,
            set(self.activated),
            set(self.fired),
            dict(self.folds),
            self.group,
            self.group_moved,
            self.group_rallied,
            self.group_fired,
            self.chosen,
        )


@dataclass(frozen=True, slots=True)
class MoveContext:
    """A group's move after its dice: per piece its start, end and path points (CHQ-31 halts)."""

    pieces: tuple[str, ...]
    units: tuple[str | None, ...]
    starts: tuple[tuple[float, float], ...]
    ends: tuple[tuple[float, float], ...]
    paths: tuple[tuple[tuple[float, float], ...], ...]
    facing: float
    halted: tuple[int | None, ...]
    done: tuple[bool, ...]


@dataclass(frozen=True, slots=True)
class Window:
    """An opportunity-fire window (CHQ-31) for ``side``: against a move or a fire."""

    side: str
    trigger: str  # "move" or "fire"
    targets: tuple[str, ...]
    used: frozenset[str] = frozenset()
    declared: tuple = ()


@dataclass(frozen=True, slots=True)
class BarrageRound:
    """An Initial Barrage Round being allocated (CHQ-27)."""

    side: str
    number: int
    rounds: int
    assigned: tuple = ()


@dataclass(frozen=True, slots=True)
class Entry:
    """One item of the agenda: a ``roll`` (chance node), a ``decide`` (a side's decision) or a
    ``step`` (internal bookkeeping run at once)."""

    what: str
    kind: str
    payload: object = None
