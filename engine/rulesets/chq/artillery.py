"""Direct Support artillery (CHQ-17 to CHQ-27): missions, deviation, templates, smoke, supply.

Missions are frozen values (:class:`Mission`) kept by the game state and
replaced, never changed, so a clone copies a dict of references. The dice
themselves are chance nodes built here: the scatter die (CHQ-20) over a fixed
discretisation of direction (setting ``deviation_directions``) times the
1D6+3" distance, and the Comms and Supply Checks from ``fire.py``.

>>> from engine.scenario import load_scenario
>>> facts = GameFacts(load_scenario("maps/chq_saint_aubin.json"))
>>> outcomes = deviation_outcomes(facts)
>>> len(outcomes), outcomes[0]
(49, (<Deviation on target>, Fraction(1, 3)))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from shapely.geometry import Polygon

from engine.dice import combined_fire_dice, sum_of_dice
from engine.geometry import FireTemplate, rectangle

from .actions import Check, Comms, Deviation
from .facts import GameFacts
from .fire import comms_odds, supply_odds

__all__ = [
    "Mission",
    "deviation_outcomes",
    "comms_outcomes",
    "supply_outcomes",
    "make_template",
    "smoke_polygon",
    "mission_dice",
    "barrage_rounds",
    "sheaf_name",
]


@dataclass(frozen=True, slots=True)
class Mission:
    """One artillery or smoke mission of one or more batteries.

    ``kind`` is "single", "continuous" or "smoke"; ``status`` is "comms" (awaiting its Comms
    Check), "delayed" (arrives in the caller's next Logistics Phase, CHQ-18), "active" (a
    continuous template on the table) or "screen" (a smoke screen on the table). ``aim`` is
    where it was placed; ``centre`` where it landed. A screen is removed at the start of the
    caller's Logistics Phase number ``expires_lp`` (CHQ-23).
    """

    id: int
    side: str
    batteries: tuple[str, ...]
    kind: str
    sheaf: str
    aim: tuple[float, float]
    bearing: float
    fo: str | None
    status: str
    centre: tuple[float, float] | None = None
    expires_lp: int | None = None
    fired_lp: int | None = None
    barrage: bool = False
    adjusted: bool = False

    @property
    def tot(self) -> bool:
        return len(self.batteries) > 1


def sheaf_name(sheaf: str) -> str:
    return sheaf.strip().capitalize()


@lru_cache(maxsize=16)
def _deviation(faces: int, hit: int, directions: int, fixed: int, dice: int) -> tuple:
    arrow = Fraction(faces - hit, faces)
    outcomes = [(Deviation(0.0, 0), Fraction(hit, faces))]
    for i in range(directions):
        bearing = round(360.0 * i / directions, 3)
        for total, p in sum_of_dice(dice).items():
            outcomes.append((Deviation(bearing, fixed + total), arrow * p / directions))
    return tuple(outcomes)


def deviation_outcomes(facts: GameFacts) -> list[tuple[Deviation, Fraction]]:
    """The scatter die (CHQ-20): Hit with 2/6; else one of ``deviation_directions`` bearings,
    equally likely, times 1D6+3 inches. Probabilities are exact and sum to 1."""
    fixed, dice = facts.s("deviation_distance")
    return list(
        _deviation(
            int(facts.s("deviation_faces")),
            int(facts.s("deviation_hit_faces")),
            int(facts.s("deviation_directions")),
            int(fixed),
            int(dice),
        )
    )


def comms_outcomes(response_dice: int, facts: GameFacts) -> list[tuple[Comms, Fraction]]:
    """The Comms Check (CHQ-18) as a chance node."""
    p = comms_odds(response_dice, rules=facts.rules)
    return [(o, q) for o, q in ((Comms(True), p), (Comms(False), 1 - p)) if q]


def supply_outcomes(supply_dice: int, staff: int, facts: GameFacts) -> list[tuple[Check, Fraction]]:
    """The end-of-turn Supply Check (CHQ-22) as a chance node: pass keeps the mission."""
    p = supply_odds(supply_dice, staff, rules=facts.rules)
    return [(o, q) for o, q in ((Check("supply", True), p), (Check("supply", False), 1 - p)) if q]


def make_template(facts: GameFacts, centre, sheaf: str, bearing: float = 0.0) -> FireTemplate:
    """The fire template of a sheaf (CHQ-21: Regular 6"x6", Converged 4"x4")."""
    width, depth = facts.table("templates")[sheaf_name(sheaf)]["size"]
    return FireTemplate(tuple(centre), width, depth, bearing, sheaf.lower())


def partial_bonus(facts: GameFacts, sheaf: str) -> bool:
    return bool(facts.table("templates")[sheaf_name(sheaf)]["partial_bonus"])


def smoke_polygon(facts: GameFacts, centre, bearing: float) -> Polygon:
    """A battery smoke screen (CHQ-23): 12" long along ``bearing`` by 1" wide, centred on the marker."""
    length, width = facts.s("smoke_screen_size")
    return rectangle(tuple(centre), width=width, depth=length, bearing=bearing)


def mission_dice(facts: GameFacts, batteries, armoured: bool) -> int:
    """Fire dice of a mission: one battery's FP (soft) or AT (armoured) dice; time-on-target and
    combined barrages add half of each further battery, rounded up (CHQ-24, CHQ-27)."""
    return combined_fire_dice([facts.units[b].dice_against(armoured, indirect=True) for b in batteries])


def barrage_rounds(facts: GameFacts, side: str) -> str:
    """Initial Barrage Rounds for ``side`` by mission type (CHQ-26): "0", "1", "2" or "D3"."""
    row = facts.table("missions")[facts.scenario.mission]
    return str(row[0] if facts.sides[side].attacker else row[1])
