"""Line of sight in bulk: which of N x M sight lines cross which of K polygons.

Every question of sight in fireplan (who sees whom, which lines a candidate smoke screen would cut,
whether a Forward Observer sees a template centre) reduces to one primitive: for observer points,
target points and obstacle polygons, the set of ``(observer, target, polygon)`` triples whose
closed segment meets the closed polygon (touching counts, as with shapely ``intersects``).
:func:`crossings` answers it; :func:`sight_matrix` and :func:`footprint_sight` summarise it for
terrain and smoke; :func:`inside` answers "which points are in which polygons".

Why a custom kernel
-------------------
A per-pair shapely loop does a few thousand to 20k lines per second, and an STRtree query on long
lines is only 2-4 times faster, because a long diagonal line's bounding box covers half the table
(DESIGN.md). ``method="sweep"`` (the default, ``"auto"``, on all but small questions) works per
observer, in angle, and never loops over pairs in Python:

1. Cut every polygon into convex parts (:func:`engine.geometry.convex_parts`), grouped by vertex
   count so that rectangles are not padded to the size of the largest piece of wood.
2. For each (observer, part) find the angular interval the part subtends from the observer. For a
   convex part and an observer outside it, every ray inside the interval hits the part and no ray
   outside it can.
3. Sort each observer's targets by angle once (the list repeated at +2 pi, so an interval that
   crosses angle 0 is still one run); one global ``np.searchsorted`` over keys
   ``observer * 14 + angle`` gives, for every (observer, part), the run of targets in its interval.
4. For a target inside the interval the segment's own line cannot separate it from the part, so
   the separating-axis test reduces to the part's edges: the segment misses exactly when observer
   and target are both strictly outside one edge. Both sides of that are precomputed as bit masks
   (one byte per observer-part and per target-part), so each candidate costs an ``&``. An
   observer inside a part has the full circle as its interval and no edge it is outside of.
5. Rows of polygons cut into several parts are deduplicated.

The sweep's cost is some hundred array calls whatever the size, which dominates on the small
questions a game asks at every order (four units against a few dozen sample points): there
``"auto"`` takes ``method="dense"``, which broadcasts the same exact separating-axis test over
every (line, part) pair in a dozen calls, with each polygon's convex parts cut once and cached.

The interval is widened by ``1e-8`` radians on each side, far beyond the error of the computed
angles, and targets in those thin bands go to the full vectorised separating-axis test (edge
normals and the segment's normal; parts padded by repeating a vertex, since a zero-length edge
never separates). So do observers within ``1e-6`` of the coordinate scale of a part (where angles
cannot be trusted) and observer-target pairs that close together (a pair that coincides is a
point, which crosses the polygons that contain it). The answer is therefore the one the plain
orientation tests give, which is exact for anything built from small integers or repeated
vertices, e.g. a line grazing a corner. ``method="strtree"`` is an independent exact path
(shapely's vectorised STRtree query) used to check the sweep.

How rulesets read the answer
----------------------------
This module only counts what a line crosses. :class:`SightMatrix` reports terrain blocking and the
number of full and partial screens crossed, and a :class:`SightStatus` under the plain reading
"terrain or full smoke blocks, partial smoke only obscures" (MET-15). A ruleset in which screens
only obscure (CHQ-10/12: +2 TN through smoke) reads the counts, not the status.

Examples
--------
>>> from engine.geometry import rectangle
>>> c = crossings([(0, 0)], [(10, 0), (0, 10)], [rectangle((5, 0), 1, 2)])
>>> c.count_matrix().tolist()
[[1, 0]]
"""

from __future__ import annotations

import enum
import functools
import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Polygon

from .errors import FireplanError
from .geometry import Density, Screen, convex_parts, sample_points

__all__ = [
    "Crossings",
    "FootprintSight",
    "SightMatrix",
    "SightStatus",
    "crossings",
    "footprint_sight",
    "inside",
    "sight_matrix",
]

METHODS = ("auto", "sweep", "dense", "strtree")

_TWO_PI = 2.0 * math.pi
_KEY_STRIDE = 14.0  # > 4 pi: observer o's (doubled) target angles live in keys [14 o, 14 o + 4 pi)
_PARKED = 13.5  # key offset for targets too close to their observer: no interval reaches it
_EPS_ANGLE = 1e-8  # radians: width of the bands at each end of an interval sent to the full test
_REL_NEAR = 1e-6  # "too close to trust angles", relative to the coordinate scale
_MAX_VERTICES = 8  # convex parts are cut to at most this many vertices to keep arrays small
_CHUNK_ELEMENTS = 1 << 21  # observers go in chunks of at most this many (observer, part, vertex)
_CHUNK_LINES = 1 << 18  # ... and of at most this many sight lines, to bound memory
_CHUNK_OBSERVERS = 4096  # ... and of at most this many observers, so keys 14 * o + angle stay precise
_DENSE_DEDUPE_LIMIT = 1 << 26  # rows of multi-part polygons are deduplicated with flags up to this
_DENSE_ELEMENTS = 1 << 15  # "auto" tests every line against every part up to this many (line, part, vertex)
_DENSE_INSIDE = 4096  # inside() tests every (point, polygon) pair up to this many, else builds a tree
_CONE, _INSIDE, _NEAR = 0, 1, 2  # how an observer stands to a part


# --------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Crossings:
    """Sparse answer of :func:`crossings`: one row per (observer, target, polygon) that meet.

    ``observer[i]``, ``target[i]`` and ``polygon[i]`` index the caller's sequences. Rows are
    unique and in no particular order (:meth:`sorted` gives a canonical one). The arrays are
    read-only. A sight line is also named by its flat index ``observer * n_targets + target``
    (:attr:`line`), which is what the smoke planner's coverage matrix is built from.
    """

    observer: np.ndarray
    target: np.ndarray
    polygon: np.ndarray
    n_observers: int
    n_targets: int
    n_polygons: int

    def __len__(self) -> int:
        return int(self.polygon.shape[0])

    def __repr__(self) -> str:
        return (
            f"<Crossings {len(self)} rows: {self.n_observers} observers x {self.n_targets} targets,"
            f" {self.n_polygons} polygons>"
        )

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_observers, n_targets)``: the shape of the matrices this object produces."""
        return (self.n_observers, self.n_targets)

    @property
    def line(self) -> np.ndarray:
        """Flat sight-line index ``observer * n_targets + target`` of each row."""
        return self.observer * self.n_targets + self.target

    def _row_mask(self, mask) -> np.ndarray | None:
        if mask is None:
            return None
        mask = np.asarray(mask)
        if mask.dtype == bool:
            if mask.shape != (self.n_polygons,):
                raise FireplanError(
                    f"a polygon mask needs one entry per polygon ({self.n_polygons}), got shape {mask.shape}"
                )
            return mask[self.polygon]
        if mask.size and (not np.issubdtype(mask.dtype, np.integer) or mask.min() < 0 or mask.max() >= self.n_polygons):
            raise FireplanError(f"polygon indices must be whole numbers in [0, {self.n_polygons}), got {mask!r}")
        chosen = np.zeros(self.n_polygons, dtype=bool)
        chosen[mask.astype(np.intp).ravel()] = True
        return chosen[self.polygon]

    def count_matrix(self, mask=None) -> np.ndarray:
        """``(n_observers, n_targets)`` count of polygons each line crosses.

        ``mask`` restricts the count to some polygons: a boolean array with one entry per polygon,
        or an array of polygon indices.
        """
        rows = self._row_mask(mask)
        line = self.line if rows is None else self.line[rows]
        counts = np.bincount(line, minlength=self.n_observers * self.n_targets)
        return counts.reshape(self.n_observers, self.n_targets)

    def crossed_matrix(self, mask=None) -> np.ndarray:
        """``(n_observers, n_targets)`` True where the line crosses at least one (masked) polygon."""
        return self.count_matrix(mask) > 0

    def by_polygon(self) -> tuple[np.ndarray, ...]:
        """For each polygon, the sorted flat indices of the sight lines it crosses.

        This is the column view the smoke planner needs: "which lines does screen ``k`` cut".
        """
        line = self.line
        order = np.lexsort((line, self.polygon))
        bounds = np.cumsum(np.bincount(self.polygon, minlength=self.n_polygons))[:-1]
        return tuple(np.split(line[order], bounds))

    def sorted(self) -> Crossings:
        """The same rows ordered by observer, then target, then polygon."""
        order = np.lexsort((self.polygon, self.target, self.observer))
        return Crossings(
            _frozen(self.observer[order]),
            _frozen(self.target[order]),
            _frozen(self.polygon[order]),
            self.n_observers,
            self.n_targets,
            self.n_polygons,
        )


class SightStatus(enum.IntEnum):
    """Plain reading of a sight line: terrain or full smoke blocks, partial smoke obscures."""

    CLEAR = 0
    PARTIAL = 1
    BLOCKED = 2


@dataclass(frozen=True, slots=True, eq=False)
class SightMatrix:
    """Sight from N observers to M targets through terrain and smoke (``(N, M)`` arrays).

    ``terrain_blocked`` is True where a terrain polygon meets the line; ``full_screens`` and
    ``partial_screens`` count the screens of each current density it crosses; ``status`` holds
    :class:`SightStatus` codes: BLOCKED for terrain or a full screen, PARTIAL when only partial
    screens are crossed, CLEAR otherwise. Rulesets whose smoke obscures rather than blocks read
    the counts themselves.
    """

    terrain_blocked: np.ndarray
    full_screens: np.ndarray
    partial_screens: np.ndarray
    status: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return self.status.shape

    @property
    def visible(self) -> np.ndarray:
        """True where the line is not BLOCKED."""
        return self.status != SightStatus.BLOCKED

    @property
    def screens(self) -> np.ndarray:
        """Number of active screens of any density the line crosses (CHQ-10 asks "any smoke?")."""
        return self.full_screens + self.partial_screens


@dataclass(frozen=True, slots=True, eq=False)
class FootprintSight:
    """Sight from N observer points to M target bases, sampled at fixed points of each base.

    ``visible_fraction[n, m]`` is the share of base ``m``'s sample points that observer ``n``
    sees (line not BLOCKED); ``clear_fraction`` the share it sees clearly. ``visible`` applies the
    CHQ-30 rule, at least ``threshold`` (half) of the base visible. ``status`` summarises: BLOCKED
    when not visible, CLEAR when at least ``threshold`` of the base is seen clearly, else PARTIAL.
    ``samples`` is the underlying point sight matrix, with ``sample_target`` naming the base of
    each of its columns, for rulesets that need more than the summary.
    """

    visible_fraction: np.ndarray
    clear_fraction: np.ndarray
    visible: np.ndarray
    status: np.ndarray
    samples: SightMatrix
    sample_target: np.ndarray


# --------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------


def _points(points, name: str) -> np.ndarray:
    try:
        array = np.asarray(points, dtype=float)
    except (TypeError, ValueError):
        raise FireplanError(f"{name} must be an array of (x, y) points") from None
    if array.size == 0:
        return np.zeros((0, 2))
    if array.ndim != 2 or array.shape[1] != 2:
        raise FireplanError(f"{name} must have shape (n, 2), got {array.shape}")
    if not np.isfinite(array).all():
        raise FireplanError(f"{name} has a NaN or infinite coordinate")
    return np.ascontiguousarray(array)


def _polygons(polygons, name: str) -> np.ndarray:
    polygons = list(polygons)
    geoms = np.empty(len(polygons), dtype=object)
    for i, polygon in enumerate(polygons):
        if _CHECKED.get(id(polygon)) is not polygon:
            if not isinstance(polygon, (Polygon, MultiPolygon)):
                raise FireplanError(f"{name}[{i}] must be a shapely Polygon, got {type(polygon).__name__}")
            problem = _polygon_problem(polygon)
            if problem is not None:
                raise FireplanError(f"{name}[{i}] {problem}")
            _CHECKED[id(polygon)] = polygon
        geoms[i] = polygon
    return geoms


#: Polygons found usable, by identity while they live: a game passes the same terrain and
#: screens thousands of times, and even the cached check hashes each polygon's coordinates.
_CHECKED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


@functools.lru_cache(maxsize=4096)
def _polygon_problem(polygon: Polygon | MultiPolygon) -> str | None:
    """What makes a polygon unusable, or None. Cached (geometries hash by their coordinates): a
    game asks about the same terrain and screens thousands of times, and GEOS's validity check
    was a tenth of the time of a MET sight picture."""
    if polygon.is_empty:
        return "is not a valid polygon (it is empty)"
    if not polygon.is_valid:
        return f"is not a valid polygon ({shapely.is_valid_reason(polygon)})"
    if not np.isfinite(shapely.get_coordinates(polygon)).all():
        return "has a NaN or infinite coordinate"
    return None


def _method(method: str) -> str:
    if method not in METHODS:
        raise FireplanError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    return method


# --------------------------------------------------------------------------------------------
# convex parts, padded into arrays
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class _Group:
    """The convex parts that have ``w`` vertices, as ``(Pg, w)`` arrays (one ``w`` per group, so
    rectangles are not padded to the size of the largest wood piece)."""

    part: np.ndarray  # (Pg,) global part ids
    vertices: np.ndarray  # (w, Pg, 2), counter-clockwise; vertex axis first, so that reductions
    edges: np.ndarray  # (w, Pg, 2): vertices[i + 1] - vertices[i], cyclic   # over it are fast
    inv_length: np.ndarray  # (w, Pg): 1 / |edge|, 0 for a repeated vertex
    skip: np.ndarray  # (w, Pg): 0, or inf for a zero-length edge (ignored by minima)


@dataclass(frozen=True, slots=True, eq=False)
class _Parts:
    """All convex parts: padded ``(P, W)`` arrays for the exact test, and groups for the sweep."""

    vertices: np.ndarray  # (P, W, 2), the last vertex repeated as padding
    edges: np.ndarray  # (P, W, 2), zero on padding
    parent: np.ndarray  # (P,) index of the polygon each part came from
    multi_part: np.ndarray  # (K,) True where a polygon has several parts (rows to dedupe)
    groups: tuple[_Group, ...]

    @property
    def count(self) -> int:
        return int(self.parent.shape[0])


@functools.lru_cache(maxsize=4096)
def _cached_convex_parts(polygon: Polygon | MultiPolygon) -> tuple[Polygon, ...]:
    # Terrain is the same polygon call after call; triangulating it once is enough. Shapely
    # geometries hash and compare by their exact coordinates, so the cache cannot mix them up.
    return convex_parts(polygon, max_vertices=_MAX_VERTICES)


def _decompose(geoms: np.ndarray) -> _Parts:
    """Cut polygons into convex parts of at most ``_MAX_VERTICES`` vertices. Rectangles and
    triangles, the common case (screens, templates), never leave shapely's vectorised calls."""
    k = geoms.size
    direct = np.zeros(k, dtype=bool)
    if k:
        simple = (shapely.get_type_id(geoms) == shapely.GeometryType.POLYGON) & (
            shapely.get_num_interior_rings(geoms) == 0
        )
        idx = np.flatnonzero(simple)
        small = shapely.get_num_coordinates(shapely.get_exterior_ring(geoms[idx])) - 1 <= _MAX_VERTICES
        idx = idx[small]
        direct[idx[shapely.equals(geoms[idx], shapely.convex_hull(geoms[idx]))]] = True
    direct_idx = np.flatnonzero(direct)
    rings = [shapely.get_exterior_ring(shapely.orient_polygons(geoms[direct_idx], exterior_cw=False))]
    parents = [direct_idx]
    for i in np.flatnonzero(~direct):
        pieces = _cached_convex_parts(geoms[i])
        rings.append(shapely.get_exterior_ring(np.array(pieces, dtype=object)))
        parents.append(np.full(len(pieces), i, dtype=np.intp))
    rings = np.concatenate(rings)
    parent = np.concatenate(parents).astype(np.intp)

    coords, ring_of = shapely.get_coordinates(rings, return_index=True)
    lengths = np.bincount(ring_of, minlength=rings.size)
    starts = np.cumsum(lengths) - lengths
    position = np.arange(coords.shape[0]) - starts[ring_of]
    open_ring = position < lengths[ring_of] - 1  # drop each ring's closing coordinate
    n_vertices = lengths - 1
    width = int(n_vertices.max()) if rings.size else 3
    last = coords[starts + n_vertices - 1] if rings.size else np.zeros((0, 2))
    vertices = np.repeat(last[:, None, :], width, axis=1)
    vertices[ring_of[open_ring], position[open_ring]] = coords[open_ring]
    edges = np.roll(vertices, -1, axis=1) - vertices

    groups = []
    for w in np.unique(n_vertices):
        part = np.flatnonzero(n_vertices == w)
        v = np.ascontiguousarray(vertices[part, :w].transpose(1, 0, 2))  # (w, Pg, 2)
        e = np.roll(v, -1, axis=0) - v
        length = np.hypot(e[..., 0], e[..., 1])
        with np.errstate(divide="ignore"):
            inv_length = np.where(length > 0.0, 1.0 / length, 0.0)
        skip = np.where(length > 0.0, 0.0, np.inf)
        groups.append(_Group(part, v, e, inv_length, skip))
    multi = np.bincount(parent, minlength=k) > 1
    return _Parts(vertices, edges, parent, multi, tuple(groups))


# --------------------------------------------------------------------------------------------
# exact segment / convex part tests
# --------------------------------------------------------------------------------------------


def _segments_meet_parts(parts: _Parts, a: np.ndarray, b: np.ndarray, part: np.ndarray) -> np.ndarray:
    """Exact separating-axis test: does closed segment ``a[i] b[i]`` meet convex part ``part[i]``?

    For a convex polygon and a segment the only candidate separating lines are the polygon's edge
    lines (the segment lies strictly outside one: both endpoints strictly right of that edge) and
    the segment's own line (all vertices strictly on one side). Padding edges have zero length, so
    their cross products are zero and never separate; a degenerate segment (a point) has a zero
    normal, so only the edge lines decide, i.e. the point-in-polygon test.
    """
    v = parts.vertices[part]
    e = parts.edges[part]
    ax, ay = a[:, 0:1], a[:, 1:2]
    bx, by = b[:, 0:1], b[:, 1:2]
    vx, vy, ex, ey = v[..., 0], v[..., 1], e[..., 0], e[..., 1]
    outside_a = ex * (ay - vy) - ey * (ax - vx) < 0.0
    outside_b = ex * (by - vy) - ey * (bx - vx) < 0.0
    separated = (outside_a & outside_b).any(axis=1)
    side = (bx - ax) * (vy - ay) - (by - ay) * (vx - ax)
    separated |= (side > 0.0).all(axis=1) | (side < 0.0).all(axis=1)
    return ~separated


def _outside_bits(parts: _Parts, points: np.ndarray) -> np.ndarray:
    """``(len(points), P)`` uint8: bit ``i`` set where a point is strictly outside edge ``i``'s line.

    Computed with exactly the expression of :func:`_segments_meet_parts`, so the bit test and
    the full test agree on every edge.
    """
    bits = np.zeros((points.shape[0], parts.count), dtype=np.uint8)
    for group in parts.groups:
        vx, vy = group.vertices[:, None, :, 0], group.vertices[:, None, :, 1]
        ex, ey = group.edges[:, None, :, 0], group.edges[:, None, :, 1]
        step = max(1, _CHUNK_ELEMENTS // group.inv_length.size)
        for first in range(0, points.shape[0], step):
            px = points[None, first : first + step, 0, None]
            py = points[None, first : first + step, 1, None]
            outside = ex * (py - vy) - ey * (px - vx) < 0.0  # (w, points, Pg)
            bits[first : first + step, group.part] = np.packbits(outside, axis=0, bitorder="little")[0]
    return bits


def _expand(start: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For runs ``[start[i], start[i] + count[i])``: the run of each element and its position."""
    live = np.flatnonzero(count > 0)
    count = count[live]
    offset = start[live] - (np.cumsum(count) - count)
    return np.repeat(live, count), np.arange(int(count.sum())) + np.repeat(offset, count)


# --------------------------------------------------------------------------------------------
# the angular sweep
# --------------------------------------------------------------------------------------------


def _sorted_targets(obs: np.ndarray, tgt: np.ndarray, near_limit: float):
    """Each observer's targets sorted by angle in ``[0, 2 pi)``, the list repeated at ``+2 pi`` so
    an interval that crosses angle 0 is still one run, as keys ``observer * 14 + angle``. Targets
    nearer than ``near_limit`` to the observer are parked past ``4 pi`` where no interval reaches.
    """
    n, m = obs.shape[0], tgt.shape[0]
    dx = tgt[None, :, 0] - obs[:, None, 0]
    dy = tgt[None, :, 1] - obs[:, None, 1]
    alpha = np.arctan2(dy, dx) + math.pi
    alpha[alpha >= _TWO_PI] = 0.0  # atan2 = pi and atan2 = -pi are the same direction
    close = np.hypot(dx, dy) < near_limit
    alpha[close] = np.inf
    order = np.argsort(alpha, axis=1)
    alpha = np.take_along_axis(alpha, order, axis=1)
    base = np.arange(n, dtype=float)[:, None] * _KEY_STRIDE
    if not close.any():
        keys = np.concatenate([alpha, alpha + _TWO_PI], axis=1) + base
        return keys.ravel(), np.concatenate([order, order], axis=1).ravel(), close
    open_ = (m - close.sum(axis=1))[:, None]
    j = np.arange(2 * m)[None, :]
    second = (j >= open_) & (j < 2 * open_)
    source = np.where(j < open_, j, np.where(second, j - open_, open_ + (j - 2 * open_) // 2))
    keys = np.take_along_axis(alpha, source, axis=1) + np.where(second, _TWO_PI, 0.0)
    keys[~np.isfinite(keys)] = _PARKED
    return (keys + base).ravel(), np.take_along_axis(order, source, axis=1).ravel(), close


def _sweep_chunk(parts: _Parts, obs: np.ndarray, tgt: np.ndarray, outside_t: np.ndarray, scale: float):
    """Rows ``(observer, target, part)`` for a chunk of observers against all targets.

    Returns two lists of row triples: rows that are final (parts of single-part polygons), and
    rows that may repeat a (line, polygon) because the polygon has several parts.
    """
    n, n_parts = obs.shape[0], parts.count
    near_limit = _REL_NEAR * scale
    keys, sorted_target, close = _sorted_targets(obs, tgt, near_limit)

    # -- each part seen from each observer: the angular interval it subtends --------------------
    # Per (observer, part): the breakpoints b0 <= b1 <= b2 <= b3 split the widened interval into a
    # low band [b0, b1) and a high band [b2, b3) that go to the full test, and an inner run
    # [b1, b2) of directions certainly inside the interval.
    ox, oy = obs[None, :, 0, None], obs[None, :, 1, None]
    front, b0, b1, b2, b3, kind = [], [], [], [], [], []
    for group in parts.groups:  # arrays (w, n, Pg): vertex, observer, part
        vx, vy = group.vertices[:, None, :, 0], group.vertices[:, None, :, 1]
        ex, ey = group.edges[:, None, :, 0], group.edges[:, None, :, 1]
        dx, dy = vx - ox, vy - oy
        # = ex * (oy - vy) - ey * (ox - vx) bit for bit, the expression of the full test
        cross = ey * dx - ex * dy  # < 0: observer strictly outside this edge
        front.append(np.packbits(cross < 0.0, axis=0, bitorder="little")[0])
        signed = cross * group.inv_length[:, None, :]
        outside_by = -signed.min(axis=0)  # a lower bound of the distance when > 0
        inside_by = (signed + group.skip[:, None, :]).min(axis=0)  # distance to the edge when inside
        phi = np.arctan2(dy, dx)
        delta = phi - phi[0]
        delta[delta > math.pi] -= _TWO_PI
        delta[delta < -math.pi] += _TWO_PI
        low, high = delta.min(axis=0), delta.max(axis=0)
        width = high - low
        start = phi[0] + low + (math.pi - _EPS_ANGLE)
        start -= np.floor(start / _TWO_PI) * _TWO_PI
        b0.append(start)
        b1.append(start + _EPS_ANGLE + np.minimum(_EPS_ANGLE, width / 2.0))
        b2.append(start + _EPS_ANGLE + np.maximum(width - _EPS_ANGLE, width / 2.0))
        b3.append(start + width + 2.0 * _EPS_ANGLE)
        kind.append(np.where(outside_by >= near_limit, _CONE, np.where(inside_by >= near_limit, _INSIDE, _NEAR)))
    join = lambda arrays: np.concatenate(arrays, axis=1).ravel()  # noqa: E731 - (o, part) order
    front, b0, b1, b2, b3, kind = map(join, (front, b0, b1, b2, b3, kind))
    part_ids = np.concatenate([g.part for g in parts.groups])
    piece_part = np.broadcast_to(part_ids[None, :], (n, n_parts)).ravel()
    piece_obs = np.repeat(np.arange(n), n_parts)

    # observers inside a part (deep) see every target through it: the inner run is the full circle;
    # observers too near a part for angles to be trusted send the full circle to the exact test
    inside_ = kind == _INSIDE
    b0[inside_], b1[inside_], b2[inside_], b3[inside_] = 0.0, 0.0, _TWO_PI, _TWO_PI
    near = kind == _NEAR
    b0[near], b1[near], b2[near], b3[near] = 0.0, 0.0, 0.0, _TWO_PI

    # -- one global search for every run of targets ----------------------------------------------
    base = piece_obs * _KEY_STRIDE
    s0 = np.searchsorted(keys, base + b0, side="left")
    s3 = np.searchsorted(keys, base + b3, side="left")
    # the bands are 2e-8 radians wide and rarely hold a target: walk to their ends instead of
    # searching again
    s1, s2 = s0.copy(), s3.copy()
    s2[near] = s0[near]
    cone = np.flatnonzero((kind == _CONE) & (s3 > s0))
    walk = cone
    while walk.size:
        walk = walk[keys[s1[walk]] < base[walk] + b1[walk]]
        s1[walk] += 1
        walk = walk[s1[walk] < s3[walk]]
    walk = cone[s2[cone] > s1[cone]]
    while walk.size:
        walk = walk[keys[s2[walk] - 1] >= base[walk] + b2[walk]]
        s2[walk] -= 1
        walk = walk[s2[walk] > s1[walk]]

    # -- inner runs: the edge-bit test is exact there ---------------------------------------------
    # A target in the interval is on a ray that hits the part, so the segment's own line never
    # separates; the segment misses only if some edge has observer and target strictly outside.
    # Pieces of single-part polygons give final rows; those of multi-part polygons may repeat a
    # (line, polygon) and are kept apart for deduplication.
    count = s2 - s1
    multi = parts.multi_part[parts.parent[piece_part]]
    single_rows, mixed_rows = [], []
    for select, rows in ((~multi, single_rows), (multi, mixed_rows)):
        if select.all():
            piece, pos = _expand(s1, count)
        elif select.any():
            piece, pos = _expand(s1, np.where(select, count, 0))
        else:
            continue
        target = sorted_target[pos]
        part = piece_part[piece]
        hit = np.flatnonzero((front[piece] & outside_t.ravel()[target * n_parts + part]) == 0)
        rows.append((piece_obs[piece[hit]], target[hit], part[hit]))

    # -- bands and near observers: the full separating-axis test ----------------------------------
    band_start = np.concatenate([s0, s2])
    band_count = np.concatenate([s1 - s0, s3 - s2])
    if band_count.any():
        piece, pos = _expand(band_start, band_count)
        piece %= piece_obs.size
        o, t, p = piece_obs[piece], sorted_target[pos], piece_part[piece]
        hit = _segments_meet_parts(parts, obs[o], tgt[t], p)
        mixed_rows.append((o[hit], t[hit], p[hit]))

    # -- pairs too close to trust angles: the full test against every part ------------------------
    if close.any():
        o, t = np.nonzero(close)
        o, t = np.repeat(o, n_parts), np.repeat(t, n_parts)
        p = np.tile(np.arange(n_parts), close.sum())
        hit = _segments_meet_parts(parts, obs[o], tgt[t], p)
        mixed_rows.append((o[hit], t[hit], p[hit]))
    return single_rows, mixed_rows


def _crossings_sweep(obs: np.ndarray, tgt: np.ndarray, geoms: np.ndarray):
    empty = np.zeros(0, dtype=np.intp)
    if geoms.size == 0 or obs.shape[0] == 0 or tgt.shape[0] == 0:
        return empty, empty, empty
    parts = _decompose(geoms)
    scale = max(1.0, float(np.abs(obs).max()), float(np.abs(tgt).max()), float(np.abs(parts.vertices).max()))
    outside_t = _outside_bits(parts, tgt)
    width = parts.vertices.shape[1]
    chunk = max(1, min(_CHUNK_ELEMENTS // (parts.count * width), _CHUNK_LINES // tgt.shape[0], _CHUNK_OBSERVERS))
    final, mixed = [], []
    for first in range(0, obs.shape[0], chunk):
        single_rows, mixed_rows = _sweep_chunk(parts, obs[first : first + chunk], tgt, outside_t, scale)
        for rows, out in ((single_rows, final), (mixed_rows, mixed)):
            out.extend((o + first if first else o, t, parts.parent[p]) for o, t, p in rows)

    # a line through several parts of one polygon is one crossing of that polygon
    if mixed:
        observer, target, polygon = (np.concatenate(column) for column in zip(*mixed))
        shared = parts.multi_part[polygon]
        if not shared.all():
            final.append((observer[~shared], target[~shared], polygon[~shared]))
            observer, target, polygon = observer[shared], target[shared], polygon[shared]
    if mixed and polygon.size:
        m, k = tgt.shape[0], geoms.size
        multi = np.flatnonzero(parts.multi_part)
        slot = np.full(k, -1, dtype=np.intp)
        slot[multi] = np.arange(multi.size)
        key = (observer * m + target) * multi.size + slot[polygon]
        span = obs.shape[0] * m * multi.size
        if span <= _DENSE_DEDUPE_LIMIT:  # a flag per possible row: faster than sorting
            seen = np.zeros(span, dtype=bool)
            seen[key] = True
            key = np.flatnonzero(seen)
        else:
            key = np.unique(key)
        final.append((key // (m * multi.size), (key // multi.size) % m, multi[key % multi.size]))
    if not final:
        return empty, empty, empty
    if len(final) == 1:
        return final[0]
    return tuple(np.concatenate(column) for column in zip(*final))


@functools.lru_cache(maxsize=4096)
def _padded_parts(polygon: Polygon | MultiPolygon) -> np.ndarray:
    """A polygon's convex parts as one read-only ``(p, _MAX_VERTICES, 2)`` array, counter-clockwise,
    each padded by repeating its last vertex (the same parts and padding as :func:`_decompose`)."""
    pieces = _cached_convex_parts(polygon)
    padded = np.empty((len(pieces), _MAX_VERTICES, 2))
    for i, piece in enumerate(pieces):
        ring = shapely.get_coordinates(piece.exterior)[:-1]
        padded[i, : len(ring)] = ring
        padded[i, len(ring) :] = ring[-1]
    return _frozen(padded)


def _crossings_dense(obs: np.ndarray, tgt: np.ndarray, geoms: np.ndarray, pieces: list[np.ndarray] | None = None):
    """Every line against every part with the separating-axis test of :func:`_segments_meet_parts`.

    On the small questions a game asks (a few units against a few dozen sample points), the
    sweep's fixed cost of some hundred array calls dominates; this path makes a dozen, and the
    parts of each polygon are cut once per polygon, not once per call.
    """
    empty = np.zeros(0, dtype=np.intp)
    if geoms.size == 0 or obs.shape[0] == 0 or tgt.shape[0] == 0:
        return empty, empty, empty
    if pieces is None:
        pieces = [_padded_parts(g) for g in geoms]
    vertices = np.concatenate(pieces) if len(pieces) > 1 else pieces[0]  # (P, W, 2)
    edges = np.roll(vertices, -1, axis=1) - vertices  # zero on padding
    vx, vy, ex, ey = vertices[..., 0], vertices[..., 1], edges[..., 0], edges[..., 1]

    def outside(points):  # (len(points), P) bit masks: strictly outside edge i's line
        px, py = points[:, 0, None, None], points[:, 1, None, None]
        return np.packbits(ex * (py - vy) - ey * (px - vx) < 0.0, axis=2, bitorder="little")[..., 0]

    separated = (outside(obs)[:, None, :] & outside(tgt)[None, :, :]) != 0  # (n, m, P)
    ax, ay = obs[:, None, None, None, 0], obs[:, None, None, None, 1]
    bx, by = tgt[None, :, None, None, 0], tgt[None, :, None, None, 1]
    side = (bx - ax) * (vy - ay) - (by - ay) * (vx - ax)  # (n, m, P, W)
    separated |= (side > 0.0).all(axis=3) | (side < 0.0).all(axis=3)
    hit = ~separated
    counts = np.fromiter((len(p) for p in pieces), dtype=np.intp, count=len(pieces))
    if counts.max() > 1:  # a line through several parts of one polygon is one crossing of it
        hit = np.logical_or.reduceat(hit, np.cumsum(counts) - counts, axis=2)
    return np.nonzero(hit)


def _dense_parts(obs: np.ndarray, tgt: np.ndarray, geoms: np.ndarray) -> list[np.ndarray] | None:
    """The polygons' padded parts when the dense test beats the sweep (up to ~2^15 line-part-vertex
    elements), else None."""
    lines = obs.shape[0] * tgt.shape[0] * _MAX_VERTICES
    if lines * geoms.size > _DENSE_ELEMENTS:  # every polygon has at least one part
        return None
    pieces = [_padded_parts(g) for g in geoms]
    return pieces if lines * sum(len(p) for p in pieces) <= _DENSE_ELEMENTS else None


def _crossings_strtree(obs: np.ndarray, tgt: np.ndarray, geoms: np.ndarray):
    n, m = obs.shape[0], tgt.shape[0]
    if geoms.size == 0 or n == 0 or m == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, empty
    start = np.repeat(obs, m, axis=0)
    end = np.tile(tgt, (n, 1))
    lines = shapely.linestrings(np.stack([start, end], axis=1))
    same = (start == end).all(axis=1)
    lines[same] = shapely.points(start[same])  # a zero-length line is a point
    line, polygon = shapely.STRtree(geoms).query(lines, predicate="intersects")
    return line // m, line % m, polygon


def crossings(observers, targets, polygons: Sequence[Polygon], *, method: str = "auto") -> Crossings:
    """Every (observer, target, polygon) whose closed sight segment meets the closed polygon.

    Parameters
    ----------
    observers, targets : array_like, shapes (N, 2) and (M, 2)
        Points; all N x M segments are tested. A segment whose ends coincide is a point and
        crosses the polygons that contain it (boundary included).
    polygons : sequence of shapely Polygon or MultiPolygon
        Anything that may lie across a line: terrain, screens, candidate screens. Convex or not,
        with or without holes.
    method : {"auto", "sweep", "dense", "strtree"}
        ``"sweep"`` is the fast angular sweep described in the module docstring; ``"dense"``
        tests every line against every convex part with the same exact test, which is faster on
        the small questions of a game (a few units, a few dozen sample points); ``"auto"``
        (default) takes ``"dense"`` up to about 33,000 (line, convex part, vertex) and the
        sweep above. ``"strtree"`` is shapely's vectorised STRtree query, exact but slower, kept as a
        check.

    Returns
    -------
    Crossings
        Unique rows ``(observer, target, polygon)``, exact up to the orientation test in floating
        point (so exact for the grazing cases one can build by hand).
    """
    method = _method(method)
    obs = _points(observers, "observers")
    tgt = _points(targets, "targets")
    geoms = _polygons(polygons, "polygons")
    pieces = _dense_parts(obs, tgt, geoms) if method == "auto" else None
    if method == "dense" or pieces is not None:
        observer, target, polygon = _crossings_dense(obs, tgt, geoms, pieces)
    elif method in ("auto", "sweep"):
        observer, target, polygon = _crossings_sweep(obs, tgt, geoms)
    else:
        observer, target, polygon = _crossings_strtree(obs, tgt, geoms)
    return Crossings(
        _frozen(np.asarray(observer, dtype=np.intp)),
        _frozen(np.asarray(target, dtype=np.intp)),
        _frozen(np.asarray(polygon, dtype=np.intp)),
        obs.shape[0],
        tgt.shape[0],
        geoms.size,
    )


# --------------------------------------------------------------------------------------------
# terrain and smoke
# --------------------------------------------------------------------------------------------


def sight_matrix(
    observers,
    targets,
    terrain: Sequence[Polygon] = (),
    screens: Sequence[Screen] = (),
    *,
    method: str = "auto",
) -> SightMatrix:
    """Sight from each observer point to each target point through terrain and smoke.

    ``terrain`` polygons block sight (woods, hills, buildings: whatever the ruleset says blocks
    here). ``screens`` are :class:`~engine.geometry.Screen` objects read at their current density;
    screens that are gone are ignored. The status codes follow the reading "terrain and full smoke
    block, partial smoke obscures"; rulesets with other readings use the counts.
    """
    terrain = list(_polygons(terrain, "terrain"))
    for i, screen in enumerate(screens):
        if not isinstance(screen, Screen):
            raise FireplanError(f"screens[{i}] must be a Screen, got {type(screen).__name__}")
    active = [s for s in screens if not s.is_gone]
    full = np.array([False] * len(terrain) + [s.density is Density.FULL for s in active], dtype=bool)
    smoke = np.array([False] * len(terrain) + [True] * len(active), dtype=bool)
    found = crossings(observers, targets, terrain + [s.polygon for s in active], method=method)
    terrain_blocked = found.crossed_matrix(~smoke)
    full_screens = found.count_matrix(full)
    partial_screens = found.count_matrix(smoke & ~full)
    status = np.where(
        terrain_blocked | (full_screens > 0),
        np.int8(SightStatus.BLOCKED),
        np.where(partial_screens > 0, np.int8(SightStatus.PARTIAL), np.int8(SightStatus.CLEAR)),
    ).astype(np.int8)
    return SightMatrix(
        _frozen(terrain_blocked), _frozen(full_screens), _frozen(partial_screens), _frozen(status)
    )


def footprint_sight(
    observer_points,
    target_footprints: Sequence[Polygon],
    terrain: Sequence[Polygon] = (),
    screens: Sequence[Screen] = (),
    *,
    per_edge: int = 2,
    threshold: float = 0.5,
    method: str = "auto",
) -> FootprintSight:
    """Sight from observer points to target bases: CHQ-30 "at least half the base visible".

    Each base is sampled at :func:`~engine.geometry.sample_points` (``per_edge=2``: centre,
    corners and edge midpoints of a rectangle) and all N x (M * s) lines go through one bulk
    :func:`sight_matrix` call. Do not pass a target's own base as terrain.
    """
    if not (isinstance(threshold, (int, float)) and 0.0 < threshold <= 1.0):
        raise FireplanError(f"threshold must be a fraction in (0, 1], got {threshold!r}")
    samples = [sample_points(fp, per_edge) for fp in target_footprints]
    counts = np.array([len(s) for s in samples], dtype=np.intp)
    points = np.vstack(samples) if samples else np.zeros((0, 2))
    sample_target = np.repeat(np.arange(counts.size), counts)
    sight = sight_matrix(observer_points, points, terrain, screens, method=method)
    n = sight.shape[0]
    if counts.size == 0:
        empty = np.zeros((n, 0))
        blocked = np.zeros((n, 0), dtype=np.int8)
        return FootprintSight(empty, empty, empty.astype(bool), blocked, sight, _frozen(sample_target))
    starts = np.cumsum(counts) - counts
    seen = np.add.reduceat(sight.visible.astype(np.intp), starts, axis=1) / counts
    clear = np.add.reduceat((sight.status == SightStatus.CLEAR).astype(np.intp), starts, axis=1) / counts
    visible = seen >= threshold
    status = np.where(
        ~visible,
        np.int8(SightStatus.BLOCKED),
        np.where(clear >= threshold, np.int8(SightStatus.CLEAR), np.int8(SightStatus.PARTIAL)),
    ).astype(np.int8)
    return FootprintSight(
        _frozen(seen), _frozen(clear), _frozen(visible), _frozen(status), sight, _frozen(sample_target)
    )


def inside(points, polygons: Sequence[Polygon], *, boundary: bool = True) -> np.ndarray:
    """``(P, K)`` boolean: is point ``p`` in polygon ``k``?

    With ``boundary=True`` a point on the edge counts as inside (shapely ``intersects``), which is
    what "touching a screen's edge" (MET-15) and "within a wood" (CHQ-30) need before the ruleset
    applies its own distances; ``boundary=False`` asks for the strict interior.
    """
    pts = _points(points, "points")
    geoms = _polygons(polygons, "polygons")
    if not (pts.shape[0] and geoms.size):
        return np.zeros((pts.shape[0], geoms.size), dtype=bool)
    if pts.shape[0] * geoms.size <= _DENSE_INSIDE:
        # every pair, on prepared polygons (prepared once: they are kept with the geometry)
        shapely.prepare(geoms)
        test = shapely.intersects if boundary else shapely.contains_properly
        return test(geoms[None, :], shapely.points(pts)[:, None])
    query = shapely.STRtree(geoms).query(shapely.points(pts), predicate="intersects" if boundary else "within")
    result = np.zeros((pts.shape[0], geoms.size), dtype=bool)
    result[query[0], query[1]] = True
    return result
