"""What one side may know of a MET game (the ``Observer`` apart from the state).

The enemy's blinds stay blinds: an enemy element under an unrevealed blind is not
listed, and a blind does not say whether it is a dummy. The enemy's declared fire and
artillery orders of the current phase are not shown (both sides declare at once,
MET-19). Everything here is a fresh, frozen copy made of plain values (ids, numbers,
tuples of coordinates); nothing refers to the state it came from.

Examples
--------
>>> from engine.scenario import load_scenario
>>> state = load_scenario("maps/met_le_mesnil.json").new_game(seed=1)
>>> seen = state.observation("gb")
>>> sorted(b.id for b in seen.enemy_blinds)
['de-b1', 'de-b2', 'de-b3', 'de-b4']
>>> [e.id for e in seen.enemy]
['de-pz-1']
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ElementView", "BlindView", "ScreenView", "MetObservation", "observe"]


@dataclass(frozen=True, slots=True)
class ElementView:
    """An element as a side sees it. Kit states are None for enemy elements (not visible)."""

    id: str
    side: str
    card: str
    position: tuple[float, float] | None
    facing: float
    status: str
    in_cover: bool
    blind: str | None = None
    dischargers: str | None = None
    launcher: str | None = None
    grenades: str | None = None


@dataclass(frozen=True, slots=True)
class BlindView:
    """A blind marker; ``dummy`` is None when the observer is not its owner."""

    id: str
    owner: str
    position: tuple[float, float]
    dummy: bool | None


@dataclass(frozen=True, slots=True)
class ScreenView:
    """A screen: its outline, density now, periods left (None: until a side's movement), origin."""

    polygon: tuple[tuple[float, float], ...]
    density: str
    remaining: int | None
    kind: str
    side: str | None


@dataclass(frozen=True, slots=True)
class MetObservation:
    side: str
    period: int
    periods: int
    phase: str
    to_act: str
    wind_from: float
    wind_knots: float
    rain: bool
    own: tuple[ElementView, ...]
    enemy: tuple[ElementView, ...]
    own_blinds: tuple[BlindView, ...]
    enemy_blinds: tuple[BlindView, ...]
    screens: tuple[ScreenView, ...]
    fires: tuple[tuple[str, int], ...]
    morale: tuple[tuple[str, int], ...]
    objectives: tuple[tuple[str, str | None], ...]
    own_orders: tuple[str, ...]


def _coords(polygon) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in polygon.exterior.coords)


def observe(state, side: str) -> MetObservation:
    """The observation of ``side`` (a side id of the state's scenario)."""
    if side not in state.table.sides:
        from engine.errors import FireplanError

        raise FireplanError(f"unknown side {side!r}: expected one of {', '.join(state.table.sides)}")
    own, enemy = [], []
    for e in state.elements.values():
        if not e.alive:
            continue
        cover = bool(e.on_table and state.in_cover(e.id))
        position = None if e.position is None else (float(e.position[0]), float(e.position[1]))
        if e.side == side:
            own.append(
                ElementView(
                    e.id, e.side, e.name, position, float(e.facing), str(e.status), cover, e.blind,
                    None if e.dischargers is None else str(e.dischargers),
                    None if e.launcher is None else str(e.launcher),
                    None if e.grenades is None else str(e.grenades),
                )
            )
        elif e.on_table and e.blind is None:
            enemy.append(ElementView(e.id, e.side, e.name, position, float(e.facing), str(e.status), cover))
    own_blinds = tuple(
        BlindView(b.id, b.owner, (float(b.position[0]), float(b.position[1])), bool(b.dummy))
        for b in state.blinds.values()
        if b.owner == side
    )
    enemy_blinds = tuple(
        BlindView(b.id, b.owner, (float(b.position[0]), float(b.position[1])), None)
        for b in state.blinds.values()
        if b.owner != side
    )
    screens = []
    for ms in state.screens:
        if ms.screen.is_gone:
            continue
        remaining = None if ms.until_movement_of else int(ms.screen.remaining)
        screens.append(ScreenView(_coords(ms.screen.polygon), str(ms.screen.density), remaining, ms.kind, ms.side))
    for feature_id, (burning, _) in state.fires.items():
        from .fires import fire_screen

        screen = fire_screen(state.table.features[feature_id].geometry, burning, state.table.wind_from, state.rules)
        screens.append(ScreenView(_coords(screen.polygon), str(screen.density), int(screen.remaining), "fire", None))
    from .fires import fire_fn

    return MetObservation(
        side=side,
        period=int(state.period),
        periods=int(state.periods),
        phase=state.phase,
        to_act=state.current_player(),
        wind_from=float(state.table.wind_from),
        wind_knots=float(state.table.wind_knots),
        rain=bool(state.table.rain),
        own=tuple(own),
        enemy=tuple(enemy),
        own_blinds=own_blinds,
        enemy_blinds=enemy_blinds,
        screens=tuple(screens),
        fires=tuple((fid, int(fire_fn(b.age, state.rules))) for fid, (b, _) in state.fires.items()),
        morale=tuple(sorted((s, int(v)) for s, v in state.morale.items())),
        objectives=tuple(sorted(state.holders.items())),
        own_orders=tuple(str(order) for s, order in state.orders if s == side),
    )
