"""Tune the evaluation's weights by self-play: a greedy player with candidate weights against the
greedy player with the default ones, on every map of a ruleset, both sides, paired seeds.

Every candidate plays the same games (map, side, game seed, players' seeds), so candidates are
compared with common random numbers. The search is a coordinate search: each weight in turn is
multiplied by each factor of ``--factors``, and a change is kept when its score rate (a draw
counts half) beats the best so far by ``--margin``. The best weights are then replayed on fresh
seeds (``--validate``), which is the figure to trust: the search itself picks the luckiest of
many candidates. A change worth taking shows up in validation, and then goes into
:data:`agent.search.evaluation.DEFAULT_WEIGHTS`.

``--candidate`` skips the search and plays the given weights against the defaults on the fresh
seeds: ``--candidate search`` the search's leaf weights (:data:`~agent.search.evaluation.SEARCH_WEIGHTS`),
``--candidate risk=2 fire=1`` the defaults with those fields changed (``search fire=1``: the
search's with that change).

``--maps`` plays some of the ruleset's maps only.

Run: ``.venv/bin/python experiments/tune_weights.py --ruleset met --seeds 6 --validate 12 --workers 2``
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, fields, replace
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent.maps import map_names, map_path  # noqa: E402
from agent.search.evaluation import DEFAULT_WEIGHTS, SEARCH_WEIGHTS, Weights  # noqa: E402
from agent.search.settings import changed_fields  # noqa: E402
from agent.stress.report import wilson  # noqa: E402

TUNED = ("objectives", "pressure", "risk", "fire", "scale")


@lru_cache(maxsize=None)
def _scenario(path: str):
    from engine.scenario import load_scenario

    return load_scenario(path)


def play(task: tuple[str, dict, int, int]) -> float:
    """The candidate's result (+1 / 0 / -1) in one game: ``(map path, weights, side index, seed)``."""
    from agent.match import play_game
    from agent.players import GreedyPlayer

    path, weights, side, seed = task
    scenario = _scenario(path)
    state = scenario.new_game(seed=seed)
    sides = list(state.returns())
    tuned = GreedyPlayer(seed=1000 + seed, weights=Weights(**weights))
    default = GreedyPlayer(seed=2000 + seed)
    players = {sides[side]: tuned, sides[1 - side]: default}
    record = play_game(state, players)
    return float(record.returns[sides[side]])


def score_rate(pool, maps: list[Path], weights: Weights, seeds: range) -> tuple[float, list[float]]:
    tasks = [(str(m), asdict(weights), side, seed) for m in maps for side in (0, 1) for seed in seeds]
    results = list(pool.map(play, tasks, chunksize=1))
    return sum((r + 1) / 2 for r in results) / len(results), results


def candidate_weights(words: list[str]) -> Weights:
    """``--candidate``'s weights: ``search`` starts from the search's weights (else the defaults),
    then each ``FIELD=VALUE`` changes a field; ValueError names the first word that is wrong."""
    weights = SEARCH_WEIGHTS if "search" in words else DEFAULT_WEIGHTS
    return changed_fields(weights, [word for word in words if word != "search"], option="--candidate")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", required=True, choices=("chq", "met"))
    parser.add_argument("--seeds", type=int, default=6, help="games per map and side for each candidate")
    parser.add_argument("--validate", type=int, default=12, help="fresh games per map and side for the best")
    parser.add_argument("--factors", type=float, nargs="+", default=(0.5, 2.0))
    parser.add_argument("--margin", type=float, default=0.02, help="score-rate gain a change must bring")
    parser.add_argument("--passes", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--maps", nargs="+", default=None, metavar="NAME", help="these of the ruleset's maps only (default: all)")
    parser.add_argument("--candidate", nargs="+", default=None, metavar="WORD",
                        help="no search: play these weights against the defaults on the fresh seeds "
                             "(search, and/or FIELD=VALUE)")
    args = parser.parse_args(argv)
    try:
        given = None if args.candidate is None else candidate_weights(args.candidate)
    except ValueError as error:
        parser.error(str(error))
    names = map_names(args.ruleset)
    if args.maps:
        unknown = sorted(set(args.maps) - set(names))
        if unknown:
            parser.error(f"--maps {unknown[0]!r}: the {args.ruleset} maps are {', '.join(names)}")
        names = [name for name in names if name in args.maps]
    maps = [map_path(name) for name in names]
    seeds = range(args.seeds)
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        best = DEFAULT_WEIGHTS if given is None else given
        if given is None:
            best_rate, _ = score_rate(pool, maps, best, seeds)
            print(f"default {best_rate:.3f}", flush=True)
        tried = {best}
        for _ in range(args.passes if given is None else 0):
            for name in TUNED:
                for factor in args.factors:
                    candidate = replace(best, **{name: getattr(best, name) * factor})
                    if candidate in tried:  # e.g. x2 straight after a kept x0.5: back where it was
                        continue
                    tried.add(candidate)
                    rate, _ = score_rate(pool, maps, candidate, seeds)
                    kept = rate > best_rate + args.margin
                    print(f"{name} x{factor:g} -> {getattr(candidate, name):.3g}: {rate:.3f}{'  kept' if kept else ''}"
                          f"  ({time.perf_counter() - started:.0f} s)", flush=True)
                    if kept:
                        best, best_rate = candidate, rate
        fresh = range(10_000, 10_000 + args.validate)
        rate, results = score_rate(pool, maps, best, fresh)
    wins, draws = results.count(1.0), results.count(0.0)
    per_map = 2 * len(fresh)  # score_rate's order: map, then side, then seed
    for i, m in enumerate(maps):
        mine = results[i * per_map:(i + 1) * per_map]
        print(f"  {m.stem}: {mine.count(1.0)}-{mine.count(0.0)}-{mine.count(-1.0)}")
    print(f"{'best' if given is None else 'candidate'}: {', '.join(f'{f.name}={getattr(best, f.name):.3g}' for f in fields(best))}")
    low, high = wilson(wins, len(results))
    print(f"validation on {len(results)} fresh games: {wins} won, {draws} drawn, {len(results) - wins - draws} lost"
          f" (win rate 95% interval [{low:.0%}, {high:.0%}]); score rate {rate:.3f} against the default weights"
          f" ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
