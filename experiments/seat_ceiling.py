"""Seat ceiling: how winnable is each seat of each map against a random (or greedy) opponent?

The AI's target against random is a win rate, and a draw is not a win. On a map whose handicap
leaves an idle opponent level with us, a seat may be hard to win from however well it is
played: the opponent who never attacks is never beaten. This experiment plays every plain
policy we have from each seat against :class:`~agent.players.RandomPlayer`: the greedy player
(best one-step expected value) and each posture (:class:`~agent.players.PosturePlayer`:
balanced, advance, assault, cover, hold, withdraw), ``--games`` seeded games each, the same
game seeds for every policy (``1000 g + 1``, as ``experiments/tournament.py``). Every policy
reads only its observation, as the AI does.

For each seat (map and side) it reports each policy's wins, draws and losses, and the best
policy's win rate with a 95% Wilson interval: a seat whose best plain policy stays far below
90% is one where the AI's 90%-against-random target asks for play no plain policy shows, and
often one where the map's handicap (README, Maps) levels an idle opponent. Written to ``--out``:
``games.csv``, ``seats.csv``, ``summary.md`` and ``seats.png`` (win rate by seat and policy).

``--opponent greedy`` plays every policy against the greedy player instead (the greedy policy's
row is then greedy against itself): how far the plain policies spread against the AI's 65%
target opponent, and which seats none of them wins. Its results go to ``seat_ceiling_greedy``.

Run: ``python experiments/seat_ceiling.py --games 10 --workers 2``
"""

from __future__ import annotations

import argparse
import csv
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent.maps import map_names, map_path  # noqa: E402
from agent.search.policy import POSTURES  # noqa: E402
from agent.stress.report import wilson  # noqa: E402

POLICIES = ("greedy",) + tuple(POSTURES)
OPPONENTS = ("random", "greedy")


@dataclass(frozen=True)
class Game:
    map: str
    side: int  # which side of the scenario the policy plays
    policy: str
    number: int
    opponent: str = "random"

    @property
    def seed(self) -> int:
        return 1000 * self.number + 1


@dataclass(frozen=True)
class Result:
    map: str
    side: str
    policy: str
    number: int
    seed: int
    result: float  # +1 / 0 / -1 for the policy's side


def make_policy(name: str, seed: int):
    from agent.players import GreedyPlayer, PosturePlayer

    return GreedyPlayer(seed) if name == "greedy" else PosturePlayer(name, seed)


def play(game: Game) -> Result:
    from agent.match import play_game
    from agent.players import GreedyPlayer, RandomPlayer
    from engine.scenario import load_scenario

    scenario = load_scenario(map_path(game.map))
    sides = [s.id for s in scenario.sides]
    mine, theirs = sides[game.side], sides[1 - game.side]
    opponent = (GreedyPlayer if game.opponent == "greedy" else RandomPlayer)(game.seed * 2 + 2)
    players = {mine: make_policy(game.policy, game.seed * 2 + 1), theirs: opponent}
    record = play_game(scenario.new_game(seed=game.seed), players)
    return Result(game.map, mine, game.policy, game.number, game.seed, float(record.returns[mine]))


def seats(results: list[Result]) -> list[dict]:
    """One row a seat and policy (W-D-L), plus the seat's best policy by wins then draws."""
    rows = []
    for key in dict.fromkeys((r.map, r.side) for r in results):
        tally = {}
        for policy in POLICIES:
            games = [r for r in results if (r.map, r.side) == key and r.policy == policy]
            if games:
                wins, draws = sum(r.result > 0 for r in games), sum(r.result == 0 for r in games)
                tally[policy] = (wins, draws, len(games) - wins - draws)
        best = max(tally, key=lambda p: (tally[p][0], tally[p][1]))
        wins, n = tally[best][0], sum(tally[best])
        low, high = wilson(wins, n)
        rows.append({"map": key[0], "side": key[1], "best": best, "games": n, "best_win_rate": wins / n,
                     "ci_low": low, "ci_high": high,
                     **{p: "-".join(map(str, t)) for p, t in tally.items()}})
    return rows


def write_outputs(out: Path, results: list[Result], rows: list[dict], command: str, opponent: str = "random") -> None:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "games.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(asdict(results[0])))
        writer.writeheader()
        writer.writerows(asdict(r) for r in results)
    with open(out / "seats.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    policies = [p for p in POLICIES if p in rows[0]]
    lines = [f"# Seat ceiling against {opponent}", "", f"`{command}`", "",
             f"Wins-draws-losses of each plain policy from each seat against the {opponent} player; the best "
             "policy's win rate with a 95% Wilson interval.", "",
             "| map | side | " + " | ".join(policies) + " | best | best win rate |",
             "|---|---|" + "---|" * len(policies) + "---|---|"]
    for r in rows:
        lines.append(f"| {r['map']} | {r['side']} | " + " | ".join(r[p] for p in policies)
                     + f" | {r['best']} | {r['best_win_rate']:.0%} [{r['ci_low']:.0%}, {r['ci_high']:.0%}] |")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    plot(out, rows, results, policies, opponent)


def plot(out: Path, rows: list[dict], results: list[Result], policies: list[str], opponent: str = "random") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    labels = [f"{r['map']} ({r['side']})" for r in rows]
    rates = np.array([[int(r[p].split("-")[0]) / r["games"] for p in policies] for r in rows])
    fig, ax = plt.subplots(figsize=(1.1 * len(policies) + 3, 0.4 * len(rows) + 1.5))
    image = ax.imshow(rates, vmin=0, vmax=1, cmap="RdYlGn", aspect="auto")
    for i in range(len(rows)):
        for j, p in enumerate(policies):
            ax.text(j, i, rows[i][p], ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(policies)), policies, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.set_title(f"win rate against {opponent} by seat and policy (text: W-D-L)")
    fig.colorbar(image, ax=ax, fraction=0.03)
    fig.tight_layout()
    fig.savefig(out / "seats.png", dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    from rich.table import Table

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games a policy plays from each seat")
    parser.add_argument("--maps", nargs="*", default=None, help="map names (default: every map)")
    parser.add_argument("--policies", nargs="*", default=list(POLICIES), help=f"among {', '.join(POLICIES)}")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--opponent", choices=OPPONENTS, default="random", help="who every policy plays against")
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default experiments/results/seat_ceiling, or seat_ceiling_greedy)")
    args = parser.parse_args(argv)
    out = args.out or ROOT / "experiments" / "results" / ("seat_ceiling" + ("_greedy" if args.opponent == "greedy" else ""))
    for name in args.policies:
        if name not in POLICIES:
            parser.error(f"unknown policy {name!r}: one of {', '.join(POLICIES)}")
    if args.games < 1:
        parser.error("--games must be at least 1")
    known = map_names()
    maps = args.maps or known
    for name in maps:
        if name not in known:
            parser.error(f"unknown map {name!r}: one of {', '.join(known)}")
    games = [Game(m, side, p, g, args.opponent) for m in maps for side in (0, 1) for p in args.policies
             for g in range(args.games)]
    games.sort(key=lambda g: g.policy != "greedy")  # the slow ones first, so the workers finish together
    console = Console(stderr=True)
    results: list[Result] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console) as progress:
        bar = progress.add_task("games", total=len(games))
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            for future in as_completed([pool.submit(play, g) for g in games]):
                r = future.result()
                results.append(r)
                progress.update(bar, advance=1, description=f"{r.policy} as {r.side} on {r.map}: {r.result:+.0f}")
    results.sort(key=lambda r: (r.map, r.side, POLICIES.index(r.policy), r.number))
    rows = seats(results)
    command = " ".join(["python", "experiments/seat_ceiling.py"] + list(sys.argv[1:] if argv is None else argv))
    write_outputs(out, results, rows, command, args.opponent)
    table = Table(title=f"seats against {args.opponent}: best plain policy")
    for column in ("map", "side", "best", "W-D-L", "win rate [95% CI]"):
        table.add_column(column)
    for r in rows:
        table.add_row(r["map"], r["side"], r["best"], r[r["best"]],
                      f"{r['best_win_rate']:.0%} [{r['ci_low']:.0%}, {r['ci_high']:.0%}]")
    console.print(table)
    console.print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
