"""Planner hooks of a CHQ state: exact threat of one unit to another, smoke options.

The planners never judge fire themselves: ``threat`` is the exact expected
Disruption from ``fire.py`` and ``smoke_options`` lists the screens the rules
allow now, with exact deviation outcomes (see ``ChqState``'s docstring).
"""

from __future__ import annotations

from fractions import Fraction

from engine.geometry import Density, Screen
from engine.options import SmokeOption

from . import artillery as art
from .actions import Smoke
from .combat import PendingFire, expected_disruption
from .fire import comms_odds
from .orders import artillery_fire_on, fire_params

__all__ = ["threat", "smoke_options", "smoke_life_ticks"]


def threat(state, firer_id: str, target_id: str) -> float:
    """Exact expected Disruption of ``firer_id``'s best fire at ``target_id`` now (0.0 if none).

    A unit: the better of its direct and indirect fire as the rules allow them
    now (sight, range, smoke, cover, CHQ-11), ignoring whose pulse it is. A
    battery: a Regular single mission aimed at the target's centre, counting
    only an immediate arrival: P(Comms Check) x the sum over the exact
    deviation outcomes of the expected Disruption when the target is still
    under the template.
    """
    facts = state.facts
    if firer_id not in facts.units or target_id not in facts.units:
        return 0.0
    if state.units[target_id].pos is None:
        return 0.0
    f = facts.units[firer_id]
    if f.battery:
        aim = state.units[target_id].pos
        if not state.observers_of_point(f.side, aim, clear=not facts.s("fo_through_smoke")):
            return 0.0
        mission = art.Mission(0, f.side, (firer_id,), "single", "regular", aim, 0.0, None, "comms", aim)
        total = Fraction(0)
        base = state.base(target_id)
        for deviation, p in art.deviation_outcomes(facts):
            dx, dy = deviation.offset
            template = art.make_template(facts, (aim[0] + dx, aim[1] + dy), "regular")
            if not base.intersects(template.polygon):
                continue
            fire = artillery_fire_on(state, mission, template, target_id, False)
            if fire is not None:
                total += p * expected_disruption(facts, fire)
        return float(comms_odds(facts.sides[f.side].comms_dice, rules=facts.rules) * total)
    if state.units[firer_id].pos is None:
        return 0.0
    best = Fraction(0)
    for indirect in (False, True):
        fire = fire_params(state, firer_id, target_id, indirect, penalty=0)
        if isinstance(fire, PendingFire):
            best = max(best, expected_disruption(facts, fire))
    return float(best)


def smoke_life_ticks(state) -> int:
    """Ticks (pulses and Logistics Phases) a screen called in one's own pulse lasts if it arrives
    at once: the rest of this pulse (CHQ-23 reading); with smoke_extra_pulse also the own
    Logistics Phase, the enemy's pulse and phase, and the own next pulse."""
    return 5 if state.facts.s("smoke_extra_pulse") else 1


def smoke_options(state, side: str) -> list[SmokeOption]:
    """Battery smoke missions ``side`` may call now, on the lattice and in every canonical bearing."""
    from .decisions import _free_batteries, _mission_problem, _seen_aims

    facts = state.facts
    if state.pulse is None or state.pulse.side != side or state.staff[side] < 1:
        return []
    deviation = tuple(((d.offset[0], d.offset[1]), p) for d, p in art.deviation_outcomes(facts))
    p_comms = comms_odds(facts.sides[side].comms_dice, rules=facts.rules)
    density = Density(facts.s("smoke_density"))
    life = smoke_life_ticks(state)
    options = []
    for battery in _free_batteries(state, side):
        if not facts.units[battery].smoke:
            continue
        for point in _seen_aims(state, side):
            for bearing in facts.s("smoke_bearings"):
                action = Smoke(battery, point, bearing)
                if _mission_problem(state, side, (battery,), action.at, None, True) is not None:
                    continue
                screen = Screen(art.smoke_polygon(facts, action.at, action.bearing), (density,), 0, f"{battery} smoke")
                options.append(
                    SmokeOption(
                        actions=(action,),
                        screens=tuple((screen,) for _ in range(life)),
                        resources=((battery, 1), ("staff_orders", 1)),
                        deviation=deviation,
                        label=f"{action} (comms {float(p_comms):.0%})",
                        source="chq battery smoke",
                    )
                )
    return options
