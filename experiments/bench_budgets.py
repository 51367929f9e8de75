"""Benchmark: do the planners and the AI honour their time budget on the largest boards?

For each board (the largest CHQ and MET maps, and the fire benchmark's generated 8 batteries x
30 targets board, the largest CHQ position we have), positions are reached by seeded random
play; at each position where the side may plan, every planner is called with a budget of
``--budget`` seconds for the whole call (building its model included) and timed: the fire
planner (CP-SAT), the smoke planner (CP-SAT), the Initial Barrage planner (before turn 1) and
the AI's decision (``SearchPlayer``, ``time_per_decision = --budget``). The table gives, per
planner and board, how many calls, the median and worst time as a multiple of the budget, how
many ran over budget + 20%, and how many degraded to the greedy plan (the model could not be
built and solved in time). Target: none over budget + 20%.

Run: ``.venv/bin/python experiments/bench_budgets.py --budget 0.5 --positions 4``
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "experiments"))

from agent.fires import plan_barrage, plan_fires  # noqa: E402
from agent.maps import map_path  # noqa: E402
from agent.players import SearchPlayer  # noqa: E402
from agent.smoke import plan_smoke  # noqa: E402
from engine.scenario import load_scenario  # noqa: E402

OVER = 1.2


def _largest_fire_board():
    from bench_fires import board, to_first_pulse

    return "fires 8x30 (generated)", "gb", lambda seed: to_first_pulse(board(0, 8, 30).new_game(seed=seed))


def _map(name: str, side: str):
    scenario = load_scenario(map_path(name))
    return f"{name} ({side})", side, lambda seed: scenario.new_game(seed=seed)


def positions(new_game, side: str, count: int, seed: int):
    """States where ``side`` is to decide (not at a chance node), spread over random games."""
    found = []
    game = 0
    while len(found) < count and game < 20:
        state = new_game(seed + game)
        chooser = random.Random(seed + game)
        decisions = [i for i in range(400)]
        chooser.shuffle(decisions)
        wanted = set(decisions[: max(1, count)])
        step = 0
        while not state.is_terminal() and len(found) < count and step < 4000:
            if state.is_chance_node():
                state.apply_action(state.sample_chance())
                continue
            if state.current_player() == side and (step in wanted or not found):
                found.append(state.clone())
            state.apply_action(chooser.choice(state.legal_actions()))
            step += 1
        game += 1
    return found


def _timed(call):
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def _degraded(result) -> bool:
    stats = dict(getattr(result, "stats", None) or {})
    return bool(stats.get("degraded"))


def measure(boards, budget: float, count: int, seed: int, ai: bool):
    rows = []
    for label, side, new_game in boards:
        times: dict[str, list[tuple[float, bool]]] = {}
        for state in positions(new_game, side, count, seed):
            calls = {}
            if hasattr(state, "fire_planning"):
                if state.turn == 0:
                    calls["barrage planner"] = lambda s=state: plan_barrage(s, side, time_limit=budget)
                else:
                    calls["fire planner"] = lambda s=state: plan_fires(s, side, time_limit=budget)
            calls["smoke planner"] = lambda s=state: plan_smoke(s, side, time_limit=budget, num_workers=1)
            if ai:
                calls["AI decision"] = lambda s=state: SearchPlayer(seed=seed, time_per_decision=budget).act(s.clone())
            for name, call in calls.items():
                try:
                    elapsed, result = _timed(call)
                except Exception as error:  # a planner that cannot plan this position says so; not timed
                    if "no " in str(error).lower() or "cannot" in str(error).lower():
                        continue
                    raise
                times.setdefault(name, []).append((elapsed, _degraded(result)))
        for name, values in sorted(times.items()):
            ratios = [t / budget for t, _ in values]
            rows.append((label, name, len(values), statistics.median(ratios), max(ratios),
                         sum(r > OVER for r in ratios), sum(d for _, d in values)))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=0.5, help="seconds per planner call / AI decision")
    parser.add_argument("--positions", type=int, default=4, help="positions per board")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-ai", action="store_true", help="time the planners only")
    args = parser.parse_args(argv)
    boards = [_map("chq_saint_aubin", "us"), _map("chq_saint_aubin", "de"), _map("met_le_mesnil", "gb"),
              _map("met_le_mesnil", "de"), _largest_fire_board()]
    rows = measure(boards, args.budget, args.positions, args.seed, ai=not args.no_ai)
    print(f"budget {args.budget:g} s per call; times as a multiple of the budget; over = more than {OVER:g}x")
    print(f"{'board':<24} {'planner':<16} {'calls':>5} {'median':>7} {'worst':>7} {'over':>5} {'greedy':>6}")
    for label, name, n, median, worst, over, greedy in rows:
        print(f"{label:<24} {name:<16} {n:>5} {median:>7.2f} {worst:>7.2f} {over:>5} {greedy:>6}")
    total_over = sum(row[5] for row in rows)
    print(f"calls over budget + 20%: {total_over} of {sum(row[2] for row in rows)}")
    return 0 if total_over == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
