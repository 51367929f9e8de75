"""The MET game: ``new_game(scenario, seed)`` and :class:`MetState`, the MET-19 period sequence.

A period (MET-19, house sequence):

1. **Movement**, side A (the attacker, setting ``first_mover``) then side B. A side orders
   its elements one decision at a time and finishes with ``end``; each element may first
   fire one smoke device (dischargers, launcher / 2-inch mortar, grenades: MET-7 .. 12),
   then ``move``, ``hold`` or ``reload`` (MET-9). Screens an element laid in the previous
   period go at the start of its side's movement; empty launchers of elements in cover
   are ready again (MET-10). After both sides have moved, blinds in sight of the enemy
   are revealed (dummies removed).
2. **Direct fire**, both sides at once: A declares, B declares (B does not see A's
   declarations), then every fire is one chance node (hit or miss, MET-18) and the
   results are applied together; direct-fire smoke (MET-13) and the AP grenade thrower
   (MET-11) fire here too.
3. **Artillery phase 5.1.4**: A orders its batteries, then B; each mission deviates
   (MET-2, one chance node) and lands: HE rolls d10 at or under the battery's FN against
   every element in the beaten zone and may set buildings burning (MET-20); smoke lays
   its screen with the wind (MET-1 .. 6).
4. **Ageing**: screens and fires age one period (a screen laid in this period's step 3
   keeps its first density through the next period, setting
   ``new_screens_age_at_period_end``); suppressed elements that were not hit recover one
   step; reloads finish; objectives change hands; victory (MET-21).

Dice are chance nodes only: while the queue of pending events (:mod:`.events`) has a
chance event at its head, ``current_player()`` is ``CHANCE``.

The planner hooks (``threat``, ``smoke_options``) are described on :class:`MetState`.

Examples
--------
>>> from engine.scenario import load_scenario
>>> state = load_scenario("maps/met_le_mesnil.json").new_game(seed=1)
>>> state.current_player(), state.period, state.phase
('gb', 1, 'move')
>>> str(state.legal_actions()[-1])
'end'
"""

from __future__ import annotations

import copy
import functools
import math
from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from typing import Collection, Hashable

import numpy as np
import shapely
import shapely.affinity
import shapely.ops
from shapely.geometry import Polygon

from engine.game import CHANCE, TERMINAL, GameState, copy_generator
from engine.geometry import Density, Screen, bearing_between, rectangle
from engine.options import SmokeOption
from engine.sight import SightStatus

from . import events as ev
from . import hooks
from .hooks import PHASES
from .actions import (
    DirectSmoke,
    Discharge,
    End,
    Fire,
    Grenade,
    Hold,
    Launch,
    Mission,
    Move,
    Reload,
    Thrower,
)
from .data import EPS
from .deviation import ON_TARGET, Deviation
from .direct_smoke import direct_smoke_densities, direct_smoke_fn, direct_smoke_polygon
from .dischargers import (
    Kit,
    allowed_faces,
    discharger_screen,
    grenade_screen,
    has_thrower,
    launcher_distance_problem,
    launcher_name,
    launcher_screen,
)
from .elements import BlindMarker, Element, MetScreen
from .fires import Fire as Burning
from .fires import fire_fn, fire_screen
from .fires import Ignition
from .resolution import MoraleLoss, Roll, Status, after_hits, fire_number
from .sightlines import cover_mask, met_sight, path_cover_fraction
from .smoke import WindBand, artillery_smoke, wind_band

__all__ = ["new_game", "MetState", "MetTable", "PHASES"]

_EDGE_BEARING = {"south": 0.0, "west": 90.0, "north": 180.0, "east": 270.0}
#: When at most this share of the pieces moved since the last sight picture (under the same
#: smoke), only their rows are drawn again (a third before; the share changes no code, only
#: which redraws are partial; bench_met_leaf times it with the rest).
_REDRAW_SHARE = 0.5


@functools.lru_cache(maxsize=4096)
def _dummy_base(position: tuple[float, float]) -> Polygon:
    """The 10 m square a dummy blind is seen by; the same few positions come back at every
    picture, so each is built once."""
    return rectangle(position, 10.0, 10.0)


def new_game(scenario, seed: int | None = 0) -> "MetState":
    """A fresh MET game of ``scenario`` (called by ``Scenario.new_game``)."""
    return MetState(scenario, seed)


# ============================================================================ fixed facts
@dataclass(frozen=True, eq=False)
class MetTable:
    """What a scenario fixes for the whole game, derived once and shared by clones."""

    scenario: object
    rules: object
    width: float
    depth: float
    sides: tuple[str, str]  # (A, B): A moves first
    line_of_fire: dict
    own_edge: dict
    blocking: tuple[Polygon, ...]
    cover: tuple[Polygon, ...]
    difficult: tuple[Polygon, ...]
    buildings: tuple[Polygon, ...]
    features: dict
    grid: tuple[tuple[float, float], ...]
    difficult_union: object
    buildings_union: object
    cover_union: object  # None: no terrain cover
    wind_from: float
    wind_knots: float
    rain: bool

    @classmethod
    def build(cls, scenario) -> "MetTable":
        rules = scenario.ruleset
        attackers = [side.id for side in scenario.sides if side.attacker]
        first = scenario.sides[0].id
        if rules.setting("first_mover") == "attacker" and attackers:
            first = attackers[0]
        second = scenario.other_side(first).id
        line_of_fire = {}
        for side in scenario.sides:
            line_of_fire[side.id] = _EDGE_BEARING[side.edge] if rules.setting("line_of_fire_from_edge") else 0.0
        spacing = float(rules.setting("grid_spacing"))
        xs = np.arange(spacing, scenario.width, spacing)
        ys = np.arange(spacing, scenario.depth, spacing)
        grid = tuple((float(x), float(y)) for y in ys for x in xs)
        weather = scenario.weather
        difficult = tuple(f.geometry for f in scenario.terrain if f.difficult)
        buildings = tuple(f.geometry for f in scenario.terrain if f.kind == "buildings")
        cover = tuple(f.geometry for f in scenario.terrain if f.cover != "none")
        difficult_union = shapely.union_all(list(difficult)) if difficult else None
        buildings_union = shapely.union_all(list(buildings)) if buildings else None
        cover_union = shapely.union_all(list(cover)) if cover else None
        for geometry in (difficult_union, buildings_union, cover_union):
            if geometry is not None:
                shapely.prepare(geometry)
        return cls(
            scenario=scenario,
            rules=rules,
            width=float(scenario.width),
            depth=float(scenario.depth),
            sides=(first, second),
            line_of_fire=line_of_fire,
            own_edge={side.id: side.edge for side in scenario.sides},
            blocking=tuple(f.geometry for f in scenario.terrain if f.blocks_sight),
            cover=cover,
            difficult=difficult,
            buildings=buildings,
            features={f.id: f for f in scenario.terrain},
            grid=grid,
            difficult_union=difficult_union,
            cover_union=cover_union,
            buildings_union=buildings_union,
            wind_from=float(weather.wind_from) if weather else 0.0,
            wind_knots=float(weather.wind_knots) if weather else 0.0,
            rain=bool(weather.rain) if weather else False,
        )

    def on_table(self, x: float, y: float) -> bool:
        return -EPS <= x <= self.width + EPS and -EPS <= y <= self.depth + EPS

    def other(self, side: str) -> str:
        return self.sides[1] if side == self.sides[0] else self.sides[0]


@dataclass(frozen=True, eq=False)
class _Picture:
    """Sight among the elements on the table (and dummy blinds) at one moment."""

    rows: dict  # id -> row (elements and dummy blinds)
    points: np.ndarray
    status: np.ndarray
    pieces: tuple = ()  # per row, what its sight depends on (position, facing, base)
    smoke: int = -1  # the smoke version it was drawn under

    def sees(self, a: str, b: str) -> int:
        return int(self.status[self.rows[a], self.rows[b]])


# ============================================================================ the state
class MetState(GameState):
    """One MET game in progress (the period sequence is in the module docstring).

    The game-state contract of :class:`engine.game.GameState`, plus:

    Planner hooks
    -------------
    threat(firer_id, target_id) -> float
        The exact probability that the firer's fire hits the target now (:meth:`exact_threat`
        gives the Fraction). An element: d10 against its card FN with MET-18's modifiers
        (partial smoke on the line -2, target in cover -2), when it may fire (not suppressed,
        neutralised or destroyed), the target is a located enemy within range and the line is not
        blocked; otherwise 0. A battery: the probability that an HE mission aimed at the
        target's centre lands with the target in its beaten zone (the exact MET-2 deviation
        outcomes) times its d10 against the battery's FN (cover -2).
    smoke_options(side, phase=None) -> list[SmokeOption]
        The screens ``side`` may lay in ``phase`` ("move", "fire" or "artillery"; default the
        current phase), on the table as it is now: battery smoke at every point of
        :meth:`aim_points` with the exact deviation outcomes (``deviation``), dischargers,
        launchers / 2-inch mortars and grenades of elements that may still use them (MET-7 ..
        12), direct-fire smoke (MET-13, its deviation composed with the HEAT check).
        ``screens[t]`` are the option's screens ``t`` periods from now, ``t = 0`` being the
        rest of this period; ``actions`` are legal in that phase.

    known_pieces(side) -> tuple[dict, ...]
        The pieces on the table as ``observation(side)`` shows them (a blind is a blind).
    sight_between(side, observers, targets, *, screens=(), fo=False, threat=True) -> dict
        Sight, screens crossed, FN modifier and exact threat between any pieces ``side`` knows
        of (or pieces standing elsewhere, or points), with hypothetical screens, in bulk and
        without reading what ``side`` may not know (see ``hooks.sight_between``).

    Other queries: :meth:`sight`, :meth:`in_cover`, :meth:`threatened` (MET-8),
    :meth:`aim_points`, :meth:`screens_now`, :meth:`battery_smoke`, :meth:`winner`,
    :meth:`point_difference`; ``history`` narrates every order and roll.

    Phases in which the side to act has nothing to order but ``end`` are skipped; a side
    that has ordered every element it can moves the game on by itself.
    """

    def __init__(self, scenario, seed: int | None = 0):
        super().__init__(seed)
        self.table = MetTable.build(scenario)
        self.scenario = scenario
        self.rules = scenario.ruleset
        self.period = 1
        self.stage = 0
        self.over = False
        self.elements: dict[str, Element] = {spec.id: Element.from_spec(spec) for spec in scenario.units}
        self.blinds: dict[str, BlindMarker] = {
            blind.id: BlindMarker(blind.id, blind.owner, tuple(map(float, blind.position)), blind.dummy)
            for blind in scenario.blinds
        }
        for element in self.elements.values():  # a real blind marks where its element is
            if element.blind in self.blinds and element.on_table:
                self.blinds[element.blind].position = element.position
        self.screens: list[MetScreen] = []
        self.fires: dict[str, tuple[Burning, int]] = {
            f.id: (Burning(f.id, 0), 0) for f in scenario.terrain if f.burning
        }
        self.burnt_out: set[str] = set()
        self.morale: dict[str, int] = {side.id: self._starting_morale(side) for side in scenario.sides}
        self.starting_morale = dict(self.morale)
        self.holders: dict[str, str | None] = {o.id: None for o in scenario.objectives}
        self.orders: list[tuple[str, object]] = []
        self.queue: deque = deque()
        self.history: list[str] = []
        self._hits: dict[str, int] = {}
        self._landed_smoke: list[tuple[str, tuple[float, float], Deviation]] = []
        self._pos_version = 0
        self._smoke_version = 0
        self._picture_cache: tuple | None = None
        self._cover_cache: tuple | None = None
        self._screens_cache: tuple | None = None
        self._candidates: dict = {}
        self._threat_cache: tuple | None = None
        self._legal_cache: tuple | None = None
        self._version = 0
        self._begin_stage()
        self._advance()

    def _starting_morale(self, side) -> int:
        if side.morale_points is not None:
            return int(side.morale_points)
        units = [u for u in self.scenario.units_of(side.id) if self.rules.setting("morale_counts_batteries") or not u.off_table]
        return math.ceil(len(units) / 2) + int(side.command_dice)

    # ------------------------------------------------------------------ contract
    def current_player(self) -> str:
        if self.over:
            return TERMINAL
        if self.queue:
            return CHANCE
        return self.side_to_act

    @property
    def side_to_act(self) -> str:
        """The side whose part of the phase it is (also while a chance node resolves)."""
        return self.table.sides[self.stage % 2]

    @property
    def phase(self) -> str:
        """``"move"``, ``"fire"`` or ``"artillery"``."""
        return PHASES[self.stage // 2]

    @property
    def periods(self) -> int:
        return int(self.scenario.periods)

    def knows_id(self, name: str) -> bool:
        return name in self.elements or name in self._all_blind_ids()

    def _all_blind_ids(self) -> set[str]:
        return {blind.id for blind in self.scenario.blinds}

    def chance_outcomes(self) -> list[tuple[Hashable, Fraction]]:
        if not self.queue or not self.queue[0].chance:
            return []
        return self.queue[0].outcomes(self).chance_outcomes()

    def pending_event(self):
        """The chance event the state is waiting on, or None (for narration)."""
        return self.queue[0] if self.queue and self.queue[0].chance else None

    def legal_actions(self) -> list[Hashable]:
        if self.over:
            return []
        if self.queue:
            return [outcome for outcome, _ in self.chance_outcomes()]
        if self._legal_cache is not None and self._legal_cache[0] == self._version:
            return list(self._legal_cache[1])
        side = self.side_to_act
        if self.phase == "move":
            actions = self._move_actions(side)
        elif self.phase == "fire":
            actions = self._fire_actions(side)
        else:
            actions = self._artillery_actions(side)
        actions = list(dict.fromkeys(actions))
        actions.append(End())
        self._legal_cache = (self._version, tuple(actions))
        return actions

    def illegal_reason(self, action: Hashable) -> str | None:
        if self.over:
            return "the game is over"
        if self.queue:
            outcomes = self.queue[0].outcomes(self)
            if action in outcomes:
                return None
            shown = ", ".join(str(o) for o in list(outcomes)[:6]) + (", ..." if len(outcomes) > 6 else "")
            return f"waiting for the dice ({self.queue[0]}): {action} is not one of its outcomes ({shown})"
        if isinstance(action, End):
            return None
        side = self.side_to_act
        kind = type(action)
        if kind in (Move, Hold, Reload, Discharge, Grenade, Launch):
            if self.phase != "move":
                return f"'{action}' is a movement order, but this is the {self.phase} phase"
            return self._move_problem(side, action)
        if kind in (Fire, DirectSmoke, Thrower):
            if self.phase != "fire":
                return f"'{action}' is a direct fire order, but this is the {self.phase} phase"
            return self._fire_problem(side, action)
        if kind is Mission:
            if self.phase != "artillery":
                return f"'{action}' is an artillery order (phase 5.1.4), but this is the {self.phase} phase"
            return self._mission_problem(side, action)
        if isinstance(action, (Deviation, Roll, Ignition, MoraleLoss)):
            return f"'{action}' is a dice result, but no dice are being rolled: it is side {side}'s {self.phase} order"
        return f"{action!r} is not a MET order"

    def _apply(self, action: Hashable) -> None:
        self._version += 1
        if self.queue:
            event = self.queue.popleft()
            self.history.append(f"{event} -> {action}")
            event.resolve(self, action)
        else:
            self.history.append(f"{self.side_to_act}: {action}")
            self._apply_order(action)
        self._advance()

    def clone(self) -> "MetState":
        other = MetState.__new__(MetState)  # no __init__: it would seed a generator only to drop it
        other.rng = copy_generator(self.rng)
        for name, value in self.__dict__.items():
            if name == "rng":
                continue
            if name == "elements":
                value = {key: element.copy() for key, element in value.items()}
            elif name == "blinds":
                value = {key: blind.copy() for key, blind in value.items()}
            elif isinstance(value, (list, dict, set, deque)):
                value = copy.copy(value)
            other.__dict__[name] = value
        return other

    def observation(self, side: str):
        from .observation import observe

        return observe(self, side)

    def returns(self) -> dict[str, float]:
        a, b = self.table.sides
        if not self.over:
            return {a: 0.0, b: 0.0}
        winner = self.winner()
        if winner is None:
            return {a: 0.0, b: 0.0}
        return {winner: 1.0, self.table.other(winner): -1.0}

    def winner(self) -> str | None:
        """The winning side at the end (None: a draw, or the game goes on)."""
        if not self.over:
            return None
        a, b = self.table.sides
        collapsed = [s for s in (a, b) if self.morale[s] <= 0]
        if len(collapsed) == 1:
            return self.table.other(collapsed[0])
        if collapsed:
            return None
        if self.morale[a] == self.morale[b]:
            return None
        return a if self.morale[a] > self.morale[b] else b

    def score(self) -> dict[str, float]:
        """Scaled Morale Point difference per side (MET-21 as CHQ-29), the same measure CHQ's ``score`` gives."""
        return self.point_difference()

    @property
    def clock(self) -> int:
        """The period now, for analysis across rulesets."""
        return self.period

    def units_lost(self) -> dict[str, int]:
        """Elements each side has lost so far: destroyed (MET-18), for analysis (the referee's view)."""
        lost = {side: 0 for side in self.table.sides}
        for element in self.elements.values():
            if not element.alive:
                lost[element.side] += 1
        return lost

    # ------------------------------------------------------------------ search hooks (search_hooks.py)
    def plan_scope(self, side: str):
        """``("met", period, stage)`` while ``side`` orders its part of a phase, else None."""
        from .search_hooks import plan_scope

        return plan_scope(self, side)

    def resample_hidden(self, side: str, rng) -> "MetState":
        """A clone with what ``side`` may not know (dummies, elements under blinds, the enemy's
        orders of this phase) redrawn; see ``search_hooks.resample_hidden``."""
        from .search_hooks import resample_hidden

        return resample_hidden(self, side, rng)

    def features(self, side: str) -> dict[str, float]:
        """The situation for ``side`` in morale points: morale, objectives, pressure, risk."""
        from .search_hooks import features

        return features(self, side)

    def describe_actions(self, actions, detail: bool = True) -> list[dict]:
        """What each legal action does (kind, actors, exact harm, advance, cover)."""
        from .search_hooks import describe_actions

        return describe_actions(self, actions, detail)

    def action_kind(self, action) -> str:
        """The kind of a legal action (move, fire, smoke, artillery, ...), as ``describe_actions``
        names it, without computing its values."""
        from .search_hooks import action_kind

        return action_kind(self, action)

    def point_difference(self) -> dict[str, float]:
        """Morale point difference per side, scaled by both sides' starting points (for analysis)."""
        a, b = self.table.sides
        scale = max(1, self.starting_morale[a] + self.starting_morale[b])
        diff = (self.morale[a] - self.morale[b]) / scale
        return {a: diff, b: -diff}

    # ------------------------------------------------------------------ the period machine
    def _advance(self) -> None:
        while not self.over:
            while self.queue and not self.queue[0].chance:
                self.queue.popleft().run(self)
                if self.over:
                    return
            if self.queue:
                return
            if self._has_decisions():
                return
            self._next_stage()

    def _has_decisions(self) -> bool:
        side = self.side_to_act
        if self.phase == "move":
            return any(self._may_still_move(e) for e in self._own(side))
        if self.phase == "fire":
            return bool(self._fire_actions(side))
        ordered = {order.element for _, order in self.orders}
        return any(not b.ordered and b.id not in ordered for b in self._batteries(side))

    def _next_stage(self) -> None:
        self._version += 1
        if self.stage == 1:
            self._end_movement()
        if self.stage == 3:
            self._queue_fire()
        if self.stage == 5:
            self._queue_artillery()
            return  # EndPeriod starts the next period
        self.stage += 1
        self._begin_stage()

    def _begin_stage(self) -> None:
        if self.phase == "move":
            self._begin_movement(self.side_to_act)

    # ------------------------------------------------------------------ helpers
    def _own(self, side: str) -> list[Element]:
        return [e for e in self.elements.values() if e.side == side and e.on_table and e.alive]

    def _batteries(self, side: str) -> list[Element]:
        return [e for e in self.elements.values() if e.side == side and e.is_battery and e.alive]

    def _located(self, side: str) -> list[Element]:
        """Enemy elements ``side`` has located: on the table, alive, not under a blind."""
        enemy = self.table.other(side)
        return [e for e in self.elements.values() if e.side == enemy and e.on_table and e.alive and e.blind is None]

    def _element(self, name: str) -> Element | None:
        return self.elements.get(name)

    def screens_now(self) -> list[Screen]:
        """Every screen on the table now: laid screens and the smoke of fires (MET-14)."""
        if self._screens_cache is not None and self._screens_cache[0] == self._smoke_version:
            return list(self._screens_cache[1])
        screens = [ms.screen for ms in self.screens if not ms.screen.is_gone]
        for feature_id, (burning, _) in self.fires.items():
            feature = self.table.features[feature_id]
            screens.append(fire_screen(feature.geometry, burning, self.table.wind_from, self.rules))
        self._screens_cache = (self._smoke_version, tuple(screens))
        return screens

    def _picture(self) -> _Picture:
        """Sight among everything on the table; valid until an element moves or smoke changes.

        Destroyed elements and removed dummy blinds keep their rows (nothing looks them up),
        so losses and reveals do not cost a new computation.
        """
        key = (self._pos_version, self._smoke_version)
        if self._picture_cache is not None and self._picture_cache[0] == key:
            return self._picture_cache[1]
        elements = [e for e in self.elements.values() if e.on_table and e.alive]
        dummies = [b for b in self.blinds.values() if b.dummy]
        rows = {e.id: i for i, e in enumerate(elements)}
        rows.update({b.id: len(elements) + j for j, b in enumerate(dummies)})
        points = np.array([e.position for e in elements] + [b.position for b in dummies], dtype=float).reshape(-1, 2)
        pieces = tuple((e.position, e.facing, e.base) for e in elements) + tuple((b.position,) for b in dummies)
        bases = [e.footprint for e in elements] + [_dummy_base(b.position) for b in dummies]
        status = self._redrawn(rows, pieces, points, bases)
        picture = _Picture(rows, points, status, pieces, self._smoke_version)
        self._picture_cache = (key, picture)
        return picture

    def _redrawn(self, rows: dict, pieces: tuple, points: np.ndarray, bases: list) -> np.ndarray:
        """The sight codes among ``points``. A line's code depends only on its two ends (elements
        do not block sight in MET), so when a few pieces moved since the last picture under the
        same smoke, only their rows are drawn again; their columns are the rows turned over, since
        every MET sight rule reads both ends alike (who sees is seen: MET-15, MET-17)."""
        blocking, screens = self.table.blocking, self.screens_now()
        last = self._picture_cache[1] if self._picture_cache is not None else None
        if last is not None and last.smoke == self._smoke_version and last.rows == rows:
            moved = [i for i, (was, now) in enumerate(zip(last.pieces, pieces)) if was != now]
            if len(moved) <= _REDRAW_SHARE * len(pieces):
                status = last.status.copy()
                if moved:
                    few = [bases[i] for i in moved]
                    rows_of_moved = met_sight(points[moved], few, points, bases, blocking, screens, self.rules)
                    status[moved, :] = rows_of_moved
                    status[:, moved] = rows_of_moved.T
                return status
        return met_sight(points, bases, points, bases, blocking, screens, self.rules)

    def _cover_map(self) -> dict[str, bool]:
        """Which elements on the table are in cover now (MET-15, MET-16, MET-18)."""
        key = (self._pos_version, self._smoke_version, self.period)
        if self._cover_cache is not None and self._cover_cache[0] == key:
            return self._cover_cache[1]
        elements = [e for e in self.elements.values() if e.on_table and e.alive]
        covered = cover_mask(
            [e.position for e in elements],
            self.table.cover,
            self.screens_now(),
            [e.path_cover if e.moved else None for e in elements],
            self.rules,
        )
        result = {e.id: bool(c) for e, c in zip(elements, covered)}
        self._cover_cache = (key, result)
        return result

    def in_cover(self, element_id: str) -> bool:
        """Whether an element on the table counts as in cover now (MET-15, MET-16, MET-18)."""
        return self._cover_map().get(element_id, False)

    def sight(self, observer_id: str, target_id: str) -> SightStatus:
        """MET sight from one element (or to a dummy blind) to another, as a SightStatus."""
        picture = self._picture()
        if observer_id not in picture.rows or target_id not in picture.rows:
            return SightStatus.BLOCKED
        return SightStatus(picture.sees(observer_id, target_id))

    def _distance(self, a: Element, b) -> float:
        return math.dist(a.position, b.position)

    # ------------------------------------------------------------------ movement (MET-7 .. MET-12, MET-19 (1))
    def _begin_movement(self, side: str) -> None:
        """Start of ``side``'s movement: its last period's element screens go; launchers reload in cover."""
        before = len(self.screens)
        self.screens = [
            ms for ms in self.screens if not (ms.until_movement_of == side and ms.laid < self.period)
        ]
        if len(self.screens) != before:
            self._smoke_version += 1
        needs_reload = [e for e in self._own(side) if e.launcher is Kit.EMPTY]
        if needs_reload:
            screens = self.screens_now()
            if not self.rules.setting("launcher_reload_in_smoke"):
                screens = []
            covered = cover_mask([e.position for e in needs_reload], self.table.cover, screens, None, self.rules)
            for element, ok in zip(needs_reload, covered):
                if ok:
                    element.launcher = Kit.READY
        for element in self._own(side):
            element.acted = element.status >= Status.NEUTRALISED
            element.smoked = False

    def _may_still_move(self, e: Element) -> bool:
        return not e.acted and e.status < Status.NEUTRALISED

    def _threat_picture(self) -> _Picture:
        """Sight for MET-8's 'impending fire': valid for every element that has not moved yet this phase."""
        key = (self.period, self.stage, self._smoke_version)
        if self._threat_cache is not None and self._threat_cache[0] == key:
            return self._threat_cache[1]
        picture = self._picture()
        self._threat_cache = (key, picture)
        return picture

    def threatened(self, element_id: str) -> bool:
        """MET-8: under direct fire (targeted last fire phase) or a located enemy able to fire at it."""
        e = self.elements[element_id]
        if e.under_fire_period and e.under_fire_period >= self.period - 1:
            return True
        picture = self._threat_picture()
        if e.id not in picture.rows:
            return False
        for enemy in self._located(e.side):
            if not enemy.can_act or enemy.fn_against(e) <= 0 or enemy.id not in picture.rows:
                continue
            if self._distance(enemy, e) > enemy.range:
                continue
            if self.rules.setting("discharger_needs_sight") and picture.sees(enemy.id, e.id) == SightStatus.BLOCKED:
                continue
            return True
        return False

    def _device_problem(self, side: str, e: Element | None, name: str, needs_threat: bool) -> str | None:
        if e is None or e.side != side or not e.on_table or not e.alive:
            return f"{name} is not an element of side {side} on the table"
        if e.acted:
            return f"{e.id} has already moved this phase; smoke devices fire at the start of its movement (MET-7)"
        if e.smoked and self.rules.setting("one_smoke_device_per_move"):
            return f"{e.id} has already fired a smoke device this movement"
        if e.status >= Status.NEUTRALISED:
            return f"{e.id} is {e.status} and cannot act"
        if needs_threat and not self.threatened(e.id):
            return (
                f"{e.id} may use smoke only when under direct fire or to escape impending fire from a "
                f"located enemy, and nothing threatens it now (MET-8)"
            )
        return None

    def _move_problem(self, side: str, action) -> str | None:
        e = self._element(action.element)
        if e is not None and e.is_battery and e.side == side:
            return f"{e.id} is an off-table battery; it fires in the artillery phase"
        if isinstance(action, Discharge):
            if e is not None and e.side == side and e.dischargers is None:
                return f"{e.id} has no smoke dischargers"
            problem = self._device_problem(side, e, action.element, needs_threat=True)
            if problem:
                return problem
            if e.dischargers is Kit.EMPTY:
                return f"{e.id}'s dischargers are empty; reloading takes a full period stationary (MET-9)"
            if e.dischargers is not Kit.READY:
                return f"{e.id}'s dischargers are {e.dischargers}"
            if action.face not in allowed_faces(e.card):
                return f"{e.id}'s dischargers are hull-mounted and lay smoke only in front (MET-7)"
            return None
        if isinstance(action, Launch):
            if e is not None and e.side == side and e.launcher is None:
                return f"{e.id} has no smoke mortar or launchers"
            problem = self._device_problem(side, e, action.element, bool(self.rules.setting("launcher_needs_threat")))
            if problem:
                return problem
            if e.launcher is not Kit.READY:
                return f"{e.id}'s {launcher_name(e.card)} must be reloaded under cover first (MET-10)"
            if not self.table.on_table(action.x, action.y):
                return f"the screen's centre {action.x:g},{action.y:g} is off the table"
            distance = launcher_distance_problem(e.position, action.point, self.rules)
            return f"{e.id}: {distance}" if distance else None
        if isinstance(action, Grenade):
            if e is not None and e.side == side and e.grenades is None:
                return f"{e.id} has no smoke grenades"
            problem = self._device_problem(side, e, action.element, bool(self.rules.setting("grenades_need_threat")))
            if problem:
                return problem
            if e.grenades is not Kit.READY:
                return f"{e.id} has already used its smoke grenades; an issue may be used only once (MET-12)"
            return None
        # move, hold, reload
        if e is None or e.side != side or not e.on_table or not e.alive:
            return f"{action.element} is not an element of side {side} on the table"
        if e.status >= Status.NEUTRALISED and not isinstance(action, Hold):
            return f"{e.id} is neutralised and cannot move (MET-18)"
        if e.acted:
            return f"{e.id} has already moved this period"
        if isinstance(action, Hold):
            return None
        if isinstance(action, Reload):
            if e.dischargers is None:
                return f"{e.id} has no smoke dischargers to reload"
            if e.dischargers is Kit.READY:
                return f"{e.id}'s dischargers are already loaded"
            if e.status is not Status.OK:
                return f"{e.id} is suppressed: reloading needs a period unsuppressed and not firing (MET-9)"
            if e.moved:
                return f"{e.id} has moved this period; reloading takes a full period stationary (MET-9)"
            return None
        return self._destination_problem(e, action.x, action.y)

    def _allowance(self, e: Element) -> float:
        allowance = e.move_allowance
        if e.status is Status.SUPPRESSED:
            allowance *= float(self.rules.setting("suppressed_move_factor"))
        return allowance

    def _destination_problem(self, e: Element, x: float, y: float) -> str | None:
        if not self.table.on_table(x, y):
            return f"{x:g},{y:g} is off the {self.table.width:g} x {self.table.depth:g} m table"
        distance = math.dist(e.position, (x, y))
        allowance = self._allowance(e)
        if distance <= EPS:
            return None
        if allowance <= 0:
            return f"{e.id} ({e.name}) cannot move"
        if self.table.difficult_union is not None and self.table.difficult_union.intersects(
            shapely.LineString([e.position, (x, y)])
        ):
            half = allowance * float(self.rules.setting("difficult_move_factor"))
            if distance > half + EPS:
                return f"{e.id} can move {half:g} m through difficult going, not {distance:.0f} m"
        if distance > allowance + EPS:
            status = " while suppressed" if e.status is Status.SUPPRESSED else ""
            return f"{e.id} ({e.name}) moves at most {allowance:g} m a period{status}, not {distance:.0f} m"
        if e.armoured and not self.rules.setting("vehicles_enter_buildings") and self.table.buildings_union is not None:
            if shapely.intersects_xy(self.table.buildings_union, x, y):
                return f"{e.id} is a vehicle and may not end its move inside a building"
        return None

    def _move_actions(self, side: str) -> list:
        actions: list = []
        for e in self._own(side):
            if not self._may_still_move(e):
                continue
            actions.extend(self._device_actions(e))
            actions.append(Hold(e.id))
            if e.dischargers is Kit.EMPTY and self._move_problem(side, Reload(e.id)) is None:
                actions.append(Reload(e.id))
            key = (e.position, e.status, self._smoke_version)
            cached = self._candidates.get(e.id)
            if cached is None or cached[0] != key:
                cached = (key, tuple(self._move_candidates(e)))
                self._candidates[e.id] = cached
            seen = {e.position}
            for point in cached[1]:
                if point not in seen:
                    seen.add(point)
                    actions.append(Move(e.id, *point))
        return actions

    def _device_actions(self, e: Element) -> list:
        if e.smoked and self.rules.setting("one_smoke_device_per_move"):
            return []
        actions: list = []
        side = e.side
        if e.dischargers is Kit.READY and self._device_problem(side, e, e.id, True) is None:
            actions.extend(Discharge(e.id, face) for face in allowed_faces(e.card))
        if e.grenades is Kit.READY and self._device_problem(side, e, e.id, bool(self.rules.setting("grenades_need_threat"))) is None:
            actions.extend(Grenade(e.id, face) for face in ("front", "right", "rear", "left"))
        if e.launcher is Kit.READY:
            needs = bool(self.rules.setting("launcher_needs_threat"))
            if self._device_problem(side, e, e.id, needs) is None:
                distance = float(self.rules.setting("launcher_lattice_distance"))
                for enemy in self._located(side)[:4] if not needs else self._threats_to(e):
                    point = self._toward(e.position, enemy.position, distance)
                    action = Launch(e.id, *point)
                    if self._move_problem(side, action) is None:
                        actions.append(action)
        return actions

    def _threats_to(self, e: Element) -> list[Element]:
        picture = self._threat_picture()
        found = []
        for enemy in self._located(e.side):
            if enemy.id in picture.rows and e.id in picture.rows and self._distance(enemy, e) <= enemy.range:
                if picture.sees(enemy.id, e.id) != SightStatus.BLOCKED:
                    found.append(enemy)
        return found

    @staticmethod
    def _toward(start, end, distance: float) -> tuple[float, float]:
        length = math.dist(start, end)
        if length <= EPS:
            return (round(start[0]), round(start[1]))
        step = min(distance, length)
        return (
            float(round(start[0] + (end[0] - start[0]) / length * step)),
            float(round(start[1] + (end[1] - start[1]) / length * step)),
        )

    def _fit(self, e: Element, target, distance: float):
        """The canonical destination toward ``target``: the full step, else the difficult-going step."""
        for reach in (distance, distance * float(self.rules.setting("difficult_move_factor"))):
            point = self._clamp(self._toward(e.position, target, reach))
            if point != e.position and self._destination_problem(e, *point) is None:
                return point
        return None

    def _clamp(self, point) -> tuple[float, float]:
        x = min(max(point[0], 1.0), math.floor(self.table.width) - 1.0)
        y = min(max(point[1], 1.0), math.floor(self.table.depth) - 1.0)
        return (float(x), float(y))

    def _move_candidates(self, e: Element) -> list[tuple[float, float]]:
        """Toward each objective, into the nearest cover (terrain or smoke), back toward the own edge."""
        allowance = self._allowance(e)
        if allowance <= 0:
            return []
        candidates = []
        for objective in self.scenario.objectives:
            if math.dist(e.position, objective.position) > 1.0:
                candidates.append(self._fit(e, objective.position, allowance))
        cover = self._nearest_cover_point(e)
        if cover is not None:
            candidates.append(self._fit(e, cover, allowance))
        dx, dy = {"south": (0, -1), "north": (0, 1), "west": (-1, 0), "east": (1, 0)}[self.table.own_edge[e.side]]
        candidates.append(self._fit(e, (e.position[0] + dx * allowance, e.position[1] + dy * allowance), allowance))
        return [c for c in candidates if c is not None]

    def _nearest_cover_point(self, e: Element):
        polygons = list(self.table.cover) + [s.polygon for s in self.screens_now()]
        if not polygons:
            return None
        here = shapely.Point(e.position)
        best, best_distance = None, math.inf
        for polygon in polygons:
            if polygon.covers(here):
                continue
            distance = polygon.distance(here)
            if distance < best_distance:
                best_distance = distance
                best = polygon
        if best is None or best_distance > self._allowance(e):
            return None
        _, near = shapely.ops.nearest_points(here, best)
        # a few metres past the edge, so the centre is inside
        bx, by = near.x, near.y
        length = math.dist(e.position, (bx, by))
        step = min(length + 5.0, self._allowance(e))
        return self._toward(e.position, (bx, by), step) if length > EPS else (bx, by)

    def _apply_move_order(self, action) -> None:
        e = self.elements[action.element]
        if isinstance(action, Discharge):
            polygon = discharger_screen(e.position, e.facing, e.base, action.face, self.rules)
            e.dischargers = Kit.EMPTY
            self._lay_element_screen(e, polygon, "discharger")
        elif isinstance(action, Launch):
            polygon = launcher_screen(e.position, action.point, self.rules)
            e.launcher = Kit.EMPTY
            self._lay_element_screen(e, polygon, "launcher")
        elif isinstance(action, Grenade):
            polygon = grenade_screen(e.position, e.facing, e.base, action.face, self.rules)
            e.grenades = Kit.USED
            self._lay_element_screen(e, polygon, "grenade")
        elif isinstance(action, Hold):
            e.acted = True
        elif isinstance(action, Reload):
            e.acted = True
            e.reloading = True
            e.dischargers = Kit.RELOADING
        elif isinstance(action, Move):
            e.acted = True
            start, end = e.position, action.point
            if math.dist(start, end) > EPS:
                e.facing = bearing_between(start, end)
                e.position = end
                e.moved = True
                e.path_cover = path_cover_fraction(start, end, self.table.cover_union)
                if e.blind in self.blinds:
                    self.blinds[e.blind].position = end
                self._pos_version += 1

    def _lay_element_screen(self, e: Element, polygon: Polygon, kind: str) -> None:
        e.smoked = True
        self._reveal(e)
        screen = Screen(polygon, (Density.FULL,), 0, f"{kind} {e.id}")
        self.screens.append(MetScreen(screen, kind, e.id, e.side, self.period, until_movement_of=e.side))
        self._smoke_version += 1

    def _end_movement(self) -> None:
        """After both sides' movement: blinds in enemy sight are revealed, dummies removed (house)."""
        if not self.blinds:
            return
        picture = self._picture()
        clear_range = float(self.rules.setting("spot_range"))
        partial_range = float(self.rules.setting("spot_range_partial"))
        for blind in list(self.blinds.values()):
            hidden = blind.id
            if not blind.dummy:
                owner = next((e for e in self.elements.values() if e.blind == blind.id), None)
                if owner is None or not owner.alive:
                    del self.blinds[blind.id]
                    continue
                hidden = owner.id
            if hidden not in picture.rows:
                continue
            for enemy in self._own(self.table.other(blind.owner)):
                if enemy.id not in picture.rows:
                    continue
                seen = picture.sees(enemy.id, hidden)
                distance = math.dist(enemy.position, blind.position)
                if (seen == SightStatus.CLEAR and distance <= clear_range) or (
                    seen == SightStatus.PARTIAL and distance <= partial_range
                ):
                    self._reveal_blind(blind.id)
                    break

    def _reveal(self, e: Element) -> None:
        if e.blind is not None:
            self._reveal_blind(e.blind)

    def _reveal_blind(self, blind_id: str) -> None:
        blind = self.blinds.pop(blind_id, None)
        if blind is None:
            return
        self.history.append(f"blind {blind_id} revealed" + (" (a dummy)" if blind.dummy else ""))
        for e in self.elements.values():
            if e.blind == blind_id:
                e.blind = None

    # ------------------------------------------------------------------ direct fire (MET-11, MET-13, MET-18, MET-19 (2))
    def _fire_ready_problem(self, side: str, e: Element | None, name: str) -> str | None:
        if e is None or e.side != side or not e.on_table or not e.alive:
            return f"{name} is not an element of side {side} on the table"
        if e.status is not Status.OK:
            return f"{e.id} is {e.status} and cannot fire (MET-18)"
        if e.reloading:
            return f"{e.id} is reloading its dischargers and may not fire this period (MET-9)"
        return None

    def _fire_problem(self, side: str, action) -> str | None:
        e = self._element(action.element)
        problem = self._fire_ready_problem(side, e, action.element)
        if problem:
            return problem
        main = e.fired or any(o.element == e.id and not isinstance(o, Thrower) for _, o in self.orders)
        thrown = e.threw or any(o.element == e.id and isinstance(o, Thrower) for _, o in self.orders)
        in_addition = bool(self.rules.setting("thrower_in_addition"))
        if isinstance(action, Thrower):
            if thrown:
                return f"{e.id} has already fired its grenade thrower this period"
            if main and not in_addition:
                return f"{e.id} has already fired this period"
        elif main or (thrown and not in_addition):
            return f"{e.id} has already fired this period"
        picture = self._picture()
        if isinstance(action, Fire):
            target = self._element(action.target)
            if target is None or target not in self._located(side):
                return f"{action.target} is not an enemy element side {side} has located"
            return self._shot_problem(picture, e, target)
        if isinstance(action, DirectSmoke):
            if not e.card.get("direct_smoke"):
                return f"{e.id} ({e.name}) cannot fire smoke rounds"
            if not self.table.on_table(action.x, action.y):
                return f"the aim point {action.x:g},{action.y:g} is off the table"
            if direct_smoke_fn(math.dist(e.position, action.point), rules=self.rules) is None:
                return f"{action.x:g},{action.y:g} is beyond HEAT range of {e.id} (MET-13, MET-18)"
            if not self._smoke_references(picture, e, action.point):
                radius = self.rules.setting("direct_smoke_aim_radius")
                return (
                    f"direct smoke must aim at or within {radius} m of an acquired enemy element or position "
                    f"that {e.id} can see (MET-13)"
                )
            return None
        # thrower
        if not has_thrower(e.card):
            return f"{e.id} has no grenade thrower with anti-personnel rounds (MET-11)"
        targets = self._thrower_targets(picture, e)
        if not targets:
            return (
                f"{e.id}'s grenade thrower fires only at enemy infantry that moved to within "
                f"{self.rules.setting('thrower_range')} m this period (MET-11)"
            )
        if not self.rules.setting("thrower_attacks_all"):
            if action.target is None:
                return f"name the thrower's target: one of {', '.join(t.id for t in targets)}"
            if action.target not in {t.id for t in targets}:
                return f"{action.target} is not enemy infantry that moved to within {self.rules.setting('thrower_range')} m of {e.id}"
        elif action.target is not None:
            return "the thrower is area fire against every eligible element: give no target (setting thrower_attacks_all)"
        return None

    def _shot_problem(self, picture: _Picture, e: Element, target: Element) -> str | None:
        if e.fn_against(target) <= 0:
            return f"{e.id} ({e.name}) cannot harm {'armoured' if target.armoured else 'soft'} targets"
        distance = self._distance(e, target)
        if distance > e.range + EPS:
            return f"{target.id} is {distance:.0f} m away, beyond {e.id}'s range of {e.range:g} m"
        if picture.sees(e.id, target.id) == SightStatus.BLOCKED:
            return f"{e.id} cannot see {target.id}: terrain or full smoke is in the way (MET-15)"
        return None

    def _smoke_references(self, picture: _Picture, e: Element, point) -> list:
        """Acquired enemy elements and blinds within the aim radius of ``point`` that ``e`` sees."""
        radius = float(self.rules.setting("direct_smoke_aim_radius"))
        found = []
        for target in self._smoke_aims(picture, e):
            if math.dist(target[1], point) <= radius + EPS:
                found.append(target)
        return found

    def _smoke_aims(self, picture: _Picture, e: Element) -> list:
        """(id, position) of located enemies and enemy blinds ``e`` sees."""
        aims = []
        for target in self._located(e.side):
            if picture.sees(e.id, target.id) != SightStatus.BLOCKED:
                aims.append((target.id, target.position))
        for blind in self.blinds.values():
            if blind.owner == e.side:
                continue
            hidden = blind.id if blind.dummy else next((x.id for x in self.elements.values() if x.blind == blind.id), None)
            if hidden in picture.rows and picture.sees(e.id, hidden) != SightStatus.BLOCKED:
                aims.append((blind.id, blind.position))
        return aims

    def _thrower_targets(self, picture: _Picture, e: Element) -> list[Element]:
        reach = float(self.rules.setting("thrower_range"))
        return [
            t
            for t in self._located(e.side)
            if t.infantry and t.moved and self._distance(e, t) <= reach + EPS and picture.sees(e.id, t.id) != SightStatus.BLOCKED
        ]

    def _fire_actions(self, side: str) -> list:
        picture = self._picture()
        declared = {order.element for _, order in self.orders if not isinstance(order, Thrower)}
        threw = {order.element for _, order in self.orders if isinstance(order, Thrower)}
        located = self._located(side)
        actions: list = []
        offset = float(self.rules.setting("direct_smoke_lattice_offset"))
        for e in self._own(side):
            if e.status is not Status.OK or e.reloading:
                continue
            if not e.fired and e.id not in declared:
                for target in located:
                    if self._shot_problem(picture, e, target) is None:
                        actions.append(Fire(e.id, target.id))
                if e.card.get("direct_smoke"):
                    for _, position in self._smoke_aims(picture, e):
                        for point in (position, self._toward(position, e.position, offset)):
                            point = (float(round(point[0])), float(round(point[1])))
                            action = DirectSmoke(e.id, *point)
                            if action not in actions and self.table.on_table(*point) and direct_smoke_fn(
                                math.dist(e.position, point), rules=self.rules
                            ) is not None:
                                actions.append(action)
            if has_thrower(e.card) and not e.threw and e.id not in threw:
                targets = self._thrower_targets(picture, e)
                if targets:
                    if self.rules.setting("thrower_attacks_all"):
                        actions.append(Thrower(e.id))
                    else:
                        actions.extend(Thrower(e.id, t.id) for t in targets)
        return actions

    def _queue_fire(self) -> None:
        """Both sides have declared: every fire becomes a chance node; results apply together."""
        picture = self._picture()
        smoke_orders = [order for _, order in self.orders if isinstance(order, DirectSmoke)]
        smoke_lines = self._line_statuses(
            [self.elements[o.element].position for o in smoke_orders], [o.point for o in smoke_orders]
        )
        for side, order in self.orders:
            e = self.elements[order.element]
            if isinstance(order, Fire):
                target = self.elements[order.target]
                fn = fire_number(
                    e.fn_against(target),
                    partial_smoke=picture.sees(e.id, target.id) == SightStatus.PARTIAL,
                    in_cover=self.in_cover(target.id),
                    rules=self.rules,
                )
                self.queue.append(ev.FireCheck(e.id, target.id, fn))
            elif isinstance(order, Thrower):
                targets = self._thrower_targets(picture, e)
                if order.target is not None:
                    targets = [t for t in targets if t.id == order.target]
                for target in targets:
                    fn = fire_number(
                        int(self.rules.setting("thrower_fn")),
                        partial_smoke=picture.sees(e.id, target.id) == SightStatus.PARTIAL,
                        in_cover=self.in_cover(target.id),
                        rules=self.rules,
                    )
                    self.queue.append(ev.FireCheck(e.id, target.id, fn, "thrower"))
            else:
                # smoke on the line to the aim point (partial, or full: the gunner fires blind) is -2
                partial = smoke_lines[smoke_orders.index(order)] != SightStatus.CLEAR
                fn = direct_smoke_fn(math.dist(e.position, order.point), partial, self.rules)
                self.queue.append(ev.SmokeCheck(e.id, order.x, order.y, fn))
        self.queue.append(ev.ApplyFireResults())

    def _line_statuses(self, starts, ends) -> list[SightStatus]:
        """MET sight along each line ``starts[i] -> ends[i]``, in one bulk call."""
        if not starts:
            return []
        bases = [rectangle(p, 1.0, 1.0) for p in starts]
        targets = [rectangle(p, 1.0, 1.0) for p in ends]
        status = met_sight(starts, bases, ends, targets, self.table.blocking, self.screens_now(), self.rules)
        return [SightStatus(int(status[i, i])) for i in range(len(starts))]

    def _record_fire(self, event: ev.FireCheck, outcome) -> None:
        if outcome.hit:
            self._hits[event.target] = self._hits.get(event.target, 0) + 1

    def _direct_smoke_check(self, event: ev.SmokeCheck, outcome) -> None:
        if outcome.hit:
            self._landed_smoke.append((event.firer, (event.x, event.y), ON_TARGET))
        else:
            self.queue.appendleft(ev.SmokeDeviation(event.firer, event.x, event.y))

    def _direct_smoke_lands(self, firer: str, aim, deviation: Deviation) -> None:
        self._landed_smoke.append((firer, aim, deviation))

    def _apply_fire_results(self) -> None:
        for side, order in self.orders:
            e = self.elements[order.element]
            if isinstance(order, Thrower):
                e.threw = True
            else:
                e.fired = True
            if isinstance(order, Fire):
                self.elements[order.target].under_fire_period = self.period
            self._reveal(e)
        for side, order in self.orders:
            if isinstance(order, Thrower):
                for target in self._thrower_targets(self._picture(), self.elements[order.element]):
                    target.under_fire_period = self.period
        for target_id, hits in self._hits.items():
            self._take_hits(self.elements[target_id], hits)
        for firer_id, aim, deviation in self._landed_smoke:
            firer = self.elements[firer_id]
            dx, dy = deviation.offset
            polygon = direct_smoke_polygon(firer.position, aim, self.rules, firer.facing)
            polygon = shapely.affinity.translate(polygon, dx, dy) if deviation.distance else polygon
            densities = direct_smoke_densities(self.table.wind_knots, self.table.rain, "BE", self.rules)
            if densities is None:
                screen = MetScreen(Screen(polygon, (Density.FULL,), 0, f"smoke round {firer_id}"), "direct", firer_id,
                                   firer.side, self.period, until_movement_of=firer.side)
            elif densities:
                screen = MetScreen(Screen(polygon, densities, 0, f"smoke round {firer_id}"), "direct", firer_id,
                                   firer.side, self.period)
            else:
                continue
            self.screens.append(screen)
            self._smoke_version += 1
        self.orders = []
        self._hits = {}
        self._landed_smoke = []

    def _take_hits(self, target: Element, hits: int) -> None:
        if hits <= 0 or not target.alive:
            return
        target.hit = True
        target.status = after_hits(target.status, hits)
        self._reveal(target)
        if target.status is Status.DESTROYED:
            self.history.append(f"{target.id} destroyed")
            self.queue.appendleft(ev.MoraleCheck(target.side, target.id))

    def _lose_morale(self, side: str, points: int) -> None:
        self.morale[side] -= int(points)

    # ------------------------------------------------------------------ artillery phase 5.1.4 (MET-1, MET-2, MET-19 (3), MET-20)
    def _mission_problem(self, side: str, action: Mission) -> str | None:
        battery = self._element(action.battery)
        if battery is None or battery.side != side or not battery.is_battery:
            return f"{action.battery} is not an off-table battery of side {side}"
        if battery.ordered or any(order.element == battery.id for _, order in self.orders):
            return f"{battery.id} has already been given a mission this period (one period only, MET-1)"
        if not self.table.on_table(action.x, action.y):
            return f"the point of aim {action.x:g},{action.y:g} is off the table"
        if action.kind == "smoke":
            types = tuple(battery.card.get("smoke", ()))
            if not types:
                return f"{battery.id} ({battery.name}) has no smoke rounds (MET-1)"
            if action.smoke_type is not None and action.smoke_type not in types:
                return f"{battery.id} fires {' or '.join(types)} smoke, not {action.smoke_type}"
            if wind_band(self.table.wind_knots, self.rules) is WindBand.TOO_STRONG:
                return (
                    f"smoke cannot be laid in a {self.table.wind_knots:g}-knot wind: over "
                    f"{self.rules.setting('strong_wind_max')} knots no screen forms (MET-5)"
                )
        return None

    def aim_points(self, side: str) -> list[tuple[float, float]]:
        """The canonical lattice of points of aim for ``side``: enemy blinds, sighted enemies, the grid."""
        points: list[tuple[float, float]] = []
        for blind in self.blinds.values():
            if blind.owner != side:
                points.append((float(round(blind.position[0])), float(round(blind.position[1]))))
        picture = self._picture()
        own = [e for e in self._own(side) if e.id in picture.rows]
        for enemy in self._located(side):
            if any(picture.sees(e.id, enemy.id) != SightStatus.BLOCKED for e in own):
                points.append((float(round(enemy.position[0])), float(round(enemy.position[1]))))
        points.extend(self.table.grid)
        return list(dict.fromkeys(p for p in points if self.table.on_table(*p)))

    def _artillery_actions(self, side: str) -> list:
        batteries = [b for b in self._batteries(side) if not b.ordered and not any(o.element == b.id for _, o in self.orders)]
        if not batteries:
            return []
        points = self.aim_points(side)
        smoke_ok = wind_band(self.table.wind_knots, self.rules) is not WindBand.TOO_STRONG
        actions: list = []
        for battery in batteries:
            actions.extend(Mission(battery.id, "he", *point) for point in points)
            if smoke_ok and battery.card.get("smoke"):
                actions.extend(Mission(battery.id, "smoke", *point) for point in points)
        return actions

    def _queue_artillery(self) -> None:
        for side, order in self.orders:
            battery = self.elements[order.battery]
            battery.ordered = True
            smoke_type = order.smoke_type or (tuple(battery.card.get("smoke", ())) or ("BE",))[0]
            self.queue.append(ev.MissionLanding(battery.id, order.kind, order.x, order.y, smoke_type if order.kind == "smoke" else None))
        self.orders = []
        self.queue.append(ev.EndPeriod())

    def beaten_zone(self, battery: Element) -> tuple[float, float]:
        zone = battery.card.get("beaten_zone") or self.rules.setting("beaten_zone")
        return (float(zone[0]), float(zone[1]))

    def battery_smoke(self, battery: Element, poa, smoke_type: str | None = None):
        """The :class:`~.smoke.SmokeLaying` of ``battery``'s smoke landing on ``poa`` in this weather."""
        smoke_type = smoke_type or (tuple(battery.card.get("smoke", ())) or ("BE",))[0]
        return artillery_smoke(
            poa,
            self.table.line_of_fire[battery.side],
            self.beaten_zone(battery),
            self.table.wind_from,
            self.table.wind_knots,
            self.table.rain,
            smoke_type,
            self.rules,
        )

    def _land_mission(self, event: ev.MissionLanding, deviation: Deviation) -> None:
        battery = self.elements[event.battery]
        dx, dy = deviation.offset
        landing = (event.x + dx, event.y + dy)
        if event.kind == "smoke":
            laying = self.battery_smoke(battery, landing, event.smoke_type)
            for screen in laying.screens(f"{event.smoke_type} smoke {battery.id}"):
                self.screens.append(MetScreen(screen, "artillery", battery.id, battery.side, self.period, None, event.smoke_type))
            if laying.parts:
                self._smoke_version += 1
            return
        zone = rectangle(landing, *self.beaten_zone(battery), self.table.line_of_fire[battery.side])
        follow: list = []
        for blind in list(self.blinds.values()):  # artillery on a blind reveals it; a dummy is removed
            if zone.covers(shapely.Point(blind.position)):
                self._reveal_blind(blind.id)
        targets = [e for e in self.elements.values() if e.on_table and e.alive and zone.covers(shapely.Point(e.position))]
        for target in targets:
            cover = self.in_cover(target.id) and self.rules.setting("artillery_cover_applies")
            follow.append(ev.ArtilleryHit(battery.id, target.id, fire_number(int(battery.card.get("fn", 0)), False, cover, self.rules)))
        for feature in self.scenario.terrain:
            if feature.kind != "buildings" or feature.id in self.fires:
                continue
            if feature.id in self.burnt_out and not self.rules.setting("burnt_out_reignites"):
                continue
            if feature.geometry.intersects(zone):
                follow.append(ev.IgnitionCheck(battery.id, feature.id, int(battery.card.get("fn", 0))))
        self.queue.extendleft(reversed(follow))

    def _artillery_hit(self, event: ev.ArtilleryHit, outcome) -> None:
        if outcome.hit:
            self._take_hits(self.elements[event.target], 1)

    def _ignite(self, event: ev.IgnitionCheck, outcome) -> None:
        if outcome.burning:
            self.fires[event.feature] = (Burning(event.feature, 0), self.period)
            self.history.append(f"{event.feature} set burning")
            self._smoke_version += 1

    # ------------------------------------------------------------------ the end of a period (MET-19 (4), MET-21)
    def _end_period(self) -> None:
        self._score_objectives()
        fresh_age = bool(self.rules.setting("new_screens_age_at_period_end"))
        if self.screens or self.fires:
            self._smoke_version += 1
        kept: list[MetScreen] = []
        for ms in self.screens:
            if ms.until_movement_of is not None or (ms.laid == self.period and not fresh_age):
                kept.append(ms)
                continue
            aged = ms.aged()
            if not aged.screen.is_gone:
                kept.append(aged)
        self.screens = kept
        fires: dict = {}
        for feature_id, (burning, started) in self.fires.items():
            if started == self.period and not fresh_age:
                fires[feature_id] = (burning, started)
                continue
            aged = burning.aged()
            if fire_fn(aged.age, self.rules) is None:
                self.burnt_out.add(feature_id)
            else:
                fires[feature_id] = (aged, started)
        self.fires = fires
        for e in self.elements.values():
            if not e.alive:
                continue
            if e.reloading:
                e.dischargers = Kit.READY if e.status is Status.OK else Kit.EMPTY
            if not e.hit and self.rules.setting("recovery_per_quiet_period") and Status.OK < e.status < Status.DESTROYED:
                e.status = Status(int(e.status) - 1)
            e.acted = e.smoked = e.moved = e.fired = e.threw = e.ordered = e.reloading = e.hit = False
            e.path_cover = None
        collapsed = [side for side in self.table.sides if self.morale[side] <= 0]
        if collapsed or self.period >= self.periods:
            self.over = True
            return
        self.period += 1
        self.stage = 0
        self._begin_stage()

    def _score_objectives(self) -> None:
        setting = self.rules.setting("capture_points")
        for objective in self.scenario.objectives:
            on: dict[str, bool] = {}
            for e in self.elements.values():
                if e.on_table and e.alive and math.dist(e.position, objective.position) <= objective.radius + EPS:
                    on[e.side] = on.get(e.side, False) or e.status is Status.OK
            holders = [side for side, fit in on.items() if fit and len(on) == 1]
            if not holders or holders[0] == self.holders[objective.id]:
                continue
            side = holders[0]
            points = int(objective.points) if setting == "objective" else int(setting)
            previous = self.holders[objective.id]
            self.morale[side] += points
            if previous is not None:
                self.morale[previous] -= points
            self.holders[objective.id] = side
            self.history.append(f"{side} takes objective {objective.id}")

    # ------------------------------------------------------------------ orders
    def _apply_order(self, action) -> None:
        side = self.side_to_act
        if isinstance(action, End):
            if self.phase == "move":  # the elements that have not moved hold
                for e in self._own(side):
                    e.acted = True
            self._next_stage()
        elif self.phase == "move":
            self._apply_move_order(action)
        else:
            self.orders.append((side, action))

    # ------------------------------------------------------------------ planner hooks (see hooks.py)
    def threat(self, firer_id: str, target_id: str) -> float:
        """Exact probability that the firer's fire hits the target now (see the class docstring)."""
        return float(hooks.exact_threat(self, firer_id, target_id))

    def exact_threat(self, firer_id: str, target_id: str) -> Fraction:
        """:meth:`threat` as a Fraction."""
        return hooks.exact_threat(self, firer_id, target_id)

    def smoke_options(self, side: str, phase: str | None = None) -> list[SmokeOption]:
        """Screens ``side`` may lay in ``phase`` (default: the current one); see the class docstring."""
        return hooks.smoke_options(self, side, phase)

    def smoke_resources(self, side: str, phase: str | None = None, options=None) -> dict[str, int]:
        """``{resource: capacity}`` the smoke options of ``side`` in ``phase`` may use (hooks.smoke_resources);
        ``options``: those options when the caller has them already."""
        return hooks.smoke_resources(self, side, phase, options)

    def ring_moves(self, rings: tuple[float, ...], bearings: int, elements: Collection[str] | None = None) -> list[Move]:
        """Legal move orders off the canonical lattice, for a player that places its elements as
        freely as one at the table: for each element of the side to act that may still move
        (of ``elements`` only, when given), destinations at each of ``rings`` (fractions of its
        move this period) in ``bearings`` directions (east first, anticlockwise), rounded to the
        metre; none the lattice offers. Empty outside a movement decision."""
        if self.over or self.queue or self.phase != "move":
            return []
        side = self.side_to_act
        offered = set(self.legal_actions())
        out: list[Move] = []
        for e in self._own(side):
            if not self._may_still_move(e) or (elements is not None and e.id not in elements):
                continue
            allowance = self._allowance(e)
            for ring in rings:
                for k in range(bearings):
                    angle = 2.0 * math.pi * k / bearings
                    x = float(round(e.position[0] + ring * allowance * math.cos(angle)))
                    y = float(round(e.position[1] + ring * allowance * math.sin(angle)))
                    move = Move(e.id, x, y)
                    if move not in offered and self._move_problem(side, move) is None:
                        offered.add(move)
                        out.append(move)
        return out

    def known_pieces(self, side: str) -> tuple[dict, ...]:
        """The pieces on the table as ``side`` observes them; see the class docstring."""
        return hooks.known_pieces(self, side)

    def sight_between(self, side: str, observers, targets, *, screens=(), fo: bool = False, threat: bool = True) -> dict:
        """Bulk sight between pieces as ``side`` knows them; see the class docstring."""
        return hooks.sight_between(self, side, observers, targets, screens=screens, fo=fo, threat=threat)

    # ------------------------------------------------------------------ convenience
    def apply_text(self, text: str) -> None:
        """Parse ``text`` in the order notation and apply it (checked)."""
        from .actions import parse_action

        self.apply_action(parse_action(text, self))

    def __repr__(self) -> str:
        who = self.current_player()
        return f"<MetState {self.scenario.name!r} period {self.period}/{self.periods} {self.phase} {who}>"

