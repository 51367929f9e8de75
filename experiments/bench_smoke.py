"""Benchmark: the smoke-placement planner on a generated 72" x 48" board.

The board: enemy units dug in on the northern third (observers), our units advancing from the
south along routes (their bases' sample points at ticks 0, 1 and 2 are the targets), enemy sight
lines to them weighted by a range-decaying threat (some CHQ-like, any screen obscures: values
``(v, v)``; some MET-like, partial smoke only halves the threat: ``(v / 2, v)``), and our own fire
lanes to the enemy (cutting one costs its value). Candidate screens are 1" x 12" battery smoke at
random points and bearings, full in their first tick and partial in their second when they last
two; a quarter arrive a tick late (comms and flight time). Each mission needs one of four
batteries (capacity 1, and a battery that smokes loses its fire this turn, CHQ-12) and a Staff
Order (3 to spend); a few 2" x 3" discharger screens next to our vehicles need only that
vehicle's single-use dischargers.

It builds the coverage (timed), solves greedy and CP-SAT, and prints the coverage build time,
CP-SAT's status, the time to the proven optimum (or the gap at the time limit), the objective
against greedy, and the problem size before and after CP-SAT's safe preprocessing.

Run: ``python experiments/bench_smoke.py --options 2000 --lines 20000 --seed 0 --time-limit 2 --workers 2``
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from agent.smoke import Budget, SightLine, build_coverage, solve_cpsat, solve_greedy
from engine.geometry import Density, Screen, bearing_between, rectangle, sample_points
from engine.options import SmokeOption

TABLE = (72.0, 48.0)
TICKS = 3
BATTERIES = ("us-bty-a", "us-bty-b", "us-bty-c", "us-bty-d")
STAFF_ORDERS = 3
VEHICLES_WITH_DISCHARGERS = 6
OWN_SHARE = 0.1  # share of the lines that are our own fire lanes


def make_board(
    n_options: int,
    n_lines: int,
    seed: int,
    deviate: bool = False,
    dischargers: float = 0.0,
    staff_orders: int = STAFF_ORDERS,
):
    """``(options, lines, budget)`` of a random board; the same seed gives the same board."""
    rng = np.random.default_rng(seed)
    n_own = round(OWN_SHARE * n_lines)
    n_enemy_lines = n_lines - n_own

    # -- units: enemy observers in the north, our units moving north along routes -------------
    n_enemy = 40
    enemy = np.c_[rng.uniform(2, 70, n_enemy), rng.uniform(32, 46, n_enemy)]
    n_ours = 20
    start = np.c_[rng.uniform(4, 68, n_ours), rng.uniform(3, 14, n_ours)]
    heading = rng.uniform(-30, 30, n_ours)  # degrees off north
    speed = rng.uniform(3, 6, n_ours)  # inches per tick
    positions = [
        start + t * speed[:, None] * np.c_[np.sin(np.radians(heading)), np.cos(np.radians(heading))]
        for t in range(TICKS)
    ]

    # -- sight lines: enemy -> sample points of our bases, per tick, a random share of pairs --
    lines: list[SightLine] = []
    per_tick = [n_enemy_lines // TICKS + (1 if t < n_enemy_lines % TICKS else 0) for t in range(TICKS)]
    met_like = rng.random(n_enemy) < 0.5
    for t in range(TICKS):
        points, owner = [], []
        for u in range(n_ours):
            base = rectangle(tuple(positions[t][u]), width=2.0, depth=1.0, bearing=heading[u])
            pts = sample_points(base, per_edge=2)
            points.append(pts)
            owner += [u] * len(pts)
        points = np.vstack(points)
        owner = np.asarray(owner)
        grid = n_enemy * len(points)
        if per_tick[t] > grid:
            raise SystemExit(f"--lines {n_lines} is more than this board's {TICKS * grid} enemy lines")
        pick = np.sort(rng.choice(grid, size=per_tick[t], replace=False))
        for flat in pick.tolist():
            e, p = divmod(flat, len(points))
            distance = math.dist(enemy[e], points[p])
            v = 0.15 * math.exp(-distance / 24.0)  # per sample point of a base
            values = (v / 2.0, v) if met_like[e] else (v, v)
            lines.append(
                SightLine(tuple(enemy[e]), tuple(points[p]), t, values, False, f"gb-{e}", f"us-{owner[p]}.{p % 9}")
            )
    own_per_tick = [n_own // TICKS + (1 if t < n_own % TICKS else 0) for t in range(TICKS)]
    for t in range(TICKS):
        grid = n_ours * n_enemy
        pick = np.sort(rng.choice(grid, size=min(own_per_tick[t], grid), replace=False))
        for flat in pick.tolist():
            u, e = divmod(flat, n_enemy)
            distance = math.dist(positions[t][u], enemy[e])
            v = 0.3 * math.exp(-distance / 24.0)
            lines.append(SightLine(tuple(positions[t][u]), tuple(enemy[e]), t, (v, v), True, f"us-{u}", f"gb-{e}"))

    # -- candidate screens ------------------------------------------------------------------------
    deviation = (((0.0, 0.0), 1.0),)
    if deviate:  # CHQ-like: on target half the time, else 3" in one of 8 directions
        deviation = (((0.0, 0.0), 0.5),) + tuple(
            ((3.0 * math.sin(math.radians(b)), 3.0 * math.cos(math.radians(b))), 0.5 / 8) for b in range(0, 360, 45)
        )
    options: list[SmokeOption] = []
    n_dischargers = round(dischargers * n_options)
    for k in range(n_options - n_dischargers):
        centre = (float(rng.uniform(0, TABLE[0])), float(rng.uniform(0, TABLE[1])))
        bearing = float(rng.uniform(0, 180))
        life = int(rng.integers(1, 3))
        delay = int(rng.random() < 0.25)
        polygon = rectangle(centre, width=12.0, depth=1.0, bearing=bearing)
        schedule = (Density.FULL, Density.PARTIAL)[:life]
        screen = Screen(polygon, schedule, source="battery smoke")
        screens = tuple(() for _ in range(delay)) + tuple((screen.aged(a),) for a in range(life))
        battery = BATTERIES[int(rng.integers(len(BATTERIES)))]
        label = f"{battery} at ({centre[0]:.0f}, {centre[1]:.0f}) bearing {bearing:.0f}"
        options.append(
            SmokeOption(
                actions=(("smoke", battery, centre, bearing),),
                screens=screens,
                resources=((battery, 1), ("staff_orders", 1)),
                deviation=deviation,
                label=label,
            )
        )
    for k in range(n_dischargers):
        vehicle = int(rng.integers(VEHICLES_WITH_DISCHARGERS))
        u = vehicle % n_ours
        towards = enemy[int(rng.integers(n_enemy))]
        bearing = bearing_between(positions[0][u], towards)
        step = 3.0 * np.array([math.sin(math.radians(bearing)), math.cos(math.radians(bearing))])
        centre = tuple(positions[0][u] + step)
        screen = Screen(rectangle(centre, width=3.0, depth=2.0, bearing=bearing), (Density.FULL,))
        item = f"dischargers:us-{u}"
        options.append(
            SmokeOption(
                actions=(("discharge", f"us-{u}", bearing),),
                screens=((screen,),),
                resources=((item, 1),),
                label=f"us-{u}'s dischargers towards bearing {bearing:.0f}",
            )
        )
    capacities = {b: 1 for b in BATTERIES}
    capacities["staff_orders"] = staff_orders
    for option in options:
        for name, _ in option.resources:
            capacities.setdefault(name, 1)
    fire = {b: float(v) for b, v in zip(BATTERIES, rng.uniform(0.3, 0.8, len(BATTERIES)))}
    budget = Budget(capacities, battery_fire_value=fire, own_lane_penalty=1.0)
    return options, lines, budget


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--options", type=int, default=2000)
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=2.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scenarios", type=int, default=1, help="deviation scenarios (1: as aimed)")
    parser.add_argument("--dischargers", type=float, default=0.0, help="share of the options that are dischargers")
    parser.add_argument("--staff-orders", type=int, default=STAFF_ORDERS)
    args = parser.parse_args(argv)

    options, lines, budget = make_board(
        args.options,
        args.lines,
        args.seed,
        deviate=args.scenarios > 1,
        dischargers=args.dischargers,
        staff_orders=args.staff_orders,
    )
    own = sum(line.own for line in lines)
    print(
        f"board {TABLE[0]:g}x{TABLE[1]:g}: {len(options)} candidate screens, {len(lines)} sight lines"
        f" ({len(lines) - own} enemy, {own} own lanes) over ticks 0-{TICKS - 1}; seed {args.seed};"
        f" {args.scenarios} scenario(s)"
    )
    extra = ", vehicles' dischargers once each" if args.dischargers else ""
    print(f"budget: {len(BATTERIES)} batteries (1 mission each, losing their fire), {args.staff_orders} Staff Orders{extra}")

    start = time.perf_counter()
    coverage = build_coverage(options, lines, scenarios=args.scenarios, seed=args.seed)
    t_cover = time.perf_counter() - start
    print(f"coverage build: {t_cover:.2f} s, {len(coverage):,} (option, scenario, line) rows")

    greedy = solve_greedy(coverage, budget)
    plan = solve_cpsat(coverage, budget, time_limit=args.time_limit, num_workers=args.workers, seed=args.seed)
    stat = dict(plan.stats)
    print(f"greedy: objective {greedy.objective:.4f} in {greedy.solve_time:.3f} s, options {list(greedy.indices)}")
    bound = "none" if plan.bound is None else f"{plan.bound:.4f}"
    gap = "unknown" if plan.gap is None else f"{plan.gap:.2e}"
    print(f"cp-sat: status {plan.status}, objective {plan.objective:.4f}, bound {bound}, gap {gap}, options {list(plan.indices)}")
    rest = plan.solve_time - sum(stat.get(k, 0.0) for k in ("preprocess seconds", "model seconds", "cp-sat wall seconds"))
    print(
        f"cp-sat time: {plan.solve_time:.3f} s total (limit {args.time_limit:g} s, {args.workers} workers) ="
        f" {stat.get('preprocess seconds', 0):.3f} s greedy, bounds and local search"
        f" + {stat.get('model seconds', 0):.3f} s building the model + {stat.get('cp-sat wall seconds', 0):.3f} s CP-SAT"
        f" + {rest:.3f} s the plan's report"
    )
    if plan.status == "OPTIMAL":
        print(f"time to proven optimum: {plan.solve_time:.3f} s")
    else:
        print(f"not proved optimal within the limit: gap {gap} at {plan.solve_time:.3f} s")
    ratio = plan.objective / greedy.objective if greedy.objective else math.inf
    print(f"objective cp-sat / greedy: {ratio:.4f}")
    timing = ("preprocess seconds", "model seconds", "cp-sat wall seconds")
    sizes = ", ".join(f"{k} {v:g}" for k, v in plan.stats if k not in timing)
    print(f"problem size: {sizes}")
    status_ok = plan.status == "OPTIMAL" and plan.solve_time <= args.time_limit
    print(f"target (proven optimal within {args.time_limit:g} s): {'met' if status_ok else 'NOT met'}")
    print()
    print(plan.explain(tick_word="pulse", threat_word="Disruption"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
