"""The MET table as one side knows it, as a ruleset-neutral ``engine.view.TableView``.

Built from ``observation(side)`` only, so a picture never shows what the side
may not know; the umpire's view (``side=None``) joins both sides' own views.
"""

from __future__ import annotations

import shapely

from engine.geometry import footprint
from engine.view import AreaView, PieceView, TableView

__all__ = ["table_view"]


def _base(state, element):
    width, depth = state.scenario.ruleset.card(element.card).get("base", (10, 10))
    if width <= 0 or depth <= 0:
        return None
    return footprint(element.position, width, depth, element.facing)


def _pieces(state, elements, blinds, dummies_known: bool):
    pieces = []
    for element in elements:
        if element.position is None:
            continue
        status = "" if element.status in ("ok", "fresh", "none", "") else element.status
        if element.blind:
            status = ", ".join(filter(None, [status, "under blind"]))
        pieces.append(PieceView(element.id, element.side, "unit", element.position, element.card,
                                _base(state, element), element.facing, status))
    for blind in blinds:
        pieces.append(PieceView(blind.id, blind.owner, "blind", blind.position, "blind",
                                dummy=blind.dummy if dummies_known else None))
    return pieces


def table_view(state, side: str | None = None) -> TableView:
    sides = state.table.sides if side is None else (side,)
    pieces = []
    for viewer in sides:
        observation = state.observation(viewer)
        pieces += _pieces(state, observation.own, observation.own_blinds, True)
        if side is not None:
            pieces += _pieces(state, observation.enemy, observation.enemy_blinds, False)
    areas = tuple(
        AreaView("fire" if screen.kind == "fire" else "screen", shapely.Polygon(screen.polygon), screen.density,
                 screen.kind)
        for screen in observation.screens
    )
    who = "umpire's view" if side is None else f"as {state.scenario.side(side).name} knows it"
    caption = (f"{state.scenario.name}, period {observation.period} of {observation.periods}, {who}; "
               f"wind from {observation.wind_from:g}° at {observation.wind_knots:g} kts{', rain' if observation.rain else ''}")
    return TableView(state.scenario, side, caption, tuple(pieces), areas, tuple(observation.objectives))
