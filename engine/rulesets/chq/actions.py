"""CHQ actions and chance outcomes: frozen values that print and parse in a short notation.

Decisions (what a side orders)::

    chain 4:2 6:1 w:1 so:1        use a dice chain: two 4s, a wild 6, a wild die from the enemy's 1s, a Staff Order
    group us-rifle-1,us-sherman-1 activate a command group (leader first) with one die of the chain
    move -> 30,20                 the current group moves toward 30,20;  move x2 -> 30,20  is a double move
    fire us-rifle-1 de-rifle-1    direct fire;  ... indirect  for indirect fire (CHQ-9)
    spot us-rifle-1 de-b1         a spotting roll at a Blind (CHQ-28)
    rally | unsuppress us-rifle-1 | end
    call us-bty-a @ 36,24 single regular [fo us-rifle-1]     on-call mission; two or more batteries = time-on-target
    smoke us-bty-a @ 36,24 bearing 90 [fo us-rifle-1]       smoke mission; the screen's long axis lies along the bearing
    adjust us-bty-a @ 30,24 [fo ...] | cancel us-bty-a      in the Logistics Phase
    keep us-bty-a | drop us-bty-a                            after a Command Failure
    supply us-bty-a +1                                        end-of-turn Supply Check with one Staff Order added
    barrage us-bty-a de-b1 | barrage us-bty-a smoke @ 36,24 bearing 90 | barrage us-bty-a hold
    opfire de-rifle-1 us-rifle-1 | pass                      opportunity fire (CHQ-31)

Chance outcomes print too (``dice us: 1,3,4,4,6``, ``comms passed``,
``deviates 6" bearing 90``, ``move dice 7``, ``D3 = 2``); fire outcomes are
:class:`~engine.rulesets.chq.fire.FireResult`.

>>> str(parse_action("move x2 -> 30,20"))
'move x2 -> 30,20'
>>> parse_action("chain 4:2 6:1").dice
3
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.errors import IllegalActionError

__all__ = [
    "Action",
    "Chain",
    "Group",
    "Move",
    "Fire",
    "Spot",
    "Rally",
    "Unsuppress",
    "End",
    "Call",
    "Smoke",
    "Adjust",
    "Cancel",
    "Keep",
    "Drop",
    "Supply",
    "Barrage",
    "OpFire",
    "Pass",
    "CommandRoll",
    "RollOff",
    "D3",
    "MoveRoll",
    "Comms",
    "Deviation",
    "Check",
    "parse_action",
    "point_text",
]

Point = tuple[float, float]


def _round(value: float) -> float:
    rounded = round(float(value), 3)
    return 0.0 if rounded == 0 else rounded


def _pt(point) -> Point:
    x, y = point
    return (_round(x), _round(y))


def _num(value: float) -> str:
    value = _round(value)
    return str(int(value)) if value == int(value) else repr(value)


def point_text(point: Point) -> str:
    return f"{_num(point[0])},{_num(point[1])}"


class Action:
    """Base of every CHQ decision and chance outcome (frozen, hashable, printable)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self}>"


# ---------------------------------------------------------------------------- decisions
@dataclass(frozen=True, slots=True, repr=False)
class Chain(Action):
    """A dice chain (CHQ-14): ``natural`` dice showing ``face``, plus wild 6s, wild dice given by an
    enemy Command Failure and Staff Orders used as wild dice (CHQ-15). ``face`` 6 is a chain of
    6s; ``face`` None is a chain of wild dice only."""

    face: int | None
    natural: int = 0
    sixes: int = 0
    wild: int = 0
    staff: int = 0

    @property
    def dice(self) -> int:
        return self.natural + self.sixes + self.wild + self.staff

    def __str__(self) -> str:
        parts = []
        if self.face is not None and self.natural:
            parts.append(f"{self.face}:{self.natural}")
        if self.sixes:
            parts.append(f"6:{self.sixes}")
        if self.wild:
            parts.append(f"w:{self.wild}")
        if self.staff:
            parts.append(f"so:{self.staff}")
        return "chain " + " ".join(parts)


@dataclass(frozen=True, slots=True, repr=False)
class Group(Action):
    """Activate a command group, its leader first (one die of the chain)."""

    units: tuple[str, ...]

    def __str__(self) -> str:
        return "group " + ",".join(self.units)


@dataclass(frozen=True, slots=True, repr=False)
class Move(Action):
    """The current group moves toward ``to``; ``fold`` dice of the chain give a k-fold move."""

    to: Point
    fold: int = 1

    def __post_init__(self):
        object.__setattr__(self, "to", _pt(self.to))

    def __str__(self) -> str:
        fold = f" x{self.fold}" if self.fold != 1 else ""
        return f"move{fold} -> {point_text(self.to)}"


@dataclass(frozen=True, slots=True, repr=False)
class Fire(Action):
    unit: str
    target: str
    indirect: bool = False

    def __str__(self) -> str:
        return f"fire {self.unit} {self.target}" + (" indirect" if self.indirect else "")


@dataclass(frozen=True, slots=True, repr=False)
class Spot(Action):
    unit: str
    blind: str

    def __str__(self) -> str:
        return f"spot {self.unit} {self.blind}"


@dataclass(frozen=True, slots=True, repr=False)
class Rally(Action):
    def __str__(self) -> str:
        return "rally"


@dataclass(frozen=True, slots=True, repr=False)
class Unsuppress(Action):
    unit: str

    def __str__(self) -> str:
        return f"unsuppress {self.unit}"


@dataclass(frozen=True, slots=True, repr=False)
class End(Action):
    def __str__(self) -> str:
        return "end"


@dataclass(frozen=True, slots=True, repr=False)
class Call(Action):
    """An on-call fire mission (CHQ-17); two or more batteries make a time-on-target (CHQ-24)."""

    batteries: tuple[str, ...]
    at: Point
    duration: str = "single"
    sheaf: str = "regular"
    fo: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "at", _pt(self.at))

    def __str__(self) -> str:
        fo = f" fo {self.fo}" if self.fo else ""
        return f"call {','.join(self.batteries)} @ {point_text(self.at)} {self.duration} {self.sheaf}{fo}"


@dataclass(frozen=True, slots=True, repr=False)
class Smoke(Action):
    """A smoke mission (CHQ-23): a 1" x 12" screen whose long axis lies along ``bearing``
    (taken modulo 180: a screen has no front, so 270 is printed as 90)."""

    battery: str
    at: Point
    bearing: float = 0.0
    fo: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "at", _pt(self.at))
        object.__setattr__(self, "bearing", _round(float(self.bearing) % 180.0))

    def __str__(self) -> str:
        fo = f" fo {self.fo}" if self.fo else ""
        return f"smoke {self.battery} @ {point_text(self.at)} bearing {_num(self.bearing)}{fo}"


@dataclass(frozen=True, slots=True, repr=False)
class Adjust(Action):
    battery: str
    at: Point
    fo: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "at", _pt(self.at))

    def __str__(self) -> str:
        fo = f" fo {self.fo}" if self.fo else ""
        return f"adjust {self.battery} @ {point_text(self.at)}{fo}"


@dataclass(frozen=True, slots=True, repr=False)
class Cancel(Action):
    battery: str

    def __str__(self) -> str:
        return f"cancel {self.battery}"


@dataclass(frozen=True, slots=True, repr=False)
class Keep(Action):
    battery: str

    def __str__(self) -> str:
        return f"keep {self.battery}"


@dataclass(frozen=True, slots=True, repr=False)
class Drop(Action):
    battery: str

    def __str__(self) -> str:
        return f"drop {self.battery}"


@dataclass(frozen=True, slots=True, repr=False)
class Supply(Action):
    battery: str
    staff: int = 0

    def __str__(self) -> str:
        return f"supply {self.battery} +{self.staff}"


@dataclass(frozen=True, slots=True, repr=False)
class Barrage(Action):
    """One battery's part of an Initial Barrage Round (CHQ-27): a Blind, smoke, or hold."""

    battery: str
    blind: str | None = None
    at: Point | None = None
    bearing: float = 0.0

    def __post_init__(self):
        if self.at is not None:
            object.__setattr__(self, "at", _pt(self.at))
            object.__setattr__(self, "bearing", _round(float(self.bearing) % 180.0))

    def __str__(self) -> str:
        if self.at is not None:
            return f"barrage {self.battery} smoke @ {point_text(self.at)} bearing {_num(self.bearing)}"
        return f"barrage {self.battery} {self.blind or 'hold'}"


@dataclass(frozen=True, slots=True, repr=False)
class OpFire(Action):
    unit: str
    target: str

    def __str__(self) -> str:
        return f"opfire {self.unit} {self.target}"


@dataclass(frozen=True, slots=True, repr=False)
class Pass(Action):
    def __str__(self) -> str:
        return "pass"


# ---------------------------------------------------------------------------- chance outcomes
@dataclass(frozen=True, slots=True, repr=False, order=True)
class CommandRoll(Action):
    """One side's Command Dice as a multiset: ``counts[f - 1]`` dice show face f (CHQ-13)."""

    side: str
    counts: tuple[int, int, int, int, int, int]

    def __str__(self) -> str:
        faces = [str(face) for face in range(1, 7) for _ in range(self.counts[face - 1])]
        return f"dice {self.side}: " + (",".join(faces) or "none")


@dataclass(frozen=True, slots=True, repr=False, order=True)
class RollOff(Action):
    winner: str

    def __str__(self) -> str:
        return f"roll-off: {self.winner}"


@dataclass(frozen=True, slots=True, repr=False, order=True)
class D3(Action):
    value: int

    def __str__(self) -> str:
        return f"D3 = {self.value}"


@dataclass(frozen=True, slots=True, repr=False, order=True)
class MoveRoll(Action):
    total: int

    def __str__(self) -> str:
        return f"move dice {self.total}"


@dataclass(frozen=True, slots=True, repr=False, order=True)
class Comms(Action):
    passed: bool

    def __str__(self) -> str:
        return "comms passed" if self.passed else "comms failed"


@dataclass(frozen=True, slots=True, repr=False, order=True)
class Deviation(Action):
    """The scatter die (CHQ-20): ``distance`` 0 is a Hit; otherwise the template moves that far."""

    bearing: float = 0.0
    distance: int = 0

    @property
    def offset(self) -> tuple[float, float]:
        from engine.geometry import bearing_vector

        if not self.distance:
            return (0.0, 0.0)
        dx, dy = bearing_vector(self.bearing)
        return (dx * self.distance, dy * self.distance)

    def __str__(self) -> str:
        return "on target" if not self.distance else f'deviates {self.distance}" bearing {_num(self.bearing)}'


@dataclass(frozen=True, slots=True, repr=False, order=True)
class Check(Action):
    """A pass/fail roll: a Supply Check, a Rally, a spotting roll."""

    what: str
    passed: bool

    def __str__(self) -> str:
        return f"{self.what} {'passed' if self.passed else 'failed'}"


# ---------------------------------------------------------------------------- parsing
_POINT = r"(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)"
_ID = r"[A-Za-z0-9][A-Za-z0-9_.-]*"
_FO = rf"(?:\s+fo\s+({_ID}))?"
_PATTERNS: list[tuple[re.Pattern, object]] = []


def _rule(pattern: str):
    def register(build):
        _PATTERNS.append((re.compile(rf"^\s*{pattern}\s*$", re.IGNORECASE), build))
        return build

    return register


@_rule(r"chain((?:\s+(?:[2-6]|w|so):\d+)+)")
def _chain(m):
    face, natural, sixes, wild, staff = None, 0, 0, 0, 0
    for item in m.group(1).split():
        key, count = item.split(":")
        count = int(count)
        if key == "w":
            wild += count
        elif key == "so":
            staff += count
        elif key == "6":
            sixes += count
        else:
            if face is not None and int(key) != face:
                raise IllegalActionError("a dice chain uses one number (plus wild 6s): give one face besides 6")
            face, natural = int(key), natural + count
    if face is None and sixes:
        face, natural, sixes = 6, sixes, 0
    return Chain(face, natural, sixes, wild, staff)


@_rule(rf"group\s+({_ID}(?:\s*,\s*{_ID})*)")
def _group(m):
    return Group(tuple(u.strip() for u in m.group(1).split(",")))


@_rule(rf"move(?:\s+x(\d+))?\s*->\s*{_POINT}")
def _move(m):
    return Move((float(m.group(2)), float(m.group(3))), int(m.group(1) or 1))


@_rule(rf"fire\s+({_ID})\s+({_ID})(\s+indirect)?")
def _fire(m):
    return Fire(m.group(1), m.group(2), bool(m.group(3)))


@_rule(rf"spot\s+({_ID})\s+({_ID})")
def _spot(m):
    return Spot(m.group(1), m.group(2))


@_rule(r"rally")
def _rally(m):
    return Rally()


@_rule(rf"unsuppress\s+({_ID})")
def _unsuppress(m):
    return Unsuppress(m.group(1))


@_rule(r"end")
def _end(m):
    return End()


@_rule(r"pass")
def _pass(m):
    return Pass()


@_rule(rf"call\s+({_ID}(?:\s*,\s*{_ID})*)\s+@\s*{_POINT}(?:\s+(single|continuous))?(?:\s+(regular|converged))?{_FO}")
def _call(m):
    return Call(
        tuple(b.strip() for b in m.group(1).split(",")),
        (float(m.group(2)), float(m.group(3))),
        (m.group(4) or "single").lower(),
        (m.group(5) or "regular").lower(),
        m.group(6),
    )


@_rule(rf"smoke\s+({_ID})\s+@\s*{_POINT}(?:\s+bearing\s+(-?\d+(?:\.\d+)?))?{_FO}")
def _smoke(m):
    return Smoke(m.group(1), (float(m.group(2)), float(m.group(3))), float(m.group(4) or 0), m.group(5))


@_rule(rf"adjust\s+({_ID})\s+@\s*{_POINT}{_FO}")
def _adjust(m):
    return Adjust(m.group(1), (float(m.group(2)), float(m.group(3))), m.group(4))


@_rule(rf"cancel\s+({_ID})")
def _cancel(m):
    return Cancel(m.group(1))


@_rule(rf"keep\s+({_ID})")
def _keep(m):
    return Keep(m.group(1))


@_rule(rf"drop\s+({_ID})")
def _drop(m):
    return Drop(m.group(1))


@_rule(rf"supply\s+({_ID})(?:\s+\+?(\d+))?")
def _supply(m):
    return Supply(m.group(1), int(m.group(2) or 0))


@_rule(rf"barrage\s+({_ID})\s+smoke\s+@\s*{_POINT}(?:\s+bearing\s+(-?\d+(?:\.\d+)?))?")
def _barrage_smoke(m):
    return Barrage(m.group(1), None, (float(m.group(2)), float(m.group(3))), float(m.group(4) or 0))


@_rule(rf"barrage\s+({_ID})\s+({_ID})")
def _barrage(m):
    target = m.group(2)
    return Barrage(m.group(1), None if target.lower() == "hold" else target)


@_rule(rf"opfire\s+({_ID})\s+({_ID})")
def _opfire(m):
    return OpFire(m.group(1), m.group(2))


def parse_action(text: str, state=None) -> Action:
    """Parse one order in the notation above; ``state`` (optional) checks the ids it names.

    Raises ``IllegalActionError`` with a sentence when the text is not an order,
    or (given a state) names a unit, blind or battery the scenario does not have.
    """
    if not isinstance(text, str):
        raise IllegalActionError(f"an order is text such as 'fire us-rifle-1 de-rifle-1', got {text!r}")
    for pattern, build in _PATTERNS:
        match = pattern.match(text)
        if match:
            action = build(match)
            if state is not None:
                _check_ids(action, state)
            return action
    word = text.strip().split(" ")[0] if text.strip() else ""
    raise IllegalActionError(
        f"cannot read the order {text.strip()!r}" + (f" ('{word}' needs different arguments)" if word else "")
        + "; orders look like 'group us-rifle-1', 'move -> 30,20', 'fire us-rifle-1 de-rifle-1', 'end'"
    )


def _check_ids(action, state) -> None:
    facts = state.facts
    known = set(facts.unit_ids) | set(facts.blind_ids)
    names = []
    for attribute in ("unit", "target", "blind", "battery", "fo"):
        value = getattr(action, attribute, None)
        if isinstance(value, str):
            names.append(value)
    for attribute in ("units", "batteries"):
        names.extend(getattr(action, attribute, ()) or ())
    for name in names:
        if name not in known:
            raise IllegalActionError(f"there is no unit, blind or battery called {name!r} in this scenario")
