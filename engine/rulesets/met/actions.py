"""MET orders and chance outcomes as frozen value objects that print and parse.

Notation (one order a line; ids are element, battery or blind ids; ``X,Y`` metres)::

    end                       finish this side's part of the phase
    move E X,Y                move element E in a straight line to (X, Y)
    hold E                    E stays where it is this movement phase
    reload E                  E reloads its dischargers: stationary, no fire this period (MET-9)
    discharge E FACE          smoke dischargers on a face: front, right, rear, left (MET-7)
    grenade E FACE            infantry smoke grenades beside a face (MET-12)
    launch E X,Y              2-inch mortar / launcher screen centred on (X, Y) (MET-10)
    fire E T                  direct fire at enemy element T (MET-18)
    thrower E [T]             AP grenade thrower (MET-11)
    dsmoke E X,Y              direct-fire smoke aimed at (X, Y) (MET-13)
    he B X,Y                  battery B fires HE at (X, Y) (MET-19)
    smoke B X,Y [BE|WP]       battery B lays smoke at (X, Y) (MET-1)

Chance outcomes print and parse too, so a player can type the dice rolled at the
table: ``hit`` / ``miss``, ``on-target`` / ``dev 40@90`` (metres @ bearing),
``ignites`` / ``no-fire``, ``morale -2``.

Examples
--------
>>> parse_action("move gb-sherman-1 500,180")
Move(element='gb-sherman-1', x=500.0, y=180.0)
>>> str(Mission("gb-25pdr", "smoke", 650, 900, "WP"))
'smoke gb-25pdr 650,900 WP'
>>> str(parse_action("dev 40@90"))
'dev 40@90'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from engine.errors import FireplanError

from .data import FACES
from .deviation import ON_TARGET, Deviation
from .fires import Ignition
from .resolution import HIT, MISS, MoraleLoss

__all__ = [
    "Action",
    "End",
    "Move",
    "Hold",
    "Reload",
    "Discharge",
    "Grenade",
    "Launch",
    "Fire",
    "Thrower",
    "DirectSmoke",
    "Mission",
    "parse_action",
    "format_number",
]


def format_number(value: float) -> str:
    """Shortest text that reads back as the same float: ``500`` for 500.0, ``500.25``."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def _point(x: float, y: float) -> str:
    return f"{format_number(x)},{format_number(y)}"


class Action:
    """Base class of MET orders (for ``isinstance``); each order is a frozen dataclass."""

    __slots__ = ()


def _coerce_point(self) -> None:
    x, y = float(self.x), float(self.y)
    if not (math.isfinite(x) and math.isfinite(y)):
        raise FireplanError(f"coordinates must be finite metres, got {self.x!r},{self.y!r}")
    object.__setattr__(self, "x", x)
    object.__setattr__(self, "y", y)


@dataclass(frozen=True, slots=True)
class End(Action):
    def __str__(self) -> str:
        return "end"


@dataclass(frozen=True, slots=True)
class Move(Action):
    element: str
    x: float
    y: float
    __post_init__ = _coerce_point

    @property
    def point(self) -> tuple[float, float]:
        return (self.x, self.y)

    def __str__(self) -> str:
        return f"move {self.element} {_point(self.x, self.y)}"


@dataclass(frozen=True, slots=True)
class Hold(Action):
    element: str

    def __str__(self) -> str:
        return f"hold {self.element}"


@dataclass(frozen=True, slots=True)
class Reload(Action):
    element: str

    def __str__(self) -> str:
        return f"reload {self.element}"


@dataclass(frozen=True, slots=True)
class Discharge(Action):
    element: str
    face: str = "front"

    def __str__(self) -> str:
        return f"discharge {self.element} {self.face}"


@dataclass(frozen=True, slots=True)
class Grenade(Action):
    element: str
    face: str = "front"

    def __str__(self) -> str:
        return f"grenade {self.element} {self.face}"


@dataclass(frozen=True, slots=True)
class Launch(Action):
    element: str
    x: float
    y: float
    __post_init__ = _coerce_point

    @property
    def point(self) -> tuple[float, float]:
        return (self.x, self.y)

    def __str__(self) -> str:
        return f"launch {self.element} {_point(self.x, self.y)}"


@dataclass(frozen=True, slots=True)
class Fire(Action):
    element: str
    target: str

    def __str__(self) -> str:
        return f"fire {self.element} {self.target}"


@dataclass(frozen=True, slots=True)
class Thrower(Action):
    element: str
    target: str | None = None

    def __str__(self) -> str:
        return f"thrower {self.element}" + (f" {self.target}" if self.target else "")


@dataclass(frozen=True, slots=True)
class DirectSmoke(Action):
    element: str
    x: float
    y: float
    __post_init__ = _coerce_point

    @property
    def point(self) -> tuple[float, float]:
        return (self.x, self.y)

    def __str__(self) -> str:
        return f"dsmoke {self.element} {_point(self.x, self.y)}"


@dataclass(frozen=True, slots=True)
class Mission(Action):
    """An artillery mission: ``kind`` "he" or "smoke"; ``smoke_type`` None means the battery's first."""

    element: str
    kind: str
    x: float
    y: float
    smoke_type: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("he", "smoke"):
            raise FireplanError(f"a mission is 'he' or 'smoke', got {self.kind!r}")
        if self.smoke_type is not None and (self.kind != "smoke" or self.smoke_type not in ("BE", "WP")):
            raise FireplanError(f"a smoke type (BE or WP) goes only with a smoke mission, got {self.smoke_type!r}")
        _coerce_point(self)

    @property
    def battery(self) -> str:
        return self.element

    @property
    def point(self) -> tuple[float, float]:
        return (self.x, self.y)

    def __str__(self) -> str:
        text = f"{self.kind} {self.element} {_point(self.x, self.y)}"
        return text + (f" {self.smoke_type}" if self.smoke_type else "")


# ---------------------------------------------------------------- parsing
_USAGE = {
    "end": "end",
    "move": "move ELEMENT X,Y",
    "hold": "hold ELEMENT",
    "reload": "reload ELEMENT",
    "discharge": "discharge ELEMENT FACE",
    "grenade": "grenade ELEMENT FACE",
    "launch": "launch ELEMENT X,Y",
    "fire": "fire ELEMENT TARGET",
    "thrower": "thrower ELEMENT [TARGET]",
    "dsmoke": "dsmoke ELEMENT X,Y",
    "he": "he BATTERY X,Y",
    "smoke": "smoke BATTERY X,Y [BE|WP]",
}


def _parse_point(text: str, order: str) -> tuple[float, float]:
    try:
        x_text, y_text = text.split(",")
        x, y = float(x_text), float(y_text)
    except ValueError:
        raise FireplanError(f"expected a point X,Y in metres in '{order}', got {text!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise FireplanError(f"expected finite metres in '{order}', got {text!r}")
    return x, y


def _known(state, name: str, order: str) -> str:
    if state is not None and not state.knows_id(name):
        raise FireplanError(f"no element, battery or blind named {name!r} (in '{order}')")
    return name


def parse_action(text: str, state=None):
    """Read one order or chance outcome in the notation above.

    With ``state``, ids must name elements, batteries or blinds of its scenario (whether
    the order is legal is ``state.illegal_reason``'s business). Mistakes raise
    ``FireplanError`` with the expected form.
    """
    if not isinstance(text, str):
        raise FireplanError(f"an order is text, got {type(text).__name__}")
    order = " ".join(text.split())
    words = order.split(" ") if order else []
    if not words:
        raise FireplanError("empty order: expected one of " + ", ".join(sorted(_USAGE)))
    verb, args = words[0].lower(), words[1:]
    outcome = _parse_outcome(verb, args, order)
    if outcome is not None:
        return outcome
    if verb not in _USAGE:
        raise FireplanError(f"unknown order {words[0]!r}: expected one of " + ", ".join(sorted(_USAGE)))
    usage = _USAGE[verb]
    n_required = len([w for w in usage.split(" ")[1:] if not w.startswith("[")])
    n_max = len(usage.split(" ")) - 1
    if not n_required <= len(args) <= n_max:
        raise FireplanError(f"expected '{usage}', got '{order}'")
    if verb == "end":
        return End()
    element = _known(state, args[0], order)
    if verb in ("hold", "reload"):
        return {"hold": Hold, "reload": Reload}[verb](element)
    if verb in ("discharge", "grenade"):
        face = args[1].lower()
        if face not in FACES:
            raise FireplanError(f"expected a face ({', '.join(FACES)}) in '{order}', got {args[1]!r}")
        return {"discharge": Discharge, "grenade": Grenade}[verb](element, face)
    if verb in ("move", "launch", "dsmoke"):
        x, y = _parse_point(args[1], order)
        return {"move": Move, "launch": Launch, "dsmoke": DirectSmoke}[verb](element, x, y)
    if verb == "fire":
        return Fire(element, _known(state, args[1], order))
    if verb == "thrower":
        return Thrower(element, _known(state, args[1], order) if len(args) > 1 else None)
    x, y = _parse_point(args[1], order)
    smoke_type = None
    if len(args) > 2:
        if verb != "smoke" or args[2].upper() not in ("BE", "WP"):
            raise FireplanError(f"expected '{usage}', got '{order}'")
        smoke_type = args[2].upper()
    return Mission(element, verb, x, y, smoke_type)


def _parse_outcome(verb: str, args: list[str], order: str):
    if verb in ("hit", "miss") and not args:
        return HIT if verb == "hit" else MISS
    if verb == "on-target" and not args:
        return ON_TARGET
    if verb in ("ignites", "no-fire") and not args:
        return Ignition(verb == "ignites")
    if verb == "dev":
        try:
            (spec,) = args
            distance, bearing = (float(v) for v in spec.split("@"))
        except ValueError:
            raise FireplanError(f"expected 'dev METRES@BEARING' (e.g. dev 40@90), got '{order}'") from None
        return Deviation(distance, bearing)
    if verb == "morale":
        try:
            (spec,) = args
            points = -int(spec)
        except ValueError:
            raise FireplanError(f"expected 'morale -N' (e.g. morale -2), got '{order}'") from None
        return MoraleLoss(points)
    return None
