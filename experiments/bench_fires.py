"""Benchmark: the fire planner on 8 Direct Support batteries x 30 enemy targets (CHQ).

The board (generated, seeded): a 72" x 48" table, six British platoons along the southern edge as
Forward Observers, eight 25pdr batteries (Commonwealth: time-on-target allowed, CHQ-24), 8 Staff
Orders, and 30 German units (rifle platoons, Panthers, PaK 40s, mortars) scattered over the
northern half. It is played to the British pulse of turn 1, then:

1. the columns are built (one per aim point on the engine's lattice that touches an enemy before
   deviation x battery group x sheaf x duration x mode, each with its exact expected value) and
   timed;
2. CP-SAT solves the allocation (time to the proven optimum), greedy too; the table gives the
   values and CP-SAT's gain over greedy;
3. the CP-SAT plan's actions are played ``--games`` times on clones with independent dice (the
   engine's own chance nodes), each outcome scored with the values frozen at planning time; the
   realised mean is compared with the predicted exact expected value and its 95% confidence
   interval.

Run: ``.venv/bin/python experiments/bench_fires.py --seeds 0 1 2 --games 2000``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import agent.fires as F  # noqa: E402
from agent.fires.verify import mean_and_ci, realise  # noqa: E402
from engine.game import CHANCE  # noqa: E402
from engine.rulesets.chq.actions import Chain, CommandRoll  # noqa: E402
from engine.scenario import parse_scenario  # noqa: E402

CARDS = ("German Rifle Platoon", "German Panther Platoon", "German PaK 40 AT Gun", "German 8cm Mortar")


def board(seed: int, batteries: int, targets: int, width: int = 72, depth: int = 48, nation: str = "Commonwealth"):
    """The generated scenario (see the module docstring)."""
    rng = np.random.default_rng(seed)
    ours = "British" if nation == "Commonwealth" else "US"
    units = []
    for i in range(6):
        card = f"{ours} Rifle Platoon" if i % 2 else ("British Cromwell Platoon" if ours == "British" else "US M4 Sherman Platoon")
        units.append({"id": f"gb-obs-{i + 1}", "card": card, "side": "gb", "position": [6 + 12 * i, 8], "facing": 0})
    battery = "British 25pdr Battery" if ours == "British" else "US 105mm Battery"
    units += [{"id": f"gb-bty-{i + 1}", "card": battery, "side": "gb"} for i in range(batteries)]
    placed: list[tuple[float, float]] = []
    while len(placed) < targets:
        p = (float(rng.integers(4, width - 4)), float(rng.integers(20, depth - 3)))
        if all(abs(p[0] - q[0]) >= 4 or abs(p[1] - q[1]) >= 3 for q in placed):
            placed.append(p)
    for i, p in enumerate(placed):
        units.append({"id": f"de-{i + 1:02d}", "card": CARDS[int(rng.integers(len(CARDS)))], "side": "de", "position": list(p), "facing": 180})
    units.append({"id": "de-bty-1", "card": "German 10.5cm Battery", "side": "de"})
    data = {
        "format": "fireplan-scenario/1",
        "name": f"bench_fires seed {seed}",
        "ruleset": "chq",
        "table": {"width": width, "depth": depth, "units": "in"},
        "sides": [
            {"id": "gb", "name": "Attacker", "nation": nation, "edge": "south", "attacker": True, "command_dice": batteries,
             "comms_dice": 4, "staff_orders": batteries},
            {"id": "de", "name": "Germans", "nation": "Germany", "edge": "north", "command_dice": 5, "comms_dice": 4, "staff_orders": 2},
        ],
        "units": units,
        "blinds": [],
        "terrain": {"type": "FeatureCollection", "features": []},
        "objectives": [],
        "limits": {"turns": 3},
        "mission": "meeting-engagement",
    }
    return parse_scenario(json.dumps(data))


def to_first_pulse(state, side: str = "gb"):
    """Through the (empty) Initial Barrage to turn 1, dice rolled so that ``side`` moves first."""
    while state.turn == 0:
        if state.current_player() == CHANCE:
            state.apply_action(max(state.chance_outcomes(), key=lambda o: o[1])[0])
        else:
            actions = state.legal_actions()
            state.apply_action(next((a for a in actions if getattr(a, "at", None) is None), actions[0]))
    for s in state.facts.side_ids:
        n = int(state.facts.sides[s].command_dice)
        faces = ([6, 4, 4, 4, 3, 5, 5, 2, 2, 3] if s == side else [2, 2, 3, 3, 5, 5, 4, 4, 3, 3])[:n]
        counts = tuple(faces.count(f) for f in range(1, 7))
        state.apply_action(CommandRoll(s, counts))
    chains = [a for a in state.legal_actions() if isinstance(a, Chain)]
    state.apply_action(max(chains, key=lambda c: (c.dice, -c.staff)))
    assert state.current_player() == side
    return state


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--batteries", type=int, default=8)
    parser.add_argument("--targets", type=int, default=30)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--nation", default="Commonwealth", choices=["Commonwealth", "USA"])
    args = parser.parse_args(argv)

    print(f"fire planner: {args.batteries} batteries x {args.targets} targets, CP-SAT {args.workers} worker(s), time limit {args.time_limit:g} s")
    print(f"{'seed':>4} {'columns':>7} {'aims':>4} {'build s':>7} {'status':>8} {'to optimum s':>12} {'CP-SAT':>8} {'greedy':>8} {'gain':>6}  plan")
    first = None
    for seed in args.seeds:
        state = to_first_pulse(board(seed, args.batteries, args.targets, nation=args.nation).new_game(seed=seed))
        problem = F.build_problem(state, "gb")
        started = time.perf_counter()
        cp = F.solve_cpsat(problem, time_limit=args.time_limit, num_workers=args.workers, random_seed=seed)
        to_optimum = time.perf_counter() - started
        greedy = F.solve_greedy(problem)
        plan = F.make_plan(problem, cp)
        gain = cp.objective / greedy.objective - 1 if greedy.objective else float("nan")
        modes = ", ".join(f"{o.column.mode}x{o.column.size}" for o in plan.orders)
        print(f"{seed:>4} {len(problem.columns):>7} {problem.stats['aims']:>4} {problem.build_time:>7.2f} {cp.status:>8} {to_optimum:>12.3f} "
              f"{cp.objective / F.SCALE:>8.3f} {greedy.objective / F.SCALE:>8.3f} {gain:>+6.1%}  {modes}")
        if first is None:
            first = (seed, state, problem, plan)

    seed, state, problem, plan = first
    print()
    print(f"realisations (seed {seed}): the CP-SAT plan's {len(plan.actions())} calls played {args.games} times with the engine's dice")
    started = time.perf_counter()
    values = realise(state, plan.actions(), problem.board, args.games, seed=1000)
    mean, half, sd = mean_and_ci(values)
    inside = abs(mean - plan.fire_value) <= half
    print(f"  predicted exact expected effect now : {plan.fire_value:.4f}  (columns added alone: {sum(o.column.now for o in plan.orders):.4f})")
    print(f"  realised mean over {args.games} games       : {mean:.4f} +/- {half:.4f} (95% CI; sd {sd:.3f}; {time.perf_counter() - started:.1f} s)")
    print(f"  prediction inside the 95% CI        : {'yes' if inside else 'NO'} (z = {(mean - plan.fire_value) / (sd / np.sqrt(len(values))):+.2f})")
    return 0 if inside else 1


if __name__ == "__main__":
    raise SystemExit(main())
