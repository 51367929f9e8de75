"""Benchmark: bulk line of sight (engine.sight.crossings) against a plain per-pair shapely loop.

The scene is a 72" x 48" table with screens, small smoke rectangles and terrain (rectangles,
triangles and non-convex woods, some with clearings), and random observers and targets. The
"plain loop" is the honest shapely baseline: for each pair build a ``LineString`` and test it
against all polygons at once with vectorised ``shapely.intersects``. It is timed on a random
subsample of pairs and scaled up; the sweep and the STRtree method run on every pair. Answers
must agree exactly (on the subsample for the loop, on everything for STRtree); the script exits
with status 1 if they do not.

Run: ``python experiments/bench_sight.py --observers 300 --targets 300 --polygons 200``
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from engine.geometry import rectangle, triangle
from engine.sight import crossings

TABLE = (72.0, 48.0)


def random_wood(rng: np.random.Generator, centre, radius: float, clearing: bool) -> Polygon:
    """A star-shaped, usually non-convex wood; optionally with a clearing (a hole)."""
    n = int(rng.integers(7, 15))
    angles = np.sort(rng.uniform(0.0, 2.0 * math.pi, n))
    radii = radius * rng.uniform(0.45, 1.0, n)
    shell = np.c_[centre[0] + radii * np.cos(angles), centre[1] + radii * np.sin(angles)]
    holes = []
    if clearing:
        clearing = rectangle(centre, 0.25 * radius, 0.2 * radius, rng.uniform(0, 360))
        holes.append(np.asarray(clearing.exterior.coords))
    wood = Polygon(shell, holes)
    return wood if wood.is_valid else Polygon(shell).convex_hull


def scene(n_polygons: int, rng: np.random.Generator) -> tuple[list[Polygon], list[str]]:
    """About 55% 1"x12" screens, 20% 3"x2" smoke rectangles (MET 75 m x 50 m), 25% terrain."""
    polygons, kinds = [], []
    n_screens = round(0.55 * n_polygons)
    n_small = round(0.20 * n_polygons)
    n_terrain = n_polygons - n_screens - n_small

    def spot():
        return (rng.uniform(0.0, TABLE[0]), rng.uniform(0.0, TABLE[1]))

    for _ in range(n_screens):
        polygons.append(rectangle(spot(), width=12.0, depth=1.0, bearing=rng.uniform(0.0, 360.0)))
        kinds.append("screen 1x12")
    for _ in range(n_small):
        polygons.append(rectangle(spot(), width=3.0, depth=2.0, bearing=rng.uniform(0.0, 360.0)))
        kinds.append("smoke 3x2")
    for i in range(n_terrain):
        kind = i % 5
        if kind == 0:
            polygons.append(rectangle(spot(), rng.uniform(2, 6), rng.uniform(2, 6), rng.uniform(0, 360)))
            kinds.append("building")
        elif kind == 1:
            polygons.append(triangle(spot(), rng.uniform(0, 360), rng.uniform(3, 8), rng.uniform(2, 6)))
            kinds.append("triangle")
        else:
            polygons.append(random_wood(rng, spot(), rng.uniform(3.0, 7.0), clearing=kind == 4))
            kinds.append("wood")
    return polygons, kinds


def best_of(repeat: int, function):
    best, result = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def as_set(observer, target, polygon) -> set[tuple[int, int, int]]:
    return set(zip(observer.tolist(), target.tolist(), polygon.tolist()))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--observers", type=int, default=300)
    parser.add_argument("--targets", type=int, default=300)
    parser.add_argument("--polygons", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--loop-pairs", type=int, default=5000, help="pairs in the plain-loop subsample")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    polygons, kinds = scene(args.polygons, rng)
    observers = rng.uniform((0.0, 0.0), TABLE, (args.observers, 2))
    targets = rng.uniform((0.0, 0.0), TABLE, (args.targets, 2))
    n_pairs = args.observers * args.targets
    counts = {k: kinds.count(k) for k in dict.fromkeys(kinds)}
    mix = ", ".join(f"{v} {k}" for k, v in counts.items())
    print(f"table {TABLE[0]:g}x{TABLE[1]:g}; {len(polygons)} polygons ({mix})")
    print(f"{args.observers} observers x {args.targets} targets = {n_pairs} sight lines; seed {args.seed}")

    # -- engine: angular sweep (default) and STRtree, every pair --------------------------------
    t_sweep, sweep = best_of(args.repeat, lambda: crossings(observers, targets, polygons))
    t_tree, tree = best_of(args.repeat, lambda: crossings(observers, targets, polygons, method="strtree"))

    # -- plain loop on a subsample --------------------------------------------------------------
    n_loop = min(args.loop_pairs, n_pairs)
    sample = np.sort(rng.choice(n_pairs, size=n_loop, replace=False))
    polygon_array = np.array(polygons, dtype=object)

    def plain_loop():
        rows = []
        for flat in sample.tolist():
            o, t = divmod(flat, args.targets)
            line = LineString([observers[o], targets[t]])
            for k in np.flatnonzero(shapely.intersects(line, polygon_array)).tolist():
                rows.append((o, t, k))
        return rows

    t_loop, loop_rows = best_of(args.repeat, plain_loop)

    # -- answers must agree ---------------------------------------------------------------------
    sweep_set = as_set(sweep.observer, sweep.target, sweep.polygon)
    tree_set = as_set(tree.observer, tree.target, tree.polygon)
    in_sample = np.isin(sweep.line, sample)
    sweep_sample = as_set(sweep.observer[in_sample], sweep.target[in_sample], sweep.polygon[in_sample])
    same_tree = sweep_set == tree_set and len(sweep_set) == len(sweep)
    same_loop = sweep_sample == set(loop_rows)

    loop_rate = n_loop / t_loop
    sweep_rate = n_pairs / t_sweep
    tree_rate = n_pairs / t_tree
    print(f"crossings found: {len(sweep)} ({len(sweep) / n_pairs:.1f} polygons per line)")
    print(f"plain loop : {t_loop:8.3f} s for a random subsample of {n_loop} pairs -> {loop_rate:10,.0f} lines/s"
          f" (scaled to all pairs: {n_pairs / loop_rate:.2f} s)  best of {args.repeat}")
    print(f"strtree    : {t_tree:8.3f} s for all {n_pairs} pairs -> {tree_rate:10,.0f} lines/s"
          f"  ({tree_rate / loop_rate:5.1f}x the loop)  best of {args.repeat}")
    print(f"sweep      : {t_sweep:8.3f} s for all {n_pairs} pairs -> {sweep_rate:10,.0f} lines/s"
          f"  ({sweep_rate / loop_rate:5.1f}x the loop, {sweep_rate / tree_rate:.1f}x strtree)  best of {args.repeat}")
    print(f"ratio sweep/loop: {sweep_rate / loop_rate:.1f} (target >= 30)")
    print(f"agreement  : sweep == strtree on all pairs: {same_tree}; sweep == loop on the subsample: {same_loop}")
    if not (same_tree and same_loop):
        print("ANSWERS DIFFER", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
