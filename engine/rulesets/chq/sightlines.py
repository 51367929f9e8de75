"""CHQ sight (CHQ-30) and smoke (CHQ-10, CHQ-12) on top of the bulk kernel ``engine.sight``.

All lines of one question go through one :func:`engine.sight.crossings` call;
the CHQ readings are then applied to its sparse rows with numpy, never pair by
pair in Python:

- the core of a wood (the wood shrunk by setting ``edge_sight``) blocks every
  line, so units in the edge band see out and are seen; units in one wood see
  each other when their bases are within ``inside_wood_sight``;
- a hill blocks unless the observer or the target stands on it, or one of them
  stands higher than the hill (a higher hill sees over a lower one);
- a hedge blocks unless the observer or the target touches it;
- the observer's friendly units block, unless the observer stands higher and the
  friendly unit is nearer to it than the target;
- smoke screens never block (the CHQ-12 reading); a line through one is
  obscured: ``smoke`` counts the screens at the level where at least half the
  target's base is seen (0 means clear), which is what CHQ-10's +2 TN reads.

A target is seen when at least ``visible_fraction`` of its sample points
(centre, corners and edge midpoints of its base) are seen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from engine.geometry import sample_points
from engine.sight import crossings

from .facts import CORE, HEDGE, HILL, PLAIN, GameFacts

__all__ = ["Viewpoint", "Blocker", "SightResult", "viewpoint", "compute_sight"]


@dataclass(frozen=True, slots=True)
class Viewpoint:
    """Where a line starts or ends: a point (and a base, for targets and wood checks) with its
    CHQ-30 context: height, the hills it stands on, the hedges it touches, the woods it is in."""

    point: tuple[float, float]
    base: Polygon | None
    height: float
    hills: frozenset[str]
    hedges: frozenset[str]
    woods: frozenset[int]
    samples: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class Blocker:
    """A friendly base that may block its own side's sight; ``owner`` is the observer index it
    belongs to (it never blocks its own unit), or -1."""

    polygon: Polygon
    point: tuple[float, float]
    height: float
    owner: int


@dataclass(frozen=True, slots=True, eq=False)
class SightResult:
    """``visible[n, m]``: observer ``n`` sees target ``m``; ``smoke[n, m]``: screens crossed at the
    level where the target counts as seen (0 when clear; meaningless when not visible)."""

    visible: np.ndarray
    smoke: np.ndarray


def viewpoint(facts: GameFacts, point, base: Polygon | None = None) -> Viewpoint:
    """The CHQ-30 context of a unit (or a bare point when ``base`` is None)."""
    p = shapely.Point(point)
    touch = float(facts.s("hedge_touch"))
    shape = base if base is not None else p
    hills = frozenset(f.id for f in facts.sight_features if f.kind == HILL and f.area.covers(p))
    hedges = frozenset(f.id for f in facts.sight_features if f.kind == HEDGE and f.area.distance(shape) <= touch)
    woods = frozenset(i for i, area in enumerate(facts.wood_areas) if area.covers(p))
    samples = sample_points(base) if base is not None else np.array([[float(point[0]), float(point[1])]])
    samples.setflags(write=False)
    return Viewpoint((float(point[0]), float(point[1])), base, facts.height_at(point), hills, hedges, woods, samples)


@dataclass(frozen=True, slots=True, eq=False)
class _Terrain:
    """The sight features as arrays, built once per game's facts: per polygon its kind, its height
    and the index of the feature it belongs to (a feature may be cut into several polygons)."""

    polygons: tuple[Polygon, ...]
    kinds: np.ndarray
    heights: np.ndarray
    feature: np.ndarray
    ids: dict[str, int]


def _terrain(facts: GameFacts) -> _Terrain:
    cached = facts.memo.get("sight-terrain")
    if cached is None:
        features = facts.sight_features
        ids = {fid: i for i, fid in enumerate(dict.fromkeys(f.id for f in features))}
        cached = _Terrain(
            tuple(f.polygon for f in features),
            np.array([f.kind for f in features], dtype=np.int8),
            np.array([f.height for f in features], dtype=float),
            np.array([ids[f.id] for f in features], dtype=np.intp),
            ids,
        )
        facts.memo["sight-terrain"] = cached
    return cached


def _feature_masks(views, attribute: str, ids: dict[str, int]) -> np.ndarray:
    mask = np.zeros((len(views), max(1, len(ids))), dtype=bool)
    for i, view in enumerate(views):
        for fid in getattr(view, attribute):
            if fid in ids:
                mask[i, ids[fid]] = True
    return mask


def compute_sight(
    facts: GameFacts,
    observers: list[Viewpoint],
    targets: list[Viewpoint],
    blockers: list[Blocker] = (),
    screens: list[Polygon] = (),
    *,
    clear_only: bool = False,
) -> SightResult:
    """Sight from every observer to every target, all lines in one kernel call.

    Targets with a base are sampled at its fixed sample points; targets without
    one are single points (a template centre, CHQ-17). ``clear_only`` makes a
    line through smoke count as not seen (a Forward Observer with
    ``fo_through_smoke`` false, CHQ-12).
    """
    n, m = len(observers), len(targets)
    if n == 0 or m == 0:
        return SightResult(np.zeros((n, m), dtype=bool), np.zeros((n, m), dtype=np.int64))
    samples = [t.samples if t.samples is not None else (sample_points(t.base) if t.base is not None else np.array([t.point])) for t in targets]
    per = {len(s) for s in samples}
    if len(per) != 1:  # mixed points and bases: answer each kind apart
        with_base = [i for i, t in enumerate(targets) if t.base is not None]
        points = [i for i, t in enumerate(targets) if t.base is None]
        visible = np.zeros((n, m), dtype=bool)
        smoke = np.zeros((n, m), dtype=np.int64)
        for group in (with_base, points):
            part = compute_sight(facts, observers, [targets[i] for i in group], blockers, screens, clear_only=clear_only)
            visible[:, group], smoke[:, group] = part.visible, part.smoke
        return SightResult(visible, smoke)
    s = per.pop()
    sample_xy = np.vstack(samples)
    obs_xy = np.array([o.point for o in observers], dtype=float)

    static = _terrain(facts)
    n_terrain, n_block = len(static.polygons), len(blockers)
    polygons = [*static.polygons, *(b.polygon for b in blockers), *screens]
    found = crossings(obs_xy, sample_xy, polygons)
    o, t_sample, k = found.observer, found.target, found.polygon
    t = t_sample // s
    blocked_row = np.zeros(k.shape[0], dtype=bool)

    if n_terrain:
        kinds, heights, fid, ids = static.kinds, static.heights, static.feature, static.ids
        terrain = k < n_terrain
        kk = np.where(terrain, k, 0)
        kind = np.where(terrain, kinds[kk], -1)
        h_obs = np.array([v.height for v in observers])[o]
        h_tgt = np.array([v.height for v in targets])[t]
        obs_hill = _feature_masks(observers, "hills", ids)
        tgt_hill = _feature_masks(targets, "hills", ids)
        obs_hedge = _feature_masks(observers, "hedges", ids)
        tgt_hedge = _feature_masks(targets, "hedges", ids)
        f = fid[kk]
        on_hill = obs_hill[o, f] | tgt_hill[t, f] | (heights[kk] < np.maximum(h_obs, h_tgt))
        touching = obs_hedge[o, f] | tgt_hedge[t, f]
        blocked_row |= (kind == CORE) | (kind == PLAIN)
        blocked_row |= (kind == HILL) & ~on_hill
        blocked_row |= (kind == HEDGE) & ~touching

    if n_block:
        rows = (k >= n_terrain) & (k < n_terrain + n_block)
        b = np.where(rows, k - n_terrain, 0)
        owner = np.array([bl.owner for bl in blockers], dtype=np.intp)[b]
        b_height = np.array([bl.height for bl in blockers])[b]
        b_xy = np.array([bl.point for bl in blockers], dtype=float)[b]
        o_height = np.array([v.height for v in observers])[o]
        d_blocker = np.hypot(b_xy[:, 0] - obs_xy[o, 0], b_xy[:, 1] - obs_xy[o, 1])
        d_target = np.hypot(sample_xy[t_sample, 0] - obs_xy[o, 0], sample_xy[t_sample, 1] - obs_xy[o, 1])
        over = (o_height > b_height) & (d_blocker < d_target)
        blocked_row |= rows & (owner != o) & ~over

    smoke_row = k >= n_terrain + n_block
    lines = n * m * s
    line = o * (m * s) + t_sample
    blocked = np.bincount(line[blocked_row], minlength=lines).reshape(n, m, s) > 0
    smoke = np.bincount(line[smoke_row], minlength=lines).reshape(n, m, s).astype(float)
    if clear_only:
        blocked |= smoke > 0
    level = np.where(blocked, np.inf, smoke)
    level.sort(axis=2)
    need = max(1, math.ceil(float(facts.s("visible_fraction")) * s - 1e-9))
    at = level[:, :, need - 1]
    visible = np.isfinite(at)
    smoke_level = np.where(visible, at, 0).astype(np.int64)

    # units inside one wood see each other up to inside_wood_sight (CHQ-30)
    reach = float(facts.s("inside_wood_sight"))
    for i, ov in enumerate(observers):
        if not ov.woods or ov.base is None:
            continue
        for j, tv in enumerate(targets):
            if visible[i, j] or not (ov.woods & tv.woods):
                continue
            shape = tv.base if tv.base is not None else shapely.Point(tv.point)
            if ov.base.distance(shape) <= reach:
                visible[i, j] = True
                smoke_level[i, j] = int(np.min(smoke[i, j]))
    return SightResult(visible, smoke_level)
