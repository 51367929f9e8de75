"""Artillery smoke with the wind (MET-1 .. MET-6): where a screen lies and how dense it is.

A battery fires smoke at a point of aim (POA) with a beaten zone ``width x depth``
(across and along its line of fire). What the screen looks like depends on the wind
band (``calm_wind_max`` / ``normal_wind_max`` / ``strong_wind_max`` knots):

- **calm** (0-5 kts, MET-5): the beaten zone itself, on the line of fire, partial only,
  one period longer than normal.
- **normal / strong** (MET-3): twice the beaten zone, turned to the wind. Reading: a
  rectangle as wide as the beaten zone's shorter side (setting ``screen_width_side``),
  its long axis along the wind, from half a beaten-zone length upwind of the POA to one
  and a half lengths downwind. It is cut across the wind into three parts: ``upwind``
  (the upwind half of the turned beaten zone), ``zone`` (its downwind half) and
  ``extension`` (the added area), each with its own density schedule from the data file
  (``smoke_schedule_<band>[_rain]``). Normal wind: upwind partial throughout, the rest
  partial, full, full, partial (MET-4). Strong: the beaten zone partial, the extension
  full then partial (MET-5).
- **over 30 kts**: smoke cannot be laid (MET-5).

Rain makes BE smoke full in the period it is laid and WP behaves like BE (MET-6): the
``_rain`` schedules. Adjacent parts with the same schedule are one screen.

A schedule lists densities by period of the screen's life, the first being the period
of laying (in the game the screen lands in the artillery phase and this first density
holds through the next period's movement and fire, MET-19).

Examples
--------
>>> laying = artillery_smoke((500, 500), 0, (200, 100), wind_from=270, wind_knots=10)
>>> [round(part.polygon.area) for part in laying.parts]
[10000, 30000]
>>> [[(d.value, round(p.area)) for d, p in period] for period in laying.by_period()][:2]
[[('partial', 40000)], [('partial', 10000), ('full', 30000)]]
>>> artillery_smoke((0, 0), 0, (200, 100), 90, 35).reason
'smoke cannot be laid in a 35-knot wind: over 30 knots no screen forms (MET-5)'
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from shapely.geometry import Polygon

from engine.errors import FireplanError
from engine.geometry import Density, Screen, bearing_vector, rectangle
from engine.numbers import finite_number as _finite
from engine.rulesets import RulesetData

from .data import met_rules, schedule

__all__ = [
    "WindBand",
    "SMOKE_TYPES",
    "SmokePart",
    "SmokeLaying",
    "wind_band",
    "downwind_bearing",
    "smoke_schedules",
    "artillery_smoke",
    "long_axis_bearing",
]

#: Smoke round types (MET-6): base ejection and white phosphorus.
SMOKE_TYPES = ("BE", "WP")


class WindBand(enum.StrEnum):
    """The MET-4/5 wind table's rows."""

    CALM = "calm"
    NORMAL = "normal"
    STRONG = "strong"
    TOO_STRONG = "too strong"


def wind_band(knots: float, rules: RulesetData | None = None) -> WindBand:
    """The row of the wind table for ``knots`` (0-5 calm, 6-15 normal, 16-30 strong, 31+ too strong).

    >>> [wind_band(k).value for k in (0, 5, 5.5, 15, 16, 30, 31)]
    ['calm', 'calm', 'normal', 'normal', 'strong', 'strong', 'too strong']
    """
    rules = met_rules(rules)
    knots = _finite(knots, "wind speed")
    if knots < 0:
        raise FireplanError(f"wind speed must be 0 knots or more, got {knots:g}")
    if knots <= rules.setting("calm_wind_max"):
        return WindBand.CALM
    if knots <= rules.setting("normal_wind_max"):
        return WindBand.NORMAL
    if knots <= rules.setting("strong_wind_max"):
        return WindBand.STRONG
    return WindBand.TOO_STRONG


def downwind_bearing(wind_from: float) -> float:
    """Bearing the wind blows toward: 180 degrees from where it blows from."""
    return (_finite(wind_from, "wind direction") + 180.0) % 360.0


def smoke_schedules(band: WindBand, rain: bool, smoke_type: str = "BE", rules: RulesetData | None = None):
    """``{part: densities}`` for a wind band, rain and smoke type, from the data file."""
    rules = met_rules(rules)
    if band is WindBand.TOO_STRONG:
        return {}
    wet = bool(rain) and (smoke_type == "BE" or rules.setting("wp_in_rain_like_be"))
    name = f"smoke_schedule_{band.value}" + ("_rain" if wet else "")
    return {part: schedule(values) for part, values in rules.setting(name).items()}


@dataclass(frozen=True, slots=True)
class SmokePart:
    """One piece of a screen with one density schedule.

    ``start`` and ``end`` are metres along the downwind axis from the POA (negative
    upwind) for a screen turned to the wind; both are None for a calm beaten zone.
    """

    name: str
    polygon: Polygon
    densities: tuple[Density, ...]
    start: float | None = None
    end: float | None = None


@dataclass(frozen=True, slots=True)
class SmokeLaying:
    """Where one smoke mission's screen lies and how dense each part is, period by period.

    ``laid`` is False (with ``reason``) when the wind forbids it. ``axis`` is the
    bearing of the screen's long axis: downwind, or the line of fire's cross for a
    calm beaten zone wider than deep. ``zone`` is the battery's beaten zone on its line
    of fire, centred on the POA, as it would be before the wind turns it.
    """

    laid: bool
    reason: str | None
    band: WindBand
    poa: tuple[float, float]
    parts: tuple[SmokePart, ...]
    width: float = 0.0
    axis: float = 0.0
    zone: Polygon | None = None

    @property
    def life(self) -> int:
        """Periods from laying until the last part is gone."""
        return max((len(part.densities) for part in self.parts), default=0)

    def screens(self, source: str = "") -> tuple[Screen, ...]:
        """One :class:`~engine.geometry.Screen` per part, at age 0."""
        return tuple(Screen(part.polygon, part.densities, 0, source or part.name) for part in self.parts)

    def by_period(self) -> list[list[tuple[Density, Polygon]]]:
        """For each period of the life, ``[(density, polygon)]``: adjacent parts of equal density merged.

        Parts turned to the wind are intervals along one axis with one width, so a merge is
        one exact rectangle, not a polygon union.
        """
        periods = []
        for tick in range(self.life):
            alive = [part for part in self.parts if tick < len(part.densities)]
            if not alive or alive[0].start is None:
                periods.append([(part.densities[tick], part.polygon) for part in alive])
                continue
            alive.sort(key=lambda part: part.start)
            runs: list[list] = []  # [density, start, end, polygon-or-None]
            for part in alive:
                density = part.densities[tick]
                if runs and runs[-1][0] is density and math.isclose(runs[-1][2], part.start, abs_tol=1e-9):
                    runs[-1][2], runs[-1][3] = part.end, None
                else:
                    runs.append([density, part.start, part.end, part.polygon])
            periods.append(
                [
                    (density, polygon if polygon is not None else _strip(self.poa, self.axis, self.width, a, b))
                    for density, a, b, polygon in runs
                ]
            )
        return periods


def _strip(poa, axis: float, width: float, start: float, end: float) -> Polygon:
    """The rectangle ``width`` wide from ``start`` to ``end`` metres along bearing ``axis`` from ``poa``."""
    fx, fy = bearing_vector(axis)
    middle = (start + end) / 2.0
    return rectangle((poa[0] + fx * middle, poa[1] + fy * middle), width, end - start, axis)


def _check_zone(beaten_zone) -> tuple[float, float]:
    try:
        width, depth = (float(v) for v in beaten_zone)
    except (TypeError, ValueError):
        raise FireplanError(f"a beaten zone is a width and a depth in metres, got {beaten_zone!r}") from None
    if not (math.isfinite(width) and math.isfinite(depth) and width > 0 and depth > 0):
        raise FireplanError(f"a beaten zone's width and depth must be positive metres, got {width:g} x {depth:g}")
    return width, depth


def artillery_smoke(
    poa,
    line_of_fire: float,
    beaten_zone=(200.0, 100.0),
    wind_from: float = 0.0,
    wind_knots: float = 0.0,
    rain: bool = False,
    smoke_type: str = "BE",
    rules: RulesetData | None = None,
) -> SmokeLaying:
    """The screen of a smoke mission landing on ``poa`` (MET-3 .. MET-6).

    Parameters
    ----------
    poa : (x, y)
        Where the smoke lands (after deviation), metres.
    line_of_fire : float
        Bearing of the line of fire, degrees clockwise from north.
    beaten_zone : (width, depth)
        Metres across and along the line of fire.
    wind_from, wind_knots : float
        Where the wind blows from (bearing) and its speed.
    rain : bool
        Raining (MET-6).
    smoke_type : {"BE", "WP"}

    Returns
    -------
    SmokeLaying
        ``laid`` False with a reason in winds over ``strong_wind_max``.
    """
    rules = met_rules(rules)
    x, y = (_finite(v, "point of aim coordinate") for v in poa)
    line_of_fire = _finite(line_of_fire, "line of fire") % 360.0
    width, depth = _check_zone(beaten_zone)
    if smoke_type not in SMOKE_TYPES:
        raise FireplanError(f"smoke type must be BE or WP, got {smoke_type!r}")
    band = wind_band(wind_knots, rules)
    zone = rectangle((x, y), width, depth, line_of_fire)
    if band is WindBand.TOO_STRONG:
        reason = (
            f"smoke cannot be laid in a {wind_knots:g}-knot wind: over "
            f"{rules.setting('strong_wind_max')} knots no screen forms (MET-5)"
        )
        return SmokeLaying(False, reason, band, (x, y), (), zone=zone)
    schedules = smoke_schedules(band, rain, smoke_type, rules)
    if band is WindBand.CALM:
        axis = line_of_fire if depth >= width else (line_of_fire + 90.0) % 360.0
        parts = (SmokePart("zone", zone, schedules["zone"]),)
        return SmokeLaying(True, None, band, (x, y), parts, width, axis % 180.0, zone)

    short, long_ = sorted((width, depth))
    across, along = (short, long_) if rules.setting("screen_width_side") == "shorter" else (long_, short)
    axis = downwind_bearing(wind_from)
    intervals = (("upwind", -along / 2.0, 0.0), ("zone", 0.0, along / 2.0), ("extension", along / 2.0, 1.5 * along))
    merged: list[list] = []  # [name, start, end, densities]
    for name, start, end in intervals:
        densities = schedules[name]
        if merged and merged[-1][3] == densities:
            merged[-1][0] += "+" + name
            merged[-1][2] = end
        else:
            merged.append([name, start, end, densities])
    parts = tuple(
        SmokePart(name, _strip((x, y), axis, across, start, end), densities, start, end)
        for name, start, end, densities in merged
    )
    return SmokeLaying(True, None, band, (x, y), parts, across, axis, zone)


def long_axis_bearing(polygon: Polygon) -> float:
    """Bearing in ``[0, 180)`` of a rectangle's longest side (the first of equal sides)."""
    coords = list(polygon.exterior.coords)
    best, bearing = -1.0, 0.0
    for (ax, ay), (bx, by) in zip(coords, coords[1:]):
        length = math.hypot(bx - ax, by - ay)
        if length > best * (1 + 1e-9):
            best = length
            bearing = math.degrees(math.atan2(bx - ax, by - ay)) % 180.0
    bearing = round(bearing, 9) % 180.0
    return bearing
