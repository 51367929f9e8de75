"""Plane geometry of the table: bearings, unit bases, screens and fire templates.

Conventions, used everywhere in fireplan:

- ``x`` grows east and ``y`` grows north; lengths are in the ruleset's unit (inches for CHQ,
  metres for MET) and this module never converts them.
- A *bearing* is in degrees clockwise from north: bearing 0 points along ``+y``, bearing 90 along ``+x``.
- A rectangle laid "along" a bearing has its ``depth`` along the bearing and its ``width`` across it,
  the way a gunner says "200 m wide by 100 m deep": width across the line of fire, depth along it.

Every shape is a shapely ``Polygon`` with its exterior counter-clockwise, so the sight kernel can
rely on "interior is to the left of every edge".

Examples
--------
>>> from engine.geometry import rectangle
>>> list(rectangle((0, 0), width=12, depth=1).exterior.coords)[:4]
[(-6.0, -0.5), (6.0, -0.5), (6.0, 0.5), (-6.0, 0.5)]
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from .errors import FireplanError
from .numbers import as_point as _point
from .numbers import finite_number as _finite
from .numbers import positive_number as _positive

__all__ = [
    "Density",
    "FireTemplate",
    "Screen",
    "bearing_between",
    "bearing_vector",
    "convex_parts",
    "coverage",
    "footprint",
    "rectangle",
    "sample_points",
    "triangle",
]

Point = tuple[float, float]


# --------------------------------------------------------------------------------------------
# validation helpers: user mistakes become FireplanError, never a shapely or numpy traceback
# --------------------------------------------------------------------------------------------


def _check_area(geometry, name: str) -> Polygon | MultiPolygon:
    """Check that ``geometry`` is a non-empty, valid (multi)polygon with finite coordinates."""
    if not isinstance(geometry, (Polygon, MultiPolygon)):
        raise FireplanError(f"{name} must be a shapely Polygon, got {type(geometry).__name__}")
    if geometry.is_empty:
        raise FireplanError(f"{name} is empty")
    if not np.isfinite(shapely.get_coordinates(geometry)).all():
        raise FireplanError(f"{name} has a NaN or infinite coordinate")
    if not geometry.is_valid:
        reason = shapely.is_valid_reason(geometry)
        raise FireplanError(f"{name} is not a valid polygon ({reason})")
    if geometry.area <= 0.0:
        raise FireplanError(f"{name} has no area")
    return geometry


# --------------------------------------------------------------------------------------------
# bearings
# --------------------------------------------------------------------------------------------

# Exact unit vectors for the quarter turns, so that axis-aligned shapes get exact coordinates
# (sin(pi) is 1.2e-16 in floating point, which would leave a "square" template slightly skewed).
_QUARTER_TURNS = {0: (0.0, 1.0), 1: (1.0, 0.0), 2: (0.0, -1.0), 3: (-1.0, 0.0)}


def bearing_vector(bearing_deg: float) -> tuple[float, float]:
    """Unit vector ``(dx, dy)`` pointing along a bearing (degrees clockwise from north).

    Multiples of 90 degrees give exact vectors, so axis-aligned shapes have exact corners.

    >>> bearing_vector(90)
    (1.0, 0.0)
    """
    bearing = _finite(bearing_deg, "bearing") % 360.0
    if bearing % 90.0 == 0.0:
        return _QUARTER_TURNS[int(bearing // 90.0) % 4]
    radians = math.radians(bearing)
    return (math.sin(radians), math.cos(radians))


def bearing_between(a, b) -> float:
    """Bearing in ``[0, 360)`` of point ``b`` as seen from point ``a``.

    Raises FireplanError when the points coincide, since a direction to oneself is meaningless.

    >>> bearing_between((0, 0), (-1, 0))
    270.0
    """
    ax, ay = _point(a, "a")
    bx, by = _point(b, "b")
    if ax == bx and ay == by:
        raise FireplanError(f"no bearing between a point and itself ({ax}, {ay})")
    bearing = math.degrees(math.atan2(bx - ax, by - ay)) % 360.0
    return 0.0 if bearing >= 360.0 else bearing  # -1e-20 % 360 rounds to 360.0


# --------------------------------------------------------------------------------------------
# shapes
# --------------------------------------------------------------------------------------------


def rectangle(centre, width: float, depth: float, bearing: float = 0.0) -> Polygon:
    """Rectangle centred on ``centre``: ``depth`` along ``bearing``, ``width`` across it.

    This is how templates, beaten zones and screens are specified at the table:

    - a CHQ smoke screen 1" wide by 12" long laid on bearing ``b`` (its long axis across
      bearing ``b``) is ``rectangle(c, width=12, depth=1, bearing=b)``;
    - a MET beaten zone "200 m wide x 100 m deep, across and along the line of fire" is
      ``rectangle(poa, width=200, depth=100, bearing=line_of_fire)``.

    The exterior runs counter-clockwise: back-left, back-right, front-right, front-left, where
    "front" is the side the bearing points to and "right" is ``bearing + 90``.
    """
    cx, cy = _point(centre, "centre")
    width = _positive(width, "width")
    depth = _positive(depth, "depth")
    fx, fy = bearing_vector(bearing)  # forward, along the bearing
    rx, ry = fy, -fx  # right: bearing + 90 degrees
    hd, hw = depth / 2.0, width / 2.0
    corners = [
        (cx - fx * hd - rx * hw, cy - fy * hd - ry * hw),  # back-left
        (cx - fx * hd + rx * hw, cy - fy * hd + ry * hw),  # back-right
        (cx + fx * hd + rx * hw, cy + fy * hd + ry * hw),  # front-right
        (cx + fx * hd - rx * hw, cy + fy * hd - ry * hw),  # front-left
    ]
    return Polygon(corners)


def triangle(apex, bearing: float, length: float, base_width: float) -> Polygon:
    """Isosceles triangle with its apex at ``apex``, reaching ``length`` along ``bearing`` to a base
    ``base_width`` wide, centred on the bearing line.

    MET-14 smoke from a burning building is ``triangle(fire, downwind, 2 * fire_length,
    2 * fire_width)``: it starts at the fire and spreads downwind. Counter-clockwise exterior:
    apex, base-right, base-left.
    """
    ax, ay = _point(apex, "apex")
    length = _positive(length, "length")
    base_width = _positive(base_width, "base_width")
    fx, fy = bearing_vector(bearing)
    rx, ry = fy, -fx
    bx, by = ax + fx * length, ay + fy * length
    hw = base_width / 2.0
    return Polygon([(ax, ay), (bx + rx * hw, by + ry * hw), (bx - rx * hw, by - ry * hw)])


def footprint(centre, width: float, depth: float, facing: float = 0.0) -> Polygon:
    """A unit's base: ``width`` across its front, ``depth`` front to back, facing bearing ``facing``.

    Same geometry as :func:`rectangle`; the separate name keeps call sites readable.
    """
    return rectangle(centre, width, depth, facing)


def sample_points(polygon: Polygon, per_edge: int = 2) -> np.ndarray:
    """Fixed sample points on and in a base, for "at least half the base is visible" (CHQ-30).

    Returns a ``(s, 2)`` array: the centre first, then for each exterior edge its start vertex and
    ``per_edge - 1`` evenly spaced points along it. A rectangular base with the default
    ``per_edge=2`` gives nine points: centre, four corners and four edge midpoints. The set depends
    only on the polygon, so repeated sight checks of the same base agree.
    """
    polygon = _check_area(polygon, "polygon")
    if isinstance(polygon, MultiPolygon):
        raise FireplanError("a base must be a single polygon, not a MultiPolygon")
    if isinstance(per_edge, bool) or not isinstance(per_edge, (int, np.integer)) or per_edge < 1:
        raise FireplanError(f"per_edge must be a whole number of at least 1, got {per_edge!r}")
    ring = np.asarray(polygon.exterior.coords, dtype=float)[:-1]
    starts, ends = ring, np.roll(ring, -1, axis=0)
    steps = np.arange(per_edge, dtype=float) / per_edge  # 0, 1/k, ..., (k-1)/k
    edge_points = starts[:, None, :] + (ends - starts)[:, None, :] * steps[None, :, None]
    centre = polygon.centroid
    if not polygon.covers(centre):
        centre = polygon.representative_point()
    return np.vstack([np.array([[centre.x, centre.y]]), edge_points.reshape(-1, 2)])


def coverage(footprint: BaseGeometry, area: BaseGeometry) -> float:
    """Fraction in ``[0, 1]`` of ``footprint``'s area that lies under ``area``.

    CHQ-7 gives +1D Reaction to a unit "less than half under a fire template":
    ``coverage(base, template.polygon) < 0.5``.
    """
    footprint = _check_area(footprint, "footprint")
    area = _check_area(area, "area")
    return float(min(1.0, footprint.intersection(area).area / footprint.area))


# --------------------------------------------------------------------------------------------
# convex decomposition (used by the sight kernel)
# --------------------------------------------------------------------------------------------


def _ccw(polygon: Polygon) -> Polygon:
    return shapely.orient_polygons(polygon, exterior_cw=False)


def _split_convex(polygon: Polygon, max_vertices: int) -> list[Polygon]:
    """Cut a convex polygon into fans of at most ``max_vertices`` vertices sharing exact chords."""
    ring = list(polygon.exterior.coords)[:-1]
    if len(ring) <= max_vertices:
        return [polygon]
    pieces, start = [], 1
    while start < len(ring) - 1:
        stop = min(start + max_vertices - 2, len(ring) - 1)
        pieces.append(Polygon([ring[0], *ring[start : stop + 1]]))
        start = stop
    return pieces


def _strictly_convex_at(points, before, here, after) -> bool:
    """Is the turn before -> here -> after a left turn by more than about 1e-9 radians?

    A margin rather than ``>= 0``: a merge that rounding calls convex but is not would make the
    sight kernel treat a slightly dented piece as its hull.
    """
    (ax, ay), (bx, by), (cx, cy) = points[before], points[here], points[after]
    ux, uy, vx, vy = bx - ax, by - ay, cx - bx, cy - by
    return ux * vy - uy * vx > 1e-9 * math.hypot(ux, uy) * math.hypot(vx, vy)


def _merge_triangles(triangles: Sequence[Polygon], max_vertices: int | None) -> list[Polygon]:
    """Greedily merge adjacent triangles while the union stays convex (Hertel-Mehlhorn).

    Fewer, larger pieces mean fewer (observer, piece) intervals in the sight kernel. Pieces keep
    the triangulation's exact vertices, so their union is still exactly the polygon.
    """
    ids: dict[tuple[float, float], int] = {}
    pieces: dict[int, list[int]] = {}
    for k, tri in enumerate(triangles):
        pieces[k] = [ids.setdefault(xy, len(ids)) for xy in list(tri.exterior.coords)[:-1]]
    points = list(ids)
    owner = {(a, b): k for k, ring in pieces.items() for a, b in zip(ring, ring[1:] + ring[:1])}
    limit = max_vertices if max_vertices is not None else math.inf
    merged_any = True
    while merged_any:
        merged_any = False
        for (a, b), k in list(owner.items()):
            other = owner.get((b, a))
            if owner.get((a, b)) != k or other is None or other == k:
                continue
            ring_a, ring_b = pieces[k], pieces[other]
            if len(ring_a) + len(ring_b) - 2 > limit:
                continue
            i = ring_a.index(a)
            from_b = ring_a[i + 1 :] + ring_a[: i + 1]  # b ... a
            j = ring_b.index(b)
            from_a = ring_b[j + 1 :] + ring_b[: j + 1]  # a ... b
            ring = from_b + from_a[1:-1]
            n = len(ring)
            at_a, at_b = len(from_b) - 1, 0
            if not (
                _strictly_convex_at(points, ring[at_a - 1], ring[at_a], ring[(at_a + 1) % n])
                and _strictly_convex_at(points, ring[at_b - 1], ring[at_b], ring[(at_b + 1) % n])
            ):
                continue
            del owner[(a, b)], owner[(b, a)]
            for u, v in zip(ring_b, ring_b[1:] + ring_b[:1]):
                if (u, v) in owner:
                    owner[(u, v)] = k
            pieces[k] = ring
            del pieces[other]
            merged_any = True
    return [Polygon([points[i] for i in ring]) for ring in pieces.values()]


def convex_parts(
    polygon: Polygon | MultiPolygon, max_vertices: int | None = None, *, merge: bool = True
) -> tuple[Polygon, ...]:
    """Convex pieces whose union is exactly ``polygon`` (holes and concavities allowed).

    A segment meets the polygon exactly when it meets one of the pieces, and a segment against a
    convex piece has a cheap exact test; that is why the sight kernel wants them. A polygon that
    equals its convex hull is returned as it is. Otherwise it is cut by a constrained Delaunay
    triangulation, whose triangles use only the polygon's own vertices, so the pieces share edges
    exactly and leave no gaps; with ``merge`` (the default) adjacent triangles are then merged
    while the union stays convex. ``max_vertices`` (at least 3) caps the vertices of a piece,
    cutting large convex polygons into fans, which keeps the kernel's padded arrays small.
    Pieces are oriented counter-clockwise.
    """
    polygon = _check_area(polygon, "polygon")
    if max_vertices is not None and (
        isinstance(max_vertices, bool) or not isinstance(max_vertices, (int, np.integer)) or max_vertices < 3
    ):
        raise FireplanError(f"max_vertices must be a whole number of at least 3, got {max_vertices!r}")
    singles = list(polygon.geoms) if isinstance(polygon, MultiPolygon) else [polygon]
    parts: list[Polygon] = []
    for single in singles:
        if not single.interiors and single.equals(single.convex_hull):
            convex = [_ccw(single)]
        else:
            triangles = shapely.get_parts(shapely.constrained_delaunay_triangles(single))
            triangles = triangles[shapely.area(triangles) > 0.0]
            # The triangulation of a polygon returns only inner triangles; check anyway, because a
            # stray outer triangle would make walls out of thin air.
            triangles = triangles[shapely.covers(single, shapely.point_on_surface(triangles))]
            convex = [_ccw(t) for t in triangles]
            if merge:
                convex = _merge_triangles(convex, max_vertices)
        if max_vertices is not None:
            convex = [piece for part in convex for piece in _split_convex(part, max_vertices)]
        parts.extend(convex)
    return tuple(parts)


# --------------------------------------------------------------------------------------------
# value objects: smoke density, screens and fire templates
# --------------------------------------------------------------------------------------------


class Density(enum.StrEnum):
    """How thick a screen is in a tick. Rulesets decide what each means (see :mod:`engine.sight`)."""

    PARTIAL = "partial"
    FULL = "full"


@dataclass(frozen=True, slots=True)
class Screen:
    """A smoke screen: where it lies and the density it will have in each tick of its life.

    ``densities[i]`` is the density ``i`` ticks after laying; ``age`` is how many ticks have passed.
    A tick is whatever the ruleset ages screens by (a CHQ pulse or Logistics Phase, a MET period).
    MET-4 normal-wind smoke is ``Screen(zone, (PARTIAL, FULL, FULL, PARTIAL))``; after four ticks
    it is gone. ``source`` is free text for narration ("battery 2 smoke").
    """

    polygon: Polygon
    densities: tuple[Density, ...]
    age: int = 0
    source: str = ""

    def __post_init__(self) -> None:
        _check_area(self.polygon, "screen polygon")
        try:
            densities = tuple(Density(d) for d in self.densities)
        except (TypeError, ValueError):
            raise FireplanError(
                f"screen densities must be 'partial' or 'full', got {self.densities!r}"
            ) from None
        if not densities:
            raise FireplanError("a screen needs at least one tick of density")
        object.__setattr__(self, "densities", densities)
        if isinstance(self.age, bool) or not isinstance(self.age, (int, np.integer)) or self.age < 0:
            raise FireplanError(f"screen age must be a whole number of ticks >= 0, got {self.age!r}")
        object.__setattr__(self, "age", int(self.age))

    @property
    def density(self) -> Density | None:
        """Density now, or None once the screen has dispersed."""
        return self.densities[self.age] if self.age < len(self.densities) else None

    @property
    def is_gone(self) -> bool:
        """True once every tick of the schedule has passed."""
        return self.age >= len(self.densities)

    @property
    def remaining(self) -> int:
        """Ticks left, counting the current one."""
        return max(0, len(self.densities) - self.age)

    def aged(self, ticks: int = 1) -> Screen:
        """The same screen ``ticks`` ticks later (a new object; screens never change in place)."""
        if isinstance(ticks, bool) or not isinstance(ticks, (int, np.integer)) or ticks < 0:
            raise FireplanError(f"ticks must be a whole number >= 0, got {ticks!r}")
        return Screen(self.polygon, self.densities, self.age + int(ticks), self.source)


@dataclass(frozen=True, slots=True)
class FireTemplate:
    """A fire template or beaten zone: ``width`` across the line of fire, ``depth`` along it.

    ``bearing`` is the line of fire (or the caller's chosen orientation); ``sheaf`` is a ruleset
    word such as ``"regular"`` or ``"converged"`` (CHQ-21) that the engine only carries along.
    Deviation moves a template without changing its shape, hence :meth:`moved`.
    """

    centre: Point
    width: float
    depth: float
    bearing: float = 0.0
    sheaf: str = "regular"
    _polygon: Polygon = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "centre", _point(self.centre, "template centre"))
        object.__setattr__(self, "width", _positive(self.width, "template width"))
        object.__setattr__(self, "depth", _positive(self.depth, "template depth"))
        object.__setattr__(self, "bearing", _finite(self.bearing, "template bearing") % 360.0)
        if not isinstance(self.sheaf, str):
            raise FireplanError(f"template sheaf must be a string, got {self.sheaf!r}")
        object.__setattr__(self, "_polygon", rectangle(self.centre, self.width, self.depth, self.bearing))

    @property
    def polygon(self) -> Polygon:
        """The template's area on the table."""
        return self._polygon

    def moved(self, dx: float, dy: float) -> FireTemplate:
        """The template shifted by ``(dx, dy)``, e.g. after a deviation roll."""
        dx, dy = _finite(dx, "dx"), _finite(dy, "dy")
        x, y = self.centre
        return FireTemplate((x + dx, y + dy), self.width, self.depth, self.bearing, self.sheaf)

    def coverage(self, footprint: BaseGeometry) -> float:
        """Fraction of ``footprint``'s area under this template (CHQ-7: "less than half under")."""
        return coverage(footprint, self._polygon)
