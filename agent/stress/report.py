"""What a scenario designer reads off a stress run: tables for the terminal and PNG plots.

From the rows of ``games.csv``: each side's win rate with its 95% Wilson interval (and draws);
the score's distribution; units lost by the end of each turn (mean per side); how often each
side used smoke and each battery fired; which objectives decide games (how often the winner
held each at the end); and, for each varied parameter, the first side's win rate across the
parameter's range.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

__all__ = ["wilson", "Summary", "summarise", "print_summary", "write_plots"]


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96).

    >>> [round(x, 3) for x in wilson(8, 10)]
    [0.49, 0.943]
    """
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Summary:
    games: int
    sides: tuple[str, ...]
    wins: dict[str, int]
    draws: int
    scores: dict[str, list[float]]
    losses: dict[str, list[float]]  # side -> mean units lost by the end of turn 1, 2, ...
    smoke: dict[str, tuple[float, float]]  # side -> (mean smoke orders a game, share of games with any)
    missions: dict[str, tuple[float, float]]  # battery -> (mean missions a game, share of games it fired)
    objectives: dict[str, tuple[float, float]]  # objective -> (share of decided games the winner held it, loser)
    by_parameter: dict[str, list[tuple[str, int, int]]]  # parameter -> [(bin, games, first side's wins)]

    def win_rate(self, side: str) -> tuple[float, float, float]:
        low, high = wilson(self.wins[side], self.games)
        return (self.wins[side] / self.games if self.games else 0.0, low, high)


def _number(value) -> float:
    return float(value) if value not in ("", None) else 0.0


def _binned(values: list[float]) -> tuple[list[str], list[int]]:
    """Bin labels and each value's bin: every value when there are at most six, else five equal bins."""
    distinct = sorted(set(values))
    if len(distinct) <= 6:
        return [f"{v:g}" for v in distinct], [distinct.index(v) for v in values]
    low, step = distinct[0], (distinct[-1] - distinct[0]) / 5
    labels = [f"{low + i * step:g}-{low + (i + 1) * step:g}" for i in range(5)]
    return labels, [min(4, int((v - low) / step)) for v in values]


def summarise(rows: list[dict], sides: tuple[str, ...]) -> Summary:
    """The summary of ``rows`` (dicts of strings or numbers, as in ``games.csv``)."""
    rows = sorted(rows, key=lambda r: int(r["index"]))
    n = len(rows)
    columns = list(rows[0]) if rows else []
    wins = Counter(r["winner"] for r in rows)
    scores = {s: [_number(r[f"score_{s}"]) for r in rows] for s in sides}
    turns = sorted({int(k.rsplit("_t", 1)[1]) for k in columns if k.startswith(f"lost_{sides[0]}_t")})
    losses = {s: [statistics.fmean(_number(r[f"lost_{s}_t{t}"]) for r in rows) for t in turns] if rows else [] for s in sides}
    smoke = {s: (statistics.fmean(_number(r[f"smoke_{s}"]) for r in rows), sum(_number(r[f"smoke_{s}"]) > 0 for r in rows) / n)
             for s in sides} if rows else {}
    batteries = [k[len("missions_"):] for k in columns if k.startswith("missions_")]
    missions = {b: (statistics.fmean(_number(r[f"missions_{b}"]) for r in rows), sum(_number(r[f"missions_{b}"]) > 0 for r in rows) / n)
                for b in batteries}
    decided = [r for r in rows if r["winner"] in sides]
    objectives = {}
    for key in (k for k in columns if k.startswith("held_")):
        winner_held = sum(r[key] == r["winner"] for r in decided)
        loser_held = sum(r[key] not in ("", r["winner"]) for r in decided)
        objectives[key[len("held_"):]] = (winner_held / len(decided), loser_held / len(decided)) if decided else (0.0, 0.0)
    by_parameter = {}
    for key in (k for k in columns if k.startswith("param_")):
        labels, bins = _binned([_number(r[key]) for r in rows])
        out = []
        for i, label in enumerate(labels):
            inside = [r for r, b in zip(rows, bins) if b == i]
            out.append((label, len(inside), sum(r["winner"] == sides[0] for r in inside)))
        by_parameter[key[len("param_"):]] = out
    return Summary(n, tuple(sides), {s: wins.get(s, 0) for s in sides}, wins.get("draw", 0), scores, losses, smoke,
                   missions, objectives, by_parameter)


def print_summary(summary: Summary, console, *, title: str) -> None:
    """The summary as rich tables on ``console``."""
    from rich.table import Table

    first = summary.sides[0]
    table = Table(title=f"{title}: {summary.games} games")
    for name in ("side", "wins", "win rate [95% CI]", "mean score", "score quartiles"):
        table.add_column(name, justify="right" if name != "side" else "left")
    for side in summary.sides:
        rate, low, high = summary.win_rate(side)
        scores = summary.scores[side]
        quartiles = statistics.quantiles(scores, n=4) if len(scores) >= 2 else scores * 3
        table.add_row(side, str(summary.wins[side]), f"{rate:.0%} [{low:.0%}, {high:.0%}]", f"{statistics.fmean(scores):+.2f}",
                      " / ".join(f"{q:+.2f}" for q in quartiles))
    table.add_row("draws", str(summary.draws), "", "", "")
    console.print(table)
    if summary.losses[first]:
        losses = Table(title="units lost by the end of each turn (mean)")
        losses.add_column("side")
        for t in range(1, len(summary.losses[first]) + 1):
            losses.add_column(f"t{t}", justify="right")
        for side in summary.sides:
            losses.add_row(side, *(f"{v:.2f}" for v in summary.losses[side]))
        console.print(losses)
    use = Table(title="smoke and batteries")
    for name in ("who", "a game (mean)", "games used"):
        use.add_column(name, justify="right" if name != "who" else "left")
    for side, (mean, share) in summary.smoke.items():
        use.add_row(f"{side} smoke orders", f"{mean:.2f}", f"{share:.0%}")
    for battery, (mean, share) in summary.missions.items():
        use.add_row(f"{battery} missions", f"{mean:.2f}", f"{share:.0%}")
    console.print(use)
    if summary.objectives:
        objectives = Table(title="objectives at the end of decided games")
        for name in ("objective", "winner held it", "loser held it"):
            objectives.add_column(name, justify="right" if name != "objective" else "left")
        for objective, (winner, loser) in summary.objectives.items():
            objectives.add_row(objective, f"{winner:.0%}", f"{loser:.0%}")
        console.print(objectives)
    for parameter, bins in summary.by_parameter.items():
        moved = Table(title=f"{first} wins by {parameter}")
        for name in (parameter, "games", f"{first} win rate [95% CI]"):
            moved.add_column(name, justify="right")
        for label, n, won in bins:
            low, high = wilson(won, n)
            moved.add_row(label, str(n), f"{won / n:.0%} [{low:.0%}, {high:.0%}]" if n else "-")
        console.print(moved)


def _error_bars(rates) -> list[list[float]]:
    """Matplotlib's (below, above) lengths of (rate, low, high) intervals; never negative."""
    return [[max(0.0, r - lo) for r, lo, _ in rates], [max(0.0, hi - r) for r, _, hi in rates]]


def write_plots(summary: Summary, out: Path, *, title: str) -> list[Path]:
    """``results.png`` (win rates, scores, losses by turn, smoke and batteries) and, when parameters
    vary, ``parameters.png`` (the first side's win rate across each)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    ax = axes[0][0]
    rates = [summary.win_rate(s) for s in summary.sides]
    ax.bar(summary.sides, [r for r, _, _ in rates], yerr=_error_bars([(r, lo, hi) for r, lo, hi in rates]),
           capsize=6, color=["tab:blue", "tab:red"])
    ax.set_ylim(0, 1)
    ax.set_title(f"win rate, 95% CI ({summary.draws} draws)")
    ax = axes[0][1]
    first = summary.sides[0]
    ax.hist(summary.scores[first], bins=min(20, max(3, summary.games // 3)), color="tab:blue")
    ax.set_title(f"final score of {first} (positive: {first} ahead)")
    ax = axes[1][0]
    for side, colour in zip(summary.sides, ("tab:blue", "tab:red")):
        ax.plot(range(1, len(summary.losses[side]) + 1), summary.losses[side], marker="o", color=colour, label=side)
    ax.set_title("units lost by the end of each turn (mean)")
    ax.set_xticks(range(1, len(summary.losses[first]) + 1))
    ax.set_xlabel("turn")
    ax.legend()
    ax = axes[1][1]
    labels = [f"{s} smoke" for s in summary.smoke] + list(summary.missions)
    values = [m for m, _ in summary.smoke.values()] + [m for m, _ in summary.missions.values()]
    ax.barh(labels, values, color="tab:gray")
    ax.set_title("smoke orders and battery missions a game (mean)")
    fig.suptitle(title)
    fig.tight_layout()
    paths.append(out / "results.png")
    fig.savefig(paths[-1], dpi=100)
    plt.close(fig)
    if summary.by_parameter:
        fig, axes = plt.subplots(1, len(summary.by_parameter), figsize=(5 * len(summary.by_parameter), 4), squeeze=False)
        for ax, (parameter, bins) in zip(axes[0], summary.by_parameter.items()):
            shown = [(label, n, won) for label, n, won in bins if n]
            rates = [won / n for _, n, won in shown]
            cis = [wilson(won, n) for _, n, won in shown]
            ax.errorbar(range(len(shown)), rates, yerr=_error_bars([(r, lo, hi) for r, (lo, hi) in zip(rates, cis)]),
                        marker="o", capsize=5)
            ax.set_xticks(range(len(shown)), [label for label, _, _ in shown], rotation=30)
            ax.set_ylim(0, 1)
            ax.set_title(f"{first} win rate by {parameter}")
        fig.tight_layout()
        paths.append(out / "parameters.png")
        fig.savefig(paths[-1], dpi=100)
        plt.close(fig)
    return paths
