"""``fireplan smoke``: where a smoke screen will lie and how dense it is in each period.

Each ruleset is a nested sub-command (``fireplan smoke met ...``) added by a function in
``RULESET_COMMANDS``. The screen comes from the ruleset's engine module
(:func:`engine.rulesets.met.smoke.artillery_smoke`); this module only parses, checks,
prints and draws.

Examples
--------
::

    fireplan smoke met --poa 500,500 --line-of-fire 0 --wind-from 270 --wind-kts 10
    fireplan smoke met --poa 500,500 --line-of-fire 0 --wind-from 270 --wind-kts 10 --rain --json
    fireplan smoke met --poa 500,500 --line-of-fire 45 --wind-from 200 --wind-kts 3 --png calm.png
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, Callable

from engine.errors import FireplanError

from engine.geometry import Density, bearing_vector
from engine.rulesets import load_ruleset
from engine.rulesets.met.smoke import SMOKE_TYPES, SmokeLaying, WindBand, artillery_smoke

from .args import OneLineParser

__all__ = ["register", "register_met", "RULESET_COMMANDS", "smoke_report", "draw_smoke"]




# ---------------------------------------------------------------- argument types
def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected {what} (a finite number), got {text!r}")
    return value


def _point(text: str) -> tuple[float, float]:
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"expected a point X,Y in metres (e.g. 500,500), got {text!r}")
    return (_number(parts[0].strip(), "a point X,Y in metres"), _number(parts[1].strip(), "a point X,Y in metres"))


def _bearing(text: str) -> float:
    value = _number(text, "a bearing in degrees (0-360, clockwise from north)")
    if not 0.0 <= value <= 360.0:
        raise argparse.ArgumentTypeError(f"expected a bearing from 0 to 360 degrees, got {text!r}")
    return value % 360.0


def _knots(text: str) -> float:
    value = _number(text, "a wind speed in knots")
    if value < 0 or value > 200:
        raise argparse.ArgumentTypeError(f"expected a wind speed from 0 to 200 knots, got {text!r}")
    return value


def _zone(text: str) -> tuple[float, float]:
    parts = text.lower().split("x")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"expected a beaten zone WIDTHxDEPTH in metres (e.g. 200x100), got {text!r}")
    width = _number(parts[0].strip(), "a beaten zone WIDTHxDEPTH in metres")
    depth = _number(parts[1].strip(), "a beaten zone WIDTHxDEPTH in metres")
    if width <= 0 or depth <= 0 or width > 100_000 or depth > 100_000:
        raise argparse.ArgumentTypeError(f"expected a beaten zone of positive metres (at most 100000), got {text!r}")
    return (width, depth)


def _smoke_type(text: str) -> str:
    value = text.upper()
    if value not in SMOKE_TYPES:
        raise argparse.ArgumentTypeError(f"expected BE or WP, got {text!r}")
    return value


# ---------------------------------------------------------------- registration
def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "smoke",
        help="where a smoke screen will lie and how dense it is in each period",
        description="Where an artillery smoke screen will lie and how dense it is in each period, for a wind and rain.",
    )
    rulesets = parser.add_subparsers(dest="ruleset", metavar="RULESET", required=True, parser_class=OneLineParser)
    for add_ruleset in RULESET_COMMANDS:
        add_ruleset(rulesets)


def register_met(rulesets: argparse._SubParsersAction) -> None:
    """``fireplan smoke met``: one battery's smoke mission (MET-1 .. MET-6)."""
    rules = load_ruleset("met")
    width, depth = rules.setting("beaten_zone")
    parser = rulesets.add_parser(
        "met",
        help=f"{rules.title} (MET)",
        description=(
            "A MET artillery smoke screen: bearings in degrees clockwise from north, x east, y north, metres. "
            "The screen turns to the wind over 5 knots (MET-3), its density by period follows the wind table "
            "(MET-4, MET-5) and rain (MET-6); over 30 knots it cannot be laid."
        ),
    )
    parser.add_argument("--poa", type=_point, required=True, metavar="X,Y", help="point of aim (where the smoke lands), metres")
    parser.add_argument("--line-of-fire", type=_bearing, required=True, metavar="DEG", help="bearing of the battery's line of fire")
    parser.add_argument("--wind-from", type=_bearing, required=True, metavar="DEG", help="bearing the wind blows from")
    parser.add_argument("--wind-kts", type=_knots, required=True, metavar="K", help="wind speed in knots")
    parser.add_argument("--rain", action="store_true", help="it is raining (MET-6)")
    parser.add_argument("--type", type=_smoke_type, default="BE", metavar="BE|WP", help="smoke round: base ejection or white phosphorus (default BE)")
    parser.add_argument(
        "--beaten-zone", type=_zone, default=(float(width), float(depth)), metavar="WxD",
        help=f"beaten zone width (across the line of fire) x depth (along it), metres (default {width}x{depth})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--png", type=Path, metavar="FILE", help="draw the screen period by period into a PNG file")
    parser.set_defaults(run=_run_met)


RULESET_COMMANDS: tuple[Callable[[argparse._SubParsersAction], None], ...] = (register_met,)


# ---------------------------------------------------------------- running
def _laying(args: argparse.Namespace) -> SmokeLaying:
    return artillery_smoke(
        args.poa, args.line_of_fire, args.beaten_zone, args.wind_from, args.wind_kts, args.rain, args.type, load_ruleset("met")
    )


def _run_met(args: argparse.Namespace) -> int:
    if args.png is not None:
        if args.png.suffix.lower() != ".png":
            raise FireplanError(f"--png expects a file name ending in .png, got {str(args.png)!r}")
        if not args.png.parent.exists():
            raise FireplanError(f"--png: the folder {str(args.png.parent)!r} does not exist")
    laying = _laying(args)
    inputs = {
        "poa": list(args.poa),
        "line_of_fire": args.line_of_fire,
        "wind_from": args.wind_from,
        "wind_kts": args.wind_kts,
        "rain": args.rain,
        "type": args.type,
        "beaten_zone": list(args.beaten_zone),
    }
    report = smoke_report(laying, inputs)
    if args.png is not None:
        draw_smoke(laying, inputs, args.png)
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(laying, inputs, report)
        if args.png is not None:
            print(f"wrote {args.png}")
    return 0


def _clean(value: float) -> float:
    value = round(float(value), 6)
    return 0.0 if value == 0 else value


def _geojson(polygon) -> dict[str, Any]:
    return {"type": "Polygon", "coordinates": [[[_clean(x), _clean(y)] for x, y in polygon.exterior.coords]]}


_RULE_OF_BAND = {
    WindBand.CALM: "MET-5",
    WindBand.NORMAL: "MET-4",
    WindBand.STRONG: "MET-5",
    WindBand.TOO_STRONG: "MET-5",
}


def smoke_report(laying: SmokeLaying, inputs: dict[str, Any]) -> dict[str, Any]:
    """The JSON object: ``laid`` (with ``reason`` when False) and ``periods`` from the period of laying.

    Each period lists its screens (adjacent parts of equal density merged) as
    ``{"density", "polygon"}`` with a GeoJSON Polygon; the last entry is the period the
    screen is gone, with no screens.
    """
    report: dict[str, Any] = {"ruleset": "met", "inputs": inputs, "laid": laying.laid}
    report["wind_band"] = laying.band.value
    report["rule"] = _RULE_OF_BAND[laying.band]
    if not laying.laid:
        report["reason"] = laying.reason
        report["periods"] = []
        return report
    periods = [
        {"period": n, "screens": [{"density": density.value, "polygon": _geojson(polygon)} for density, polygon in screens]}
        for n, screens in enumerate(laying.by_period(), start=1)
    ]
    periods.append({"period": len(periods) + 1, "screens": []})
    report["periods"] = periods
    return report


def _print_table(laying: SmokeLaying, inputs: dict[str, Any], report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False, soft_wrap=True)
    x, y = inputs["poa"]
    weather = "rain" if inputs["rain"] else "dry"
    width, depth = inputs["beaten_zone"]
    console.print(
        f"[bold]MET smoke ({inputs['type']}, {weather}):[/bold] POA {x:g},{y:g}, line of fire {inputs['line_of_fire']:g}°, "
        f"beaten zone {width:g} x {depth:g} m, wind from {inputs['wind_from']:g}° at {inputs['wind_kts']:g} kts "
        f"({laying.band.value}, {report['rule']})"
    )
    if not laying.laid:
        console.print(f"No screen: {laying.reason}.")
        return
    table = Table(
        title="Screen by period (period 1 = the period of laying; axis: bearing of the screen's long axis)",
        title_justify="left",
    )
    table.add_column("period", justify="right")
    table.add_column("density")
    table.add_column("area m²", justify="right")
    table.add_column("axis", justify="right")
    table.add_column("centre", justify="right")
    for n, screens in enumerate(laying.by_period(), start=1):
        for density, polygon in screens:
            centre = polygon.centroid
            table.add_row(
                str(n), density.value, f"{polygon.area:,.0f}", f"{laying.axis % 180.0:.0f}°",
                f"{centre.x:.0f},{centre.y:.0f}",
            )
    table.add_row(str(laying.life + 1), "gone", "", "", "")
    console.print(table)


# ---------------------------------------------------------------- drawing
_COLOURS = {Density.PARTIAL: "#b8b8b8", Density.FULL: "#4a4a4a"}


def draw_smoke(laying: SmokeLaying, inputs: dict[str, Any], path: Path) -> None:
    """Small multiples of the screen, one panel a period: north and wind arrows, POA, scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Polygon as Patch

    periods = laying.by_period() if laying.laid else []
    panels = len(periods) + 1
    columns = min(panels, 3)
    rows = math.ceil(panels / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.0 * columns, 4.0 * rows), squeeze=False)
    x, y = inputs["poa"]
    zone = laying.zone
    extent = [zone.bounds]
    for screens in periods:
        extent.extend(polygon.bounds for _, polygon in screens)
    x0 = min(b[0] for b in extent)
    y0 = min(b[1] for b in extent)
    x1 = max(b[2] for b in extent)
    y1 = max(b[3] for b in extent)
    span = max(x1 - x0, y1 - y0, 1.0)
    margin = 0.25 * span
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    half = span / 2 + margin
    downwind = (inputs["wind_from"] + 180.0) % 360.0
    for index in range(rows * columns):
        ax = axes[index // columns][index % columns]
        if index >= panels:
            ax.axis("off")
            continue
        ax.set_xlim(cx - half, cx + half)
        ax.set_ylim(cy - half, cy + half)
        ax.set_aspect("equal")
        ax.tick_params(labelsize=7)
        ax.add_patch(Patch(list(zone.exterior.coords), closed=True, fill=False, linestyle="--", edgecolor="#1f77b4", linewidth=1))
        if index < len(periods):
            for density, polygon in periods[index]:
                ax.add_patch(
                    Patch(list(polygon.exterior.coords), closed=True, facecolor=_COLOURS[density], edgecolor="black",
                          alpha=0.85, hatch="//" if density is Density.PARTIAL else None, linewidth=0.8)
                )
            title = f"period {index + 1}: " + ", ".join(sorted({d.value for d, _ in periods[index]}))
        else:
            title = f"period {index + 1}: gone" if laying.laid else "no screen"
            if not laying.laid:
                ax.text(cx, cy - half * 0.6, laying.reason, ha="center", va="center", fontsize=7, wrap=True)
        ax.set_title(title, fontsize=9)
        ax.plot([x], [y], marker="+", color="red", markersize=10, markeredgewidth=2)
        # north arrow (top left) and wind arrow (top right)
        ax.annotate("N", xy=(cx - half * 0.8, cy + half * 0.85), xytext=(cx - half * 0.8, cy + half * 0.55),
                    ha="center", fontsize=8, arrowprops=dict(arrowstyle="-|>", color="black"))
        wx, wy = bearing_vector(downwind)
        ax_, ay_ = cx + half * 0.6, cy + half * 0.72
        ax.annotate("", xy=(ax_ + wx * half * 0.2, ay_ + wy * half * 0.2), xytext=(ax_ - wx * half * 0.2, ay_ - wy * half * 0.2),
                    arrowprops=dict(arrowstyle="-|>", color="#1f77b4", linewidth=2, mutation_scale=15))
        ax.text(ax_, ay_ - half * 0.3, f"wind {inputs['wind_kts']:g} kts", ha="center", fontsize=7, color="#1f77b4")
        scale = _scale_length(half)
        ax.plot([cx - half * 0.9, cx - half * 0.9 + scale], [cy - half * 0.9] * 2, color="black", linewidth=2)
        ax.text(cx - half * 0.9 + scale / 2, cy - half * 0.85, f"{scale:g} m", ha="center", fontsize=7)
    weather = "rain" if inputs["rain"] else "dry"
    fig.suptitle(
        f"MET {inputs['type']} smoke, wind from {inputs['wind_from']:g}° at {inputs['wind_kts']:g} kts, {weather} "
        f"(dashed: beaten zone; grey hatched: partial; dark: full)",
        fontsize=10,
    )
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=90)
    except OSError as error:
        raise FireplanError(f"--png: cannot write {str(path)!r} ({error.strerror or error})") from None
    finally:
        plt.close(fig)


def _scale_length(half: float) -> float:
    target = half * 0.5
    magnitude = 10 ** math.floor(math.log10(target))
    for step in (5, 2, 1):
        if step * magnitude <= target:
            return float(step * magnitude)
    return float(magnitude)
