"""Benchmark: stress-run speed, games per second, on 1 and 2 worker processes, and the speed-up.

Each configuration plays the same seeded games of a scenario (``fireplan stress``'s own
functions: :func:`agent.stress.play_one` for 1 process in this one, :func:`agent.stress.run_local`
for 2 spawned workers, results checked equal to the single-process ones); the figure is games
per second of wall time, the workers' start-up included (about a second). The speed-up is measured in the same process, so it is a ratio of two
runs on the same machine at the same time. Random players, then the AI (``--iterations``
simulations a decision, so its games are the same on any number of workers) on fewer games. Targets: random-player games at least 100 per second per core on the
default map; at least 1.8x on 2 workers.

Run: ``.venv/bin/python experiments/bench_stress.py --games 200 --ai-games 4 --iterations 4``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.maps import map_path  # noqa: E402
from agent.stress import StressRun, play_one, run_local  # noqa: E402
from engine.scenario import load_scenario  # noqa: E402

PER_CORE_TARGET, SPEEDUP_TARGET = 100.0, 1.8


def _limit(path: Path) -> int:
    scenario = load_scenario(path)
    return int(scenario.turns if scenario.turns is not None else scenario.periods)


def timed_run(run: StressRun, workers: int, limit: int) -> tuple[float, list[dict]]:
    """Games per second and the rows, on ``workers`` processes (1: this one)."""
    indices = list(range(run.games))
    rows: list[dict] = []
    started = time.perf_counter()
    if workers == 1:
        rows = [play_one(run, i, limit) for i in indices]
    else:
        run_local(run, indices, limit, rows.extend, workers=workers, batch=max(1, run.games // (32 * workers)))
    elapsed = time.perf_counter() - started
    return run.games / elapsed, sorted(rows, key=lambda r: r["index"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--map", default="chq_saint_aubin", help="map name (default: the default map)")
    parser.add_argument("--games", type=int, default=200, help="random-player games per configuration")
    parser.add_argument("--ai-games", type=int, default=4, help="AI games per configuration (0: skip)")
    parser.add_argument("--iterations", type=int, default=4, help="the AI's simulations a decision")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        path = map_path(args.map)
    except ValueError as error:
        parser.error(str(error))
    limit = _limit(path)
    configurations = [("random v random", StressRun(str(path), args.games, "random", "random", (), args.seed, 1.0))]
    if args.ai_games:
        configurations.append(("ai v random", StressRun(str(path), args.ai_games, "ai", "random", (), args.seed, 1.0, args.iterations)))
    print(f"{args.map}: games per second (wall time), 1 process v 2 spawned worker processes")
    print(f"{'players':<16} {'games':>5} {'1 process':>10} {'2 workers':>10} {'speed-up':>9}  same rows")
    ok = True
    for label, run in configurations:
        one, rows_one = timed_run(run, 1, limit)
        two, rows_two = timed_run(run, 2, limit)
        same = rows_one == rows_two
        print(f"{label:<16} {run.games:>5} {one:>10.1f} {two:>10.1f} {two / one:>8.2f}x  {'yes' if same else 'NO'}")
        ok &= same
        if label.startswith("random"):
            print(f"  random-player games per core: {one:.1f} (target {PER_CORE_TARGET:g}); speed-up {two / one:.2f}x "
                  f"(target {SPEEDUP_TARGET:g}x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
