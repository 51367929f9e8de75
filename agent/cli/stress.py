"""``fireplan stress``: play a scenario many times and report what decides it.

Examples
--------
::

    fireplan stress maps/chq_smoke_advance.json --games 200
    fireplan stress maps/met_le_mesnil.json --games 400 --vary wind=0:30 --out runs/mesnil
    fireplan stress maps/chq_saint_aubin.json --blue ai --red greedy --games 50 --iterations 8
    fireplan stress maps/chq_saint_aubin.json --games 5000 --scheduler tcp://cluster:8786

Games run in local processes by default (all cores); ``--scheduler`` sends them to a Dask
cluster. Each game's seeds come from ``--seed`` and the game's index, so a run's results are
the same however it is run. ``--out`` holds ``run.json``, ``games.csv`` (a row a game, written
as each finishes), ``results.png`` and ``parameters.png``; the same command again resumes a run
that stopped.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from engine.errors import FireplanError
from engine.scenario import load_scenario

from agent.players.registry import ALL_PLAYERS

from ..stress import (ResultsDir, StressRun, check_vary, parse_vary, print_summary, row_columns, run_dask, run_here,
                      run_local, scenario_for, summarise, write_plots)
from ..stress.runner import WorkerDied

__all__ = ["register", "run"]

MAX_GAMES = 10_000_000
#: The AI's default search: simulations a decision (about 0.7 s a decision on the default map here).
DEFAULT_ITERATIONS = 8


def _games(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of games, got {text!r}") from None
    if not 1 <= value <= MAX_GAMES:
        raise argparse.ArgumentTypeError(f"expected 1 to {MAX_GAMES:,} games, got {value}")
    return value


def register(subparsers) -> None:
    parser = subparsers.add_parser("stress", help="play a scenario many times: win rates, losses, smoke, objectives",
                                   description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", type=Path, help="a scenario file")
    parser.add_argument("--games", type=_games, default=100, help="games to play (default %(default)s)")
    parser.add_argument("--blue", choices=ALL_PLAYERS, default="random", help="player of the first side: ai, greedy, random or a posture (default %(default)s)")
    parser.add_argument("--red", choices=ALL_PLAYERS, default="random", help="player of the second side (default %(default)s)")
    parser.add_argument("--vary", action="append", default=[], metavar="NAME=LOW:HIGH,...",
                        help="parameters each game draws from a range, e.g. wind=0:30,staff_orders=2:6 (repeatable)")
    parser.add_argument("--iterations", type=int, default=None, metavar="N",
                        help=f"the AI's simulations a decision: the same games on any machine (default {DEFAULT_ITERATIONS})")
    parser.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                        help="the AI's seconds a decision instead: anytime, so its games depend on the machine's speed")
    parser.add_argument("--workers", type=int, default=None, help="local worker processes (default: all cores)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS", help="a Dask scheduler, e.g. tcp://host:8786")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR", help="results folder (default stress-<scenario>)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default %(default)s)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def _limit(scenario, vary) -> int:
    """The most turns (or periods) a game of the run can last."""
    base = int(scenario.turns if scenario.turns is not None else scenario.periods)
    varied = [v.high for v in vary if v.name in ("turns", "periods")]
    return max([base, *map(int, varied)])


def _check_vary(scenario, run: StressRun) -> None:
    check_vary(scenario, run.vary)
    for ends in ("low", "high"):  # a range that cannot be played is refused before any game starts
        scenario_for(run.scenario, {v.name: getattr(v, ends) for v in run.vary})


def _check_budgets(args) -> None:
    if args.workers is not None and not 1 <= args.workers <= 512:
        raise FireplanError(f"--workers: expected 1 to 512 processes, got {args.workers}")
    if args.budget is not None and not 0 < args.budget <= 600:
        raise FireplanError(f"--budget: expected seconds in (0, 600], got {args.budget:g}")
    if args.iterations is not None and not 1 <= args.iterations <= 100_000:
        raise FireplanError(f"--iterations: expected 1 to 100000 simulations, got {args.iterations}")
    if args.budget is not None and args.iterations is not None:
        raise FireplanError("--budget and --iterations: give the AI one budget, not both")


def run(args) -> int:
    from rich.console import Console

    scenario = load_scenario(args.scenario)
    vary = tuple(v for text in args.vary for v in parse_vary(text))
    _check_budgets(args)
    iterations = None if args.budget is not None else (args.iterations or DEFAULT_ITERATIONS)
    stress = StressRun(str(args.scenario), args.games, args.blue, args.red, vary, args.seed, args.budget or 1.0, iterations)
    _check_vary(scenario, stress)
    limit = _limit(scenario, vary)
    out = args.out or Path(f"stress-{args.scenario.stem}")
    results = ResultsDir(out, stress, row_columns(scenario, limit, tuple(v.name for v in vary)))
    done = results.open()
    todo = [i for i in range(args.games) if i not in done]
    console = Console()
    workers = args.workers or os.cpu_count() or 1
    where = f"Dask at {args.scheduler}" if args.scheduler else f"{workers} process{'es' if workers > 1 else ''}"
    console.print(f"{scenario.name}: {args.games} games, {args.blue} ({scenario.sides[0].id}) v {args.red} "
                  f"({scenario.sides[1].id}), seed {args.seed}, on {where}"
                  + (f"; {len(done)} already in {results.games}" if done else ""))
    if todo:
        try:
            _play(args, stress, todo, limit, results, workers, console)
        except WorkerDied as error:
            console.print(f"fireplan stress: {error} ({results.games})", style="bold red")
            return 1
    rows = list(results.open().values())
    rows = [r for r in rows if int(r["index"]) < args.games]
    summary = summarise(rows, tuple(s.id for s in scenario.sides))
    print_summary(summary, console, title=scenario.name)
    pictures = write_plots(summary, results.path, title=f"{scenario.name}: {summary.games} games")
    console.print(f"results: {results.games}; pictures: {', '.join(str(p) for p in pictures)}")
    return 0


def _play(args, stress, todo, limit, results, workers, console) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    batch = max(1, min(4, len(todo) // (16 * workers)))  # small batches: no core idles at the end
    started = time.perf_counter()
    with Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), console=console, disable=args.quiet) as progress:
        task = progress.add_task("games", total=len(todo), rate="")

        def on_rows(rows):
            results.append(rows)
            finished = progress.tasks[0].completed + len(rows)
            progress.update(task, advance=len(rows), rate=f"{finished / max(1e-9, time.perf_counter() - started):.1f} games/s")

        if args.scheduler:
            run_dask(stress, todo, limit, on_rows, scheduler=args.scheduler, batch=batch)
        elif workers == 1:
            run_here(stress, todo, limit, on_rows, batch=batch)
        else:
            run_local(stress, todo, limit, on_rows, workers=workers, batch=batch)
