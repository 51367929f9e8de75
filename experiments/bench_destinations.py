"""Benchmark: what weighing destinations off the MET lattice costs the greedy choice, and what
weighing only the leading elements' rings (``RingMoves.focus``) gives up.

Positions are the movement decisions of seeded greedy-against-greedy games on the four MET
maps (every ``--every``-th one). At each, one greedy ranking (the AI's greedy choice, search
weights aside) is timed with the engine's lattice only, with the rings of every element, and
with the rings of the first 1 and 2 elements met in the lattice's ranking. Each is run in the
same process on a clone of the same position, so the times are read as ratios to the lattice's.
Quality is read against every element's rings: how often the focused ranking picks the same
order, and the mean value it gives up (the best value with every element's rings less the best
with focus, in the ranking's own expected evaluation, which is exact over the chance that
follows a move).

Run: ``.venv/bin/python experiments/bench_destinations.py --games 2 --every 3``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.maps import map_names, map_path  # noqa: E402
from agent.match import play_game  # noqa: E402
from agent.players import GreedyPlayer  # noqa: E402
from agent.players.greedy import GreedyPolicy  # noqa: E402
from agent.search.destinations import NO_MORE_MOVES, RingMoves  # noqa: E402
from engine.scenario import load_scenario  # noqa: E402

VARIANTS = {"lattice": NO_MORE_MOVES, "every element": RingMoves(), "focus 2": RingMoves(focus=2),
            "focus 1": RingMoves(focus=1)}


def movement_positions(name: str, games: int, every: int) -> list:
    """Every ``every``-th movement decision of ``games`` seeded greedy games on map ``name``."""
    return decision_positions(name, games, every, phase="move")


def decision_positions(name: str, games: int, every: int, phase: str | None = None) -> list:
    """Every ``every``-th decision with a choice (in ``phase`` only, when given) of ``games``
    seeded greedy games on map ``name``."""
    scenario = load_scenario(map_path(name))
    found: list = []
    for game in range(games):
        seen = [0]

        def keep(state, mover, action):
            if not state.is_chance_node() and phase in (None, state.phase) and len(state.legal_actions()) > 1:
                if seen[0] % every == 0:
                    found.append(state.clone())
                seen[0] += 1

        sides = [s.id for s in scenario.sides]
        players = {sides[0]: GreedyPlayer(2 * game + 1), sides[1]: GreedyPlayer(2 * game + 2)}
        play_game(scenario.new_game(seed=1000 * game + 1), players, on_step=keep)
    return found


def measure(state) -> dict[str, tuple[float, float, object]]:
    """(seconds, best value, best order) of one ranking per variant, on clones of ``state``."""
    out = {}
    for name, more in VARIANTS.items():
        policy = GreedyPolicy(np.random.default_rng(0), more=more)
        started = time.perf_counter()
        value, action = policy.ranked(state.clone())[0]
        out[name] = (time.perf_counter() - started, value, action)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="greedy games a map")
    parser.add_argument("--every", type=int, default=3, help="keep every N-th movement decision")
    parser.add_argument("--maps", nargs="*", default=map_names("met"))
    args = parser.parse_args(argv)
    rows = {name: [] for name in VARIANTS}
    for name in args.maps:
        for state in movement_positions(name, args.games, args.every):
            for variant, result in measure(state).items():
                rows[variant].append(result)
    count = len(rows["lattice"])
    if not count:
        print("no movement decisions found")
        return 1
    lattice = sum(t for t, _, _ in rows["lattice"])
    full = rows["every element"]
    print(f"{count} movement decisions on {', '.join(args.maps)} ({args.games} greedy games a map, one in "
          f"{args.every})")
    print("| ranking | time / lattice's | median s | same order as every element's | value given up (mean, max) |")
    print("|---|---|---|---|---|")
    for variant, results in rows.items():
        total = sum(t for t, _, _ in results)
        same = sum(a == b[2] for (_, _, a), b in zip(results, full))
        lost = [f[1] - r[1] for r, f in zip(results, full)]
        print(f"| {variant} | {total / lattice:.2f}x | {statistics.median(t for t, _, _ in results):.3f} | "
              f"{same}/{count} | {statistics.mean(lost):+.4f}, {max(lost):+.4f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
