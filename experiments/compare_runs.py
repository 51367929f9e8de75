"""Compare two tournament runs game by game: did a change to a player make it stronger?

Two runs of ``experiments/tournament.py`` with the same ``--games`` play the same seeds on the
same seats, so each game of one run has a twin in the other that met the same hidden set-up and
the same dice stream. Comparing twins cancels most of the luck that makes win rates over a few
dozen games so wide: a change shows as games that went better and games that went worse, and an
exact two-sided sign test on those says how likely that split is if the change did nothing.

Run: ``python experiments/compare_runs.py experiments/results/before experiments/results/after``
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from collections import defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

KEY = ("map", "first", "second", "first_side", "seed")


class RunError(Exception):
    """A folder that holds no finished tournament."""


def load(run: Path) -> dict[tuple, float]:
    """The first player's result (+1 / 0 / -1) of each game of a run, by its seat and seed."""
    path = run / "games.csv"
    if not path.is_file():
        raise RunError(f"{path} not found: give the --out folder of a finished tournament")
    with path.open(newline="") as handle:
        try:
            return {tuple(row[k] for k in KEY): float(row["result"]) for row in csv.DictReader(handle)}
        except (KeyError, TypeError, ValueError) as error:
            raise RunError(f"{path} is not a tournament's games.csv ({type(error).__name__}: {error})") from None


def sign_test(better: int, worse: int) -> float:
    """Exact two-sided p-value of ``better`` against ``worse`` under a fair coin (ties dropped)."""
    n = better + worse
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(better, worse) + 1)) / 2**n
    return min(1.0, 2 * tail)


def compare(before: dict[tuple, float], after: dict[tuple, float]) -> list[dict]:
    """Per map and in all: twins, how many went better and worse, the win rates, the sign test."""
    twins = sorted(set(before) & set(after))
    groups: dict[str, list[tuple]] = defaultdict(list)
    for key in twins:
        groups[key[0]].append(key)
        groups["all"].append(key)
    rows = []
    for name in sorted(groups, key=lambda m: (m == "all", m)):
        keys = groups[name]
        better = sum(after[k] > before[k] for k in keys)
        worse = sum(after[k] < before[k] for k in keys)
        rows.append({
            "map": name, "games": len(keys), "better": better, "worse": worse,
            "before": sum(before[k] > 0 for k in keys) / len(keys),
            "after": sum(after[k] > 0 for k in keys) / len(keys),
            "p": sign_test(better, worse),
        })
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the --out folder of the first run")
    parser.add_argument("after", type=Path, help="the --out folder of the second run")
    args = parser.parse_args(argv)
    try:
        before, after = load(args.before), load(args.after)
    except RunError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    rows = compare(before, after)
    if not rows:
        print("error: the two runs share no game (same --games, --maps and --pairs?)", file=sys.stderr)
        return 2
    table = Table(title=f"{args.after} against {args.before}, game by game")
    for column in ("map", "twins", "better", "worse", "win rate before", "after", "sign test p"):
        table.add_column(column, justify="left" if column == "map" else "right", no_wrap=column == "map")
    for row in rows:
        table.add_row(row["map"], str(row["games"]), str(row["better"]), str(row["worse"]), f"{row['before']:.0%}",
                      f"{row['after']:.0%}", f"{row['p']:.3f}")
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
