"""Seeing in smoke and cover (MET-15, MET-16, MET-17), in bulk.

Sight runs from element centre to element centre. The engine's bulk kernel
(:func:`engine.sight.crossings`) finds every (observer, target, polygon) whose line
meets terrain or a screen; this module reads those rows under the MET rules with numpy
masks, never a Python loop over pairs:

- Terrain that blocks sight blocks a line. An element in a wood or a building sees out
  and is seen along a line that runs inside the feature for at most its half-diagonal plus
  ``terrain_edge_depth`` metres; two elements in the same feature see each other up to
  ``terrain_inside_sight`` metres apart (house values, as CHQ-30 does for woods).
- A **full** screen blocks a line (MET-15), except:

  * an element inside it and touching its edge sees out and is seen along a line that
    runs inside the screen for at most its half-diagonal plus ``edge_sight_extra``
    metres; the line counts as partial smoke (MET-15);
  * two elements inside the same screen see each other only in base contact
    (``base_contact_distance``, MET-17), through partial smoke.
- A **partial** screen on a line makes it partial (``inside_partial_blind`` extends
  MET-17 to partial screens).

Cover: an element is in cover when its centre lies in terrain with cover, or inside a
screen (full, or partial with ``partial_smoke_is_cover``). A moving element also counts
as in cover when more than half of its move lay in terrain cover (``half_move_cover``),
but never for smoke: leaving a screen into the open is not cover, however long it spent
inside (MET-16).

Examples
--------
>>> from engine.geometry import Density, Screen, rectangle, footprint
>>> wall = Screen(rectangle((50, 0), 20, 20), (Density.FULL,))
>>> pts = [(0, 0), (100, 0), (0, 50)]
>>> bases = [footprint(p, 10, 10) for p in pts]
>>> met_sight(pts, bases, pts, bases, screens=[wall]).tolist()
[[0, 2, 0], [2, 0, 0], [0, 0, 0]]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from engine.geometry import Density, Screen
from engine.rulesets import RulesetData
from engine.sight import SightStatus, crossings, inside

from .data import met_rules

__all__ = ["SightStatus", "met_sight", "cover_mask", "path_cover_fraction", "half_diagonal"]

_CLEAR, _PARTIAL, _BLOCKED = int(SightStatus.CLEAR), int(SightStatus.PARTIAL), int(SightStatus.BLOCKED)


def half_diagonal(base: Polygon) -> float:
    """Half the longest distance across a base's bounding box."""
    return float(_half_diagonals(np.array([base], dtype=object))[0])


def _half_diagonals(bases: np.ndarray) -> np.ndarray:
    """:func:`half_diagonal` of each of an array of bases, in one call."""
    box = shapely.bounds(bases).reshape(-1, 4)
    return 0.5 * np.hypot(box[:, 2] - box[:, 0], box[:, 3] - box[:, 1])


def met_sight(
    observers,
    observer_bases: Sequence[Polygon],
    targets,
    target_bases: Sequence[Polygon],
    terrain: Sequence[Polygon] = (),
    screens: Sequence[Screen] = (),
    rules: RulesetData | None = None,
) -> np.ndarray:
    """``(N, M)`` :class:`~engine.sight.SightStatus` codes from each observer to each target.

    ``terrain`` are the polygons that block sight; ``screens`` are read at their current
    density (gone screens are ignored). A line between coincident points is clear.
    """
    rules = met_rules(rules)
    obs = np.asarray(observers, dtype=float).reshape(-1, 2)
    tgt = np.asarray(targets, dtype=float).reshape(-1, 2)
    n, m = obs.shape[0], tgt.shape[0]
    status = np.zeros((n, m), dtype=np.int8)
    active = [s for s in screens if not s.is_gone]
    polygons = list(terrain) + [s.polygon for s in active]
    if n == 0 or m == 0 or not polygons:
        return status
    n_terrain = len(terrain)
    full = np.array([False] * n_terrain + [s.density is Density.FULL for s in active])
    found = crossings(obs, tgt, polygons)
    o, t, k = found.observer, found.target, found.polygon
    in_o = inside(obs, polygons)
    in_t = inside(tgt, polygons)
    o_in, t_in = in_o[o, k], in_t[t, k]

    blocked = np.zeros(len(k), dtype=bool)
    partial = np.zeros(len(k), dtype=bool)
    is_terrain = k < n_terrain
    blocked |= is_terrain & ~o_in & ~t_in
    # an element in a wood or a building sees out (and is seen) near its edge only
    obs_bases = np.array(observer_bases, dtype=object)
    tgt_bases = np.array(target_bases, dtype=object)
    polygon_array = np.array(polygons, dtype=object)
    depth = float(rules.setting("terrain_edge_depth"))
    one = np.flatnonzero(is_terrain & (o_in ^ t_in))
    if one.size:
        inner_is_obs = o_in[one]
        bases = np.where(inner_is_obs, obs_bases[o[one]], tgt_bases[t[one]])
        lines = shapely.linestrings(np.stack([obs[o[one]], tgt[t[one]]], axis=1))
        run = shapely.length(shapely.intersection(lines, polygon_array[k[one]]))
        reach = _half_diagonals(bases) + depth
        blocked[one[run > reach + 1e-9]] = True
    both = np.flatnonzero(is_terrain & o_in & t_in)
    if both.size:
        apart = np.hypot(*(obs[o[both]] - tgt[t[both]]).T)
        blocked[both[apart > float(rules.setting("terrain_inside_sight")) + 1e-9]] = True

    smoke = ~is_terrain
    blind_inside = full.copy()
    if rules.setting("inside_partial_blind"):
        blind_inside[n_terrain:] = True
    # partial screens: the line is partial, unless both ends are inside a screen that blinds
    partial |= smoke & ~full[k]
    # full screens with neither end inside block outright
    blocked |= smoke & full[k] & ~o_in & ~t_in
    # both ends inside one (blinding) screen: only in base contact (MET-17)
    both = np.flatnonzero(smoke & blind_inside[k] & o_in & t_in)
    if both.size:
        ob = obs_bases[o[both]]
        tb = tgt_bases[t[both]]
        contact = shapely.distance(ob, tb) <= float(rules.setting("base_contact_distance")) + 1e-9
        blocked[both[~contact]] = True
        partial[both[contact]] = True
    # exactly one end inside a full screen: sees out only from its edge (MET-15)
    one = np.flatnonzero(smoke & full[k] & (o_in ^ t_in))
    if one.size:
        inner_is_obs = o_in[one]
        bases = np.where(inner_is_obs, obs_bases[o[one]], tgt_bases[t[one]])
        screen_polys = polygon_array[k[one]]
        at_edge = shapely.intersects(bases, shapely.boundary(screen_polys))
        lines = shapely.linestrings(np.stack([obs[o[one]], tgt[t[one]]], axis=1))
        run = shapely.length(shapely.intersection(lines, screen_polys))
        reach = _half_diagonals(bases) + float(rules.setting("edge_sight_extra"))
        sees = at_edge & (run <= reach + 1e-9)
        blocked[one[~sees]] = True
        partial[one[sees]] = True

    line = o * m + t
    blocked_lines = np.bincount(line[blocked], minlength=n * m).reshape(n, m) > 0
    partial_lines = np.bincount(line[partial], minlength=n * m).reshape(n, m) > 0
    status[partial_lines] = _PARTIAL
    status[blocked_lines] = _BLOCKED
    same = (np.abs(obs[:, None, :] - tgt[None, :, :]).sum(axis=2) == 0)
    status[same] = _CLEAR
    return status


def cover_mask(
    points,
    cover_terrain: Sequence[Polygon] = (),
    screens: Sequence[Screen] = (),
    path_cover: Sequence[float | None] | None = None,
    rules: RulesetData | None = None,
) -> np.ndarray:
    """Which elements are in cover now (MET-15, MET-16 and MET-18's -2).

    ``path_cover[i]`` is the fraction of element ``i``'s move this period that lay in
    terrain cover (None when it did not move); see :func:`path_cover_fraction`.
    """
    rules = met_rules(rules)
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    covered = np.zeros(pts.shape[0], dtype=bool)
    if pts.shape[0] == 0:
        return covered
    if cover_terrain:
        covered |= inside(pts, list(cover_terrain)).any(axis=1)
    active = [s for s in screens if not s.is_gone]
    if not rules.setting("partial_smoke_is_cover"):
        active = [s for s in active if s.density is Density.FULL]
    if active:
        covered |= inside(pts, [s.polygon for s in active]).any(axis=1)
    if path_cover is not None and rules.setting("half_move_cover"):
        fractions = np.array([-1.0 if f is None else float(f) for f in path_cover])
        covered |= fractions > 0.5
    return covered


def path_cover_fraction(start, end, cover_terrain: Sequence[Polygon] | BaseGeometry | None) -> float | None:
    """Share of the straight move from ``start`` to ``end`` that lies in terrain cover (None: no move).

    ``cover_terrain`` is the cover's polygons, or their union when the caller keeps it (a game
    moves thousands of times over the same terrain). Smoke is deliberately not an argument:
    MET-16 denies it.
    """
    if tuple(start) == tuple(end):
        return None
    path = shapely.LineString([start, end])
    if cover_terrain is None or (not isinstance(cover_terrain, BaseGeometry) and not cover_terrain):
        return 0.0
    covered = cover_terrain if isinstance(cover_terrain, BaseGeometry) else shapely.union_all(list(cover_terrain))
    return float(path.intersection(covered).length / path.length)
