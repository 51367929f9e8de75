"""The changing records of a MET game: elements, blinds and screens.

An :class:`Element` is one model on the table (or an off-table battery) with its
status and smoke kit; it is mutable and copied on ``clone``. Screens and fires are
frozen values.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from shapely.geometry import Polygon

from engine.geometry import Screen, footprint

from .dischargers import Kit, has_dischargers, has_grenades, has_launcher
from .resolution import Status

__all__ = ["Element", "BlindMarker", "MetScreen"]


@dataclass(slots=True)
class Element:
    """An element (or an off-table battery, ``position`` None) and what it did this period."""

    id: str
    side: str
    card: Mapping[str, Any]
    position: tuple[float, float] | None
    facing: float = 0.0
    blind: str | None = None  # the unrevealed blind hiding it
    status: Status = Status.OK
    acted: bool = False  # finished its movement this movement phase
    smoked: bool = False  # fired a smoke device at the start of this movement
    moved: bool = False  # moved this period
    path_cover: float | None = None  # share of this period's move in terrain cover
    fired: bool = False  # main weapon this period (direct fire or direct smoke)
    threw: bool = False  # AP grenade thrower this period
    ordered: bool = False  # battery: a mission ordered this period
    reloading: bool = False  # reloading dischargers this period (MET-9)
    hit: bool = False  # took a hit this period
    under_fire_period: int = 0  # last period in which it was targeted by direct fire
    dischargers: Kit | None = None
    launcher: Kit | None = None
    grenades: Kit | None = None
    _footprint: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_spec(cls, spec) -> "Element":
        card = spec.card
        return cls(
            id=spec.id,
            side=spec.side,
            card=card,
            position=None if spec.position is None else (float(spec.position[0]), float(spec.position[1])),
            facing=float(spec.facing),
            blind=spec.blind,
            dischargers=Kit.READY if has_dischargers(card) else None,
            launcher=Kit.READY if has_launcher(card) else None,
            grenades=Kit.READY if has_grenades(card) else None,
        )

    def copy(self) -> "Element":
        """A copy to change apart (``clone``), every field through the constructor: three times
        as fast as ``copy.copy``, and a search copies every element of thousands of states."""
        return Element(*_ELEMENT_FIELDS(self))

    # ---------------------------------------------------------------- facts
    @property
    def name(self) -> str:
        return self.card["name"]

    @property
    def on_table(self) -> bool:
        return self.position is not None

    @property
    def alive(self) -> bool:
        return self.status is not Status.DESTROYED

    @property
    def is_battery(self) -> bool:
        return self.position is None

    @property
    def armoured(self) -> bool:
        return bool(self.card.get("armoured"))

    @property
    def infantry(self) -> bool:
        return self.card.get("type") == "Infantry"

    @property
    def base(self) -> tuple[float, float]:
        width, depth = self.card.get("base", (10, 10))
        return (float(width) or 1.0, float(depth) or 1.0)

    @property
    def footprint(self) -> Polygon:
        key = (self.position, self.facing)
        if self._footprint is None or self._footprint[0] != key:
            width, depth = self.base
            self._footprint = (key, footprint(self.position, width, depth, self.facing))
        return self._footprint[1]

    @property
    def move_allowance(self) -> float:
        return float(self.card.get("move", 0))

    @property
    def range(self) -> float:
        return float(self.card.get("range", 0))

    def fn_against(self, target: "Element") -> int:
        """The card FN against ``target``'s kind (``fn_armoured`` / ``fn_soft`` where given)."""
        key = "fn_armoured" if target.armoured else "fn_soft"
        return int(self.card.get(key, self.card.get("fn", 0)))

    @property
    def can_act(self) -> bool:
        """Able to fire or move of its own will: not suppressed, neutralised or destroyed."""
        return self.status is Status.OK


_ELEMENT_FIELDS = operator.attrgetter(*(f.name for f in fields(Element)))


@dataclass(slots=True)
class BlindMarker:
    """A blind on the table: its owner knows whether it is a dummy; the enemy does not."""

    id: str
    owner: str
    position: tuple[float, float]
    dummy: bool

    def copy(self) -> "BlindMarker":
        return BlindMarker(self.id, self.owner, self.position, self.dummy)


@dataclass(frozen=True, slots=True)
class MetScreen:
    """A screen on the table and where it came from.

    ``kind``: "artillery", "discharger", "launcher", "grenade" or "direct". ``laid`` is the
    period it was laid. Screens with ``until_movement_of`` set (a side id) are full until
    the start of that side's movement phase in the next period (MET-7/10/12/13); the
    others follow their density schedule and age in step 4 of each period (MET-19).
    """

    screen: Screen
    kind: str
    owner: str
    side: str
    laid: int
    until_movement_of: str | None = None
    smoke_type: str | None = None

    def aged(self) -> "MetScreen":
        return MetScreen(self.screen.aged(), self.kind, self.owner, self.side, self.laid, self.until_movement_of, self.smoke_type)
