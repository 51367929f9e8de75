"""Planner hooks of the MET state: exact threat and the smoke options of each phase.

:class:`~engine.rulesets.met.game.MetState` exposes these as ``state.threat``,
``state.exact_threat`` and ``state.smoke_options``; see its docstring for what they mean.
They read the state and never change it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import shapely

from engine.errors import FireplanError
from engine.geometry import Density, Screen, rectangle
from engine.options import SmokeOption
from engine.sight import SightStatus

from .actions import DirectSmoke, Discharge, Grenade, Mission
from .deviation import deviation_distribution
from .direct_smoke import direct_smoke_densities, direct_smoke_landing, direct_smoke_polygon
from .dischargers import discharger_screen, grenade_screen, launcher_screen
from .resolution import fire_number, hit_probability
from .smoke import WindBand, wind_band

__all__ = ["exact_threat", "smoke_options", "PHASES"]

#: The decision phases of a period.
PHASES = ("move", "fire", "artillery")


def exact_threat(state, firer_id: str, target_id: str) -> Fraction:
    """Exact probability that the firer's fire hits the target now (0 when it cannot fire at it)."""
    firer, target = state.elements.get(firer_id), state.elements.get(target_id)
    if firer is None or target is None or not firer.alive or not target.alive or not target.on_table:
        return Fraction(0)
    if target.blind is not None:
        return Fraction(0)
    picture = state._picture()
    if firer.is_battery:
        cover = state.in_cover(target.id) and state.rules.setting("artillery_cover_applies")
        p_hit = hit_probability(fire_number(int(firer.card.get("fn", 0)), False, cover, state.rules))
        zone = state.beaten_zone(firer)
        lof = state.table.line_of_fire[firer.side]
        p_in = Fraction(0)
        for deviation, p in deviation_distribution(rules=state.rules).items():
            dx, dy = deviation.offset
            # the target is under the zone centred on poa + (dx, dy) iff it is within the zone
            # centred on the target shifted back: test the target point against one rectangle
            if rectangle((target.position[0] + dx, target.position[1] + dy), *zone, lof).covers(
                shapely.Point(target.position)
            ):
                p_in += p
        return p_in * p_hit
    if not firer.on_table or not firer.can_act or firer.side == target.side:
        return Fraction(0)
    if state._shot_problem(picture, firer, target) is not None:
        return Fraction(0)
    fn = fire_number(
        firer.fn_against(target),
        partial_smoke=picture.sees(firer.id, target.id) == SightStatus.PARTIAL,
        in_cover=state.in_cover(target.id),
        rules=state.rules,
    )
    return hit_probability(fn)


def smoke_options(state, side: str, phase: str | None = None) -> list[SmokeOption]:
    """Screens ``side`` may lay in ``phase`` (default: the current one)."""
    phase = phase or state.phase
    if phase not in PHASES:
        raise FireplanError(f"phase must be one of {', '.join(PHASES)}, got {phase!r}")
    if state.over:
        return []
    if phase == "artillery":
        return _battery_smoke_options(state, side)
    if phase == "move":
        return _device_smoke_options(state, side)
    return _direct_smoke_options(state, side)


def _battery_smoke_options(state, side: str) -> list[SmokeOption]:
    if wind_band(state.table.wind_knots, state.rules) is WindBand.TOO_STRONG:
        return []
    deviation = tuple((d.offset, p) for d, p in deviation_distribution(rules=state.rules).items())
    options = []
    points = None
    for battery in state._batteries(side):
        if not battery.card.get("smoke") or battery.ordered:
            continue
        points = points if points is not None else state.aim_points(side)
        for point in points:
            laying = state.battery_smoke(battery, point)
            per_period = laying.screens(f"smoke {battery.id}")
            ticks = [tuple(s for s in per_period)]  # the rest of this period: first density
            for tick in range(laying.life):
                ticks.append(tuple(s.aged(tick) for s in per_period if tick < len(s.densities)))
            options.append(
                SmokeOption(
                    actions=(Mission(battery.id, "smoke", *point),),
                    screens=tuple(ticks),
                    resources=((battery.id, 1),),
                    deviation=deviation,
                    label=f"{battery.id} smoke at {point[0]:g},{point[1]:g}",
                    source="MET-1",
                )
            )
    return options


def _device_smoke_options(state, side: str) -> list[SmokeOption]:
    options = []
    second = side == state.table.sides[1]
    for e in state._own(side):
        if not state._may_still_move(e):
            continue
        for action in state._device_actions(e):
            if isinstance(action, Discharge):
                polygon, kind = discharger_screen(e.position, e.facing, e.base, action.face, state.rules), "dischargers"
            elif isinstance(action, Grenade):
                polygon, kind = grenade_screen(e.position, e.facing, e.base, action.face, state.rules), "grenades"
            else:
                polygon, kind = launcher_screen(e.position, action.point, state.rules), "launcher"
            screen = Screen(polygon, (Density.FULL,), 0, f"{kind} {e.id}")
            ticks = ((screen,), (screen,)) if second else ((screen,),)
            options.append(
                SmokeOption(
                    actions=(action,),
                    screens=ticks,
                    resources=((f"{kind}:{e.id}", 1),),
                    label=str(action),
                    source="MET-7" if kind == "dischargers" else ("MET-12" if kind == "grenades" else "MET-10"),
                )
            )
    return options


def _direct_smoke_options(state, side: str) -> list[SmokeOption]:
    options = []
    picture = state._picture()
    densities = direct_smoke_densities(state.table.wind_knots, state.table.rain, "BE", state.rules)
    for action in state._fire_actions(side):
        if not isinstance(action, DirectSmoke):
            continue
        e = state.elements[action.element]
        polygon = direct_smoke_polygon(e.position, action.point, state.rules)
        if densities is None:
            screen = Screen(polygon, (Density.FULL,), 0, f"smoke round {e.id}")
            ticks = ((screen,), (screen,)) if side == state.table.sides[1] else ((screen,),)
        elif not densities:
            continue
        else:
            screen = Screen(polygon, densities, 0, f"smoke round {e.id}")
            ticks = ((screen,),) + tuple((screen.aged(t),) for t in range(len(densities)))
        partial = any(picture.sees(e.id, ref) == SightStatus.PARTIAL for ref, _ in state._smoke_references(picture, e, action.point) if ref in picture.rows)
        landing = direct_smoke_landing(math.dist(e.position, action.point), partial, state.rules)
        options.append(
            SmokeOption(
                actions=(action,),
                screens=ticks,
                resources=((f"gun:{e.id}", 1),),
                deviation=tuple((d.offset, p) for d, p in landing.items()),
                label=str(action),
                source="MET-13",
            )
        )
    return options
