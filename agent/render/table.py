"""Drawing the table: terrain, objectives, screens by density, templates, units and blinds.

``render_table`` draws exactly what a ``TableView`` holds, so a picture made
for one side never shows what that side may not know. Matplotlib's Agg
backend is used: no screen is needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Circle, FancyArrow, Polygon as PolygonPatch, Rectangle  # noqa: E402
from shapely.geometry.base import BaseGeometry  # noqa: E402

from engine.errors import FireplanError  # noqa: E402
from engine.view import TableView  # noqa: E402

__all__ = ["render_table", "render_panels", "draw_table", "SIDE_COLOURS", "SightLineDrawing", "RouteDrawing"]

SIDE_COLOURS = ("#1f5fbf", "#c0392b")
TERRAIN_STYLE = {
    "woods": dict(facecolor="#6aa84f", edgecolor="#38761d", alpha=0.55),
    "buildings": dict(facecolor="#b08d6e", edgecolor="#6b4f3a", alpha=0.8),
    "hill": dict(facecolor="#e6d3a3", edgecolor="#a68b4f", alpha=0.7),
    "field": dict(facecolor="#f3f0c8", edgecolor="#c9c38a", alpha=0.6),
    "road": dict(facecolor="#bdbdbd", edgecolor="#8a8a8a", alpha=0.9),
    "river": dict(facecolor="#6fa8dc", edgecolor="#3d85c6", alpha=0.9),
    "hedge": dict(facecolor="#274e13", edgecolor="#274e13", alpha=0.9),
}
SCREEN_STYLE = {
    "partial": dict(facecolor="#9e9e9e", edgecolor="#616161", alpha=0.35, hatch="//"),
    "full": dict(facecolor="#424242", edgecolor="#212121", alpha=0.7),
}
FORMATS = (".png", ".svg")

#: (start, end, style) with style "clear", "partial" (through smoke) or "blocked".
SightLineDrawing = tuple[tuple[float, float], tuple[float, float], str]
#: A route: the points a unit passes through, in order, and the arrow colour.
RouteDrawing = tuple[Sequence[tuple[float, float]], str]


def _outlines(geometry: BaseGeometry) -> Iterable:
    for polygon in getattr(geometry, "geoms", [geometry]):
        if polygon.geom_type == "Polygon" and not polygon.is_empty:
            yield polygon


def _fill(ax, geometry: BaseGeometry, zorder: int, **style) -> None:
    for polygon in _outlines(geometry):
        ax.add_patch(PolygonPatch(list(polygon.exterior.coords), closed=True, zorder=zorder, **style))
        for hole in polygon.interiors:
            ax.add_patch(PolygonPatch(list(hole.coords), closed=True, facecolor="white", edgecolor="none", zorder=zorder))


def _nice_length(span: float) -> float:
    """A round scale-bar length of about a fifth of the table."""
    target = span / 5
    magnitude = 10 ** int(f"{target:e}".split("e")[1])
    for step in (1, 2, 5, 10):
        if step * magnitude >= target:
            return step * magnitude
    return 10 * magnitude


def _furniture(ax, scenario) -> None:
    """Scale bar and north arrow, in the south-west and north-east corners."""
    width, depth, unit = scenario.width, scenario.depth, scenario.length_unit
    length = _nice_length(width)
    x0, y0 = width * 0.03, depth * 0.03
    ax.add_patch(Rectangle((x0, y0), length, depth * 0.008, color="black", zorder=20))
    label = f"{length:g} in" if unit == "in" else f"{length:g} m"
    ax.text(x0 + length / 2, y0 + depth * 0.02, label, ha="center", va="bottom", fontsize=8, zorder=20)
    ax_x, ax_y, arrow = width * 0.96, depth * 0.85, depth * 0.09
    ax.add_patch(FancyArrow(ax_x, ax_y, 0, arrow, width=width * 0.004, head_width=width * 0.018,
                            head_length=arrow * 0.35, length_includes_head=True, color="black", zorder=20))
    ax.text(ax_x, ax_y - depth * 0.015, "N", ha="center", va="top", fontsize=9, weight="bold", zorder=20)


def render_table(
    view: TableView,
    path: str | Path,
    *,
    sight_lines: Sequence[SightLineDrawing] = (),
    routes: Sequence[RouteDrawing] = (),
    width_inches: float = 10.0,
    dpi: int = 100,
) -> Path:
    """Draw ``view`` to ``path`` (.png or .svg) and return the path.

    The figure is ``width_inches`` wide and as deep as the table's proportions
    ask, at ``dpi`` dots per inch.
    """
    return render_panels([(view, sight_lines, routes)], path, width_inches=width_inches, dpi=dpi)


def render_panels(panels: Sequence[tuple], path: str | Path, *, width_inches: float = 10.0, dpi: int = 100) -> Path:
    """Several views of one table side by side (two to a row), e.g. the top plans of ``advise``:
    each panel is ``(view, sight_lines, routes)``."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise FireplanError(f"{path}: expected a file name ending in .png or .svg")
    if not panels:
        raise ValueError("render_panels needs at least one panel")
    scenario = panels[0][0].scenario
    columns = 1 if len(panels) == 1 else 2
    rows = -(-len(panels) // columns)
    aspect = scenario.depth / scenario.width
    panel_height = max(2.0, width_inches * aspect) + 0.8
    fig, axes = plt.subplots(rows, columns, figsize=(width_inches * columns, panel_height * rows), dpi=dpi, squeeze=False)
    try:
        for ax, (view, sight_lines, routes) in zip(axes.flat, panels):
            draw_table(ax, view, sight_lines=sight_lines, routes=routes)
        for ax in list(axes.flat)[len(panels):]:
            ax.set_visible(False)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path)
    finally:
        plt.close(fig)
    return path


def draw_table(ax, view: TableView, *, sight_lines: Sequence[SightLineDrawing] = (), routes: Sequence[RouteDrawing] = ()) -> None:
    """Draw ``view`` on ``ax``: terrain, objectives, screens and templates, sight lines, routes
    (arrows from a unit's place through its moves), pieces, scale bar and north arrow."""
    scenario = view.scenario
    ax.set_xlim(0, scenario.width)
    ax.set_ylim(0, scenario.depth)
    ax.set_aspect("equal")
    ax.add_patch(Rectangle((0, 0), scenario.width, scenario.depth, facecolor="#f7f5ec", edgecolor="black", zorder=0))
    for feature in scenario.terrain:
        _fill(ax, feature.geometry, 1, **TERRAIN_STYLE.get(feature.kind, TERRAIN_STYLE["field"]))
        if feature.name:
            point = feature.geometry.representative_point()
            ax.text(point.x, point.y, feature.name, fontsize=7, ha="center", va="center", style="italic",
                    color="#333333", zorder=2)
    holders = dict(view.holders)
    side_index = {side.id: index for index, side in enumerate(scenario.sides)}
    for objective in scenario.objectives:
        holder = holders.get(objective.id)
        colour = SIDE_COLOURS[side_index[holder]] if holder in side_index else "#7f7f7f"
        ax.add_patch(Circle(objective.position, objective.radius, facecolor="none", edgecolor=colour,
                            linestyle="--", linewidth=1.2, zorder=3))
        ax.plot(*objective.position, marker="*", markersize=12, color=colour, zorder=3)
        ax.text(objective.position[0], objective.position[1] - objective.radius, f"{objective.name or objective.id} ({objective.points})",
                fontsize=7, ha="center", va="top", zorder=3)
    for area in view.areas:
        if area.kind == "template":
            _fill(ax, area.polygon, 6, facecolor="#e06666", edgecolor="#990000", alpha=0.25, linestyle="--")
        else:
            _fill(ax, area.polygon, 6, **SCREEN_STYLE.get(area.density or "partial", SCREEN_STYLE["partial"]))
    for start, end, style in sight_lines:
        colour, line = {"clear": ("#2e7d32", "-"), "partial": ("#f9a825", "--"), "blocked": ("#9e9e9e", ":")}[style]
        ax.plot([start[0], end[0]], [start[1], end[1]], color=colour, linestyle=line, linewidth=0.8, alpha=0.8, zorder=5)
    for points, colour in routes:
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            ax.annotate("", xy=(x1, y1), xytext=(x0, y0), zorder=7,
                        arrowprops=dict(arrowstyle="-|>", color=colour, lw=1.6, alpha=0.9, shrinkA=0, shrinkB=0))
    size = max(scenario.width, scenario.depth) * 0.012
    for piece in view.pieces:
        colour = SIDE_COLOURS[side_index.get(piece.side, 0)]
        if piece.kind == "blind":
            marker = "X" if piece.dummy else "s"
            ax.plot(*piece.position, marker=marker, markersize=11, markerfacecolor="white", markeredgecolor=colour,
                    markeredgewidth=2, zorder=8)
            ax.text(piece.position[0], piece.position[1] - size * 1.8, f"{piece.id}{' (dummy)' if piece.dummy else ''}",
                    fontsize=6.5, ha="center", va="top", color=colour, zorder=10)
            continue
        else:
            if piece.base is not None:
                _fill(ax, piece.base, 9, facecolor=colour, edgecolor="black", alpha=0.85)
            else:
                ax.add_patch(Circle(piece.position, size, color=colour, zorder=9))
            text = piece.id + (f" [{piece.status}]" if piece.status else "")
        ax.text(piece.position[0], piece.position[1] + size * 1.8, text, fontsize=6.5, ha="center", va="bottom",
                color=colour, zorder=10)
    _furniture(ax, scenario)
    ax.set_title(view.caption, fontsize=10)
    ax.set_xlabel(f"x east ({scenario.length_unit})")
    ax.set_ylabel(f"y north ({scenario.length_unit})")
