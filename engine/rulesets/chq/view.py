"""The CHQ table as one side knows it, as a ruleset-neutral ``engine.view.TableView``.

Built from ``observation(side)`` only, so a picture never shows what the side
may not know; the umpire's view (``side=None``) joins both sides' own views.
"""

from __future__ import annotations

from engine.view import AreaView, PieceView, TableView

from . import artillery as art

__all__ = ["table_view"]


def _status(unit) -> str:
    words = []
    if unit.disruption:
        words.append(f"{unit.disruption} DP")
    if unit.suppressed:
        words.append("suppressed")
    if unit.hidden:
        words.append("under blind")
    return ", ".join(words)


def _pieces(state, observation, units, blinds, dummies_known: bool):
    facts = state.facts
    pieces = []
    for unit in units:
        if unit.position is None:
            continue
        side = facts.units[unit.id].side
        pieces.append(
            PieceView(unit.id, side, "unit", unit.position, unit.card, facts.base_of(unit.id, unit.position, unit.facing),
                      unit.facing, _status(unit))
        )
    for blind in blinds:
        owner = facts.blinds[blind.id].owner
        pieces.append(PieceView(blind.id, owner, "blind", blind.position, "blind", dummy=blind.dummy if dummies_known else None))
    return pieces


def _areas(state, missions):
    facts = state.facts
    areas = []
    for mission in missions:
        if mission.centre is None:
            continue
        label = f"{'+'.join(mission.batteries)} {mission.kind}"
        if mission.status == "screen":
            areas.append(AreaView("screen", art.smoke_polygon(facts, mission.centre, mission.bearing), "partial", label))
        elif mission.status == "active":
            template = art.make_template(facts, mission.centre, mission.sheaf, mission.bearing)
            areas.append(AreaView("template", template.polygon, None, label))
    return areas


def table_view(state, side: str | None = None) -> TableView:
    sides = state.facts.side_ids if side is None else (side,)
    pieces, areas, seen_missions = [], [], set()
    for viewer in sides:
        observation = state.observation(viewer)
        pieces += _pieces(state, observation, observation.own_units, observation.own_blinds, True)
        if side is not None:
            pieces += _pieces(state, observation, observation.enemy_units, observation.enemy_blinds, False)
        for mission in observation.own_missions + observation.enemy_missions:
            if mission not in seen_missions:
                seen_missions.add(mission)
                areas += _areas(state, [mission])
        holders = observation.objectives
    who = "umpire's view" if side is None else f"as {state.scenario.side(side).name} knows it"
    caption = f"{state.scenario.name}, turn {state.turn}, {who}"
    return TableView(state.scenario, side, caption, tuple(pieces), tuple(areas), tuple(holders))
