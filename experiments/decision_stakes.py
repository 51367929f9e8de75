"""Decision stakes: how much does one order change how the game ends?

A search can only win games by choosing orders that change results. This experiment measures
that at one decision: from a position of a tournament game (game ``g``'s seed ``1000 g + 1``,
greedy against greedy for ``--decision`` decisions with a choice), each of the mover's
``--orders`` best orders by the greedy ranking (its choice first) is given, and the game is
then played out to the end by greedy against greedy on ``--seeds`` dice streams. Every order
meets the same streams and the same players' seeds (common random numbers), so the
game-by-game difference between two orders is theirs, not the dice's.

For each order: the mover's wins, draws and losses, its mean result with a 95% interval, and
the playouts it ended better and worse than the greedy choice, with the exact two-sided sign
test. Where every order ends alike, a better choice at that decision wins nothing, however
deep the search that finds it. Written to ``--out``: ``playouts.csv`` (one row a playout),
``summary.md`` and ``stakes.png`` (mean result by order, with its interval).

Run: ``python experiments/decision_stakes.py --map met_le_mesnil --orders 4 --workers 2``
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "experiments"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from agent.maps import map_names, map_path  # noqa: E402
from compare_runs import sign_test  # noqa: E402

#: The greedy players' seeds along the game that leads to the position (the tournament's, by side).
LEAD_SEEDS = (1, 2)


@dataclass(frozen=True)
class Position:
    """Where the orders are compared: ``decision`` decisions with a choice into game ``game`` of ``map``."""

    map: str
    game: int
    decision: int = 0

    @property
    def seed(self) -> int:
        return 1000 * self.game + 1


@dataclass(frozen=True)
class Playout:
    rank: int  # the order's place in the greedy ranking (0: the greedy choice)
    order: str
    stream: int
    result: float  # for the side that gave the order: +1 / 0 / -1


@lru_cache(maxsize=8)
def reach(position: Position):
    """The position's state (greedy against greedy up to it: the same on every call) and the
    mover's orders, best first by the greedy ranking, each still legal."""
    from agent.players import GreedyPlayer
    from engine.scenario import load_scenario

    state = load_scenario(map_path(position.map)).new_game(seed=position.seed)
    sides = _sides(state)
    lead = {side: GreedyPlayer(seed) for side, seed in zip(sides, LEAD_SEEDS)}
    made = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
            continue
        if len(state.legal_actions()) > 1:
            if made == position.decision:
                break
            made += 1
        state.apply_action(lead[state.current_player()].act(state))
    else:
        raise ValueError(f"{position.map} game {position.game} ends before decision {position.decision}")
    ranker = GreedyPlayer(LEAD_SEEDS[sides.index(state.current_player())])
    chosen = ranker.act(state)
    ranked = [a for a, _ in sorted(ranker.last, key=lambda pair: -pair[1]) if a != chosen and state.is_legal(a)]
    return state, [chosen] + ranked


def _sides(state) -> list[str]:
    """The scenario's side ids, in its order (both rulesets)."""
    return [side.id for side in state.scenario.sides]


def play(position: Position, rank: int, stream: int) -> Playout:
    """One playout: the order of ``rank`` given, then greedy against greedy to the end on dice ``stream``."""
    from agent.match import play_game
    from agent.players import GreedyPlayer

    start, orders = reach(position)
    state = start.clone()
    mover = state.current_player()
    state.apply_action(orders[rank])
    state.rng = np.random.default_rng([position.seed, position.decision, stream])
    players = {side: GreedyPlayer(10_000 + 2 * stream + i) for i, side in enumerate(_sides(state))}
    play_game(state, players)
    return Playout(rank, str(orders[rank]), stream, float(state.returns()[mover]))


def summarise(playouts: list[Playout]) -> list[dict]:
    """Per order: W-D-L, mean result with a 95% interval, and better / worse than rank 0 stream by stream."""
    by_rank: dict[int, dict[int, Playout]] = {}
    for p in playouts:
        by_rank.setdefault(p.rank, {})[p.stream] = p
    base = by_rank.get(0, {})
    rows = []
    for rank in sorted(by_rank):
        games = by_rank[rank]
        results = [games[s].result for s in sorted(games)]
        mean = statistics.fmean(results)
        half = 1.96 * statistics.stdev(results) / math.sqrt(len(results)) if len(results) > 1 else math.inf
        shared = sorted(set(games) & set(base))
        better = sum(games[s].result > base[s].result for s in shared)
        worse = sum(games[s].result < base[s].result for s in shared)
        rows.append({
            "rank": rank, "order": next(iter(games.values())).order,
            "wdl": f"{sum(r > 0 for r in results)}-{sum(r == 0 for r in results)}-{sum(r < 0 for r in results)}",
            "mean": mean, "low": mean - half, "high": mean + half,
            "better": better, "worse": worse, "p": sign_test(better, worse),
        })
    return rows


def write_outputs(out: Path, playouts: list[Playout], rows: list[dict], command: str, title: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (out / "playouts.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(asdict(playouts[0])))
        writer.writeheader()
        writer.writerows(asdict(p) for p in playouts)
    lines = [f"# Decision stakes: {title}", "", f"`{command}`", "",
             "| rank | order | W-D-L | mean result [95%] | better / worse than rank 0 | sign test p |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['rank']} | `{r['order']}` | {r['wdl']} | {r['mean']:+.2f} [{r['low']:+.2f}, {r['high']:+.2f}] | "
              f"{r['better']} / {r['worse']} | {r['p']:.2f} |" for r in rows]
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.4))
    y = list(range(len(rows)))[::-1]
    ax.errorbar([r["mean"] for r in rows], y, xerr=[[r["mean"] - r["low"] for r in rows], [r["high"] - r["mean"] for r in rows]],
                fmt="o", capsize=3)
    ax.axvline(rows[0]["mean"], color="grey", lw=0.8, ls="--")
    ax.set_yticks(y, [f"#{r['rank']} {r['order']}" for r in rows], fontsize=8)
    ax.set_xlim(-1, 1)
    ax.set_xlabel("mean result for the mover (+1 win, -1 loss), 95% interval")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "stakes.png", dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    from rich.table import Table

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--map", default="met_le_mesnil", help="map name")
    parser.add_argument("--game", type=int, default=0, help="tournament game number (seed 1000 g + 1)")
    parser.add_argument("--decision", type=int, default=0, help="decisions with a choice played before the position")
    parser.add_argument("--orders", type=int, default=3, help="the greedy ranking's best orders compared")
    parser.add_argument("--seeds", type=int, default=60, help="dice streams each order is played out on")
    parser.add_argument("--first-seed", type=int, default=0, help="the first dice stream (fresh streams: a higher one)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--out", type=Path, default=ROOT / "experiments" / "results" / "decision_stakes", help="output folder")
    args = parser.parse_args(argv)
    if args.map not in map_names():
        parser.error(f"unknown map {args.map!r}: one of {', '.join(map_names())}")
    for name in ("game", "decision", "first_seed"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be 0 or more")
    if args.orders < 1 or args.seeds < 2:
        parser.error("--orders must be at least 1 and --seeds at least 2")
    position = Position(args.map, args.game, args.decision)
    try:
        state, orders = reach(position)
    except ValueError as error:
        parser.error(str(error))
    ranks = range(min(args.orders, len(orders)))
    streams = range(args.first_seed, args.first_seed + args.seeds)
    title = (f"{args.map}, game {args.game}, decision {args.decision}: {state.current_player()} to order, "
             f"each order played out by greedy v greedy on {args.seeds} dice streams")
    console = Console(stderr=True)
    playouts: list[Playout] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console) as progress:
        bar = progress.add_task("playouts", total=len(ranks) * len(streams))
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            for future in as_completed([pool.submit(play, position, r, s) for r in ranks for s in streams]):
                playouts.append(future.result())
                progress.update(bar, advance=1)
    playouts.sort(key=lambda p: (p.rank, p.stream))
    rows = summarise(playouts)
    command = " ".join(["python", "experiments/decision_stakes.py"] + list(sys.argv[1:] if argv is None else argv))
    write_outputs(args.out, playouts, rows, command, title)
    table = Table(title=title)
    for column in ("rank", "order", "W-D-L", "mean [95%]", "better / worse than #0", "sign test p"):
        table.add_column(column)
    for r in rows:
        table.add_row(str(r["rank"]), r["order"], r["wdl"], f"{r['mean']:+.2f} [{r['low']:+.2f}, {r['high']:+.2f}]",
                      f"{r['better']} / {r['worse']}", f"{r['p']:.2f}")
    console.print(table)
    console.print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
