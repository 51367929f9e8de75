"""What one side may know (``ChqState.observation(side)``): a frozen view that shares nothing
mutable with the true state.

Own units are shown fully, Blinds included with their dummy flag; enemy units
only once revealed; the enemy's unrevealed Blinds as bare markers (id and
position: never whether they are dummies, nor the unit under them). Dice
rolled, Morale Points, screens and templates on the table are public.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["UnitView", "BlindView", "MissionView", "ChqObservation", "observe"]


@dataclass(frozen=True, slots=True)
class UnitView:
    id: str
    card: str
    position: tuple[float, float] | None
    facing: float
    disruption: int
    suppressed: bool
    fire_marker: bool
    hidden: bool


@dataclass(frozen=True, slots=True)
class BlindView:
    id: str
    position: tuple[float, float]
    dummy: bool | None  # None for the enemy's Blinds: their owner alone knows


@dataclass(frozen=True, slots=True)
class MissionView:
    batteries: tuple[str, ...]
    kind: str
    status: str
    centre: tuple[float, float] | None
    bearing: float
    sheaf: str


@dataclass(frozen=True, slots=True)
class ChqObservation:
    side: str
    turn: int
    to_move: str
    own_units: tuple[UnitView, ...]
    enemy_units: tuple[UnitView, ...]
    own_blinds: tuple[BlindView, ...]
    enemy_blinds: tuple[BlindView, ...]
    own_missions: tuple[MissionView, ...]
    enemy_missions: tuple[MissionView, ...]
    morale: tuple[tuple[str, int], ...]
    staff_orders: int
    dice: tuple[tuple[int, int], ...]
    wild_dice: int
    enemy_dice_left: int
    objectives: tuple[tuple[str, str | None], ...]


def _unit_view(state, uid: str) -> UnitView:
    u = state.units[uid]
    return UnitView(uid, state.facts.units[uid].card, u.pos, u.facing, u.disruption, u.suppressed, u.fire_marker, u.hidden)


def _mission_view(m) -> MissionView:
    return MissionView(tuple(m.batteries), m.kind, m.status, m.centre, m.bearing, m.sheaf)


def observe(state, side: str) -> ChqObservation:
    facts = state.facts
    if side not in facts.side_ids:
        raise ValueError(f"unknown side {side!r}: expected one of {', '.join(facts.side_ids)}")
    enemy = facts.other(side)
    own = tuple(_unit_view(state, u) for u in facts.unit_ids if facts.units[u].side == side)
    seen = tuple(_unit_view(state, u) for u in state.revealed_units(enemy)) + tuple(
        _unit_view(state, u) for u in facts.unit_ids if facts.units[u].side == enemy and state.units[u].dispersed
    )
    own_blinds = tuple(BlindView(b, state.blinds[b].pos, facts.blinds[b].dummy) for b in state.live_blinds(side))
    enemy_blinds = tuple(BlindView(b, state.blinds[b].pos, None) for b in state.live_blinds(enemy))
    missions = sorted(state.missions.values(), key=lambda m: m.id)
    own_m = tuple(_mission_view(m) for m in missions if m.side == side)
    # the enemy's templates and screens on the table are public; its delayed calls are not
    enemy_m = tuple(_mission_view(m) for m in missions if m.side == enemy and m.status in ("active", "screen"))
    pool = state.dice[side]
    return ChqObservation(
        side=side,
        turn=state.turn,
        to_move=state.current_player(),
        own_units=own,
        enemy_units=seen,
        own_blinds=own_blinds,
        enemy_blinds=enemy_blinds,
        own_missions=own_m,
        enemy_missions=enemy_m,
        morale=tuple(sorted(state.morale.items())),
        staff_orders=int(state.staff[side]),
        dice=tuple(sorted(pool.faces.items())),
        wild_dice=int(pool.wild),
        enemy_dice_left=int(state.dice[enemy].total),
        objectives=tuple(sorted(state.holders.items())),
    )
