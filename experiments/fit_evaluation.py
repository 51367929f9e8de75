"""Fit the evaluation's weights to how games end (Texel tuning): does a position's value
forecast the result?

Games on every map between the ``--pairs`` of players (greedy v greedy by default; a pair of
two players plays both ways round; every player seeded); at every ``--every``-th decision the
side to move's features (``state.features``) are kept with that side's final result (+1 / 0 /
-1). Pairs with the random player or the AI (``ai``, searching ``--iterations`` simulations a
decision) reach positions greedy v greedy never does, as the AI's opponents do; ``--positions``
adds the positions a tournament kept (its ``positions.csv``: the AI's own games at full strength,
against greedy, random or MCTSBot). The weights of :func:`agent.search.evaluation.evaluate` for an unfinished position
(objectives, pressure, risk, fire, material, volley, collapse, scale, early, ceiling) are fitted by least squares
(``scipy.optimize.least_squares``) on ``--games`` games a map, and the default and the fitted
weights are then scored on ``--validate`` fresh games a map (with the search's,
:data:`~agent.search.evaluation.SEARCH_WEIGHTS`) by the mean squared error between
value and result: 0 is a perfect forecast, and forecasting 0 everywhere scores the share of
decisive games. Validation is the figure to trust: the fit has seen its own games.

A better forecast is not yet better play: fitted weights are tried in a tournament
(``experiments/tournament.py --search weights.early=...``, the line printed at the end) before
they become the search's. The greedy player keeps :data:`~agent.search.evaluation.DEFAULT_WEIGHTS`,
which the maps' handicaps were balanced with.

Run: ``.venv/bin/python experiments/fit_evaluation.py --games 30 --validate 15 --workers 2``
(with other players: ``--pairs greedy:greedy greedy:random ai:greedy``)
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent.maps import map_names, map_path  # noqa: E402
from agent.players.registry import ALL_PLAYERS, make_player  # noqa: E402
from agent.search.evaluation import (  # noqa: E402
    DEFAULT_WEIGHTS, FEATURES, SEARCH_WEIGHTS, Weights, feature_row, unfinished_value)

#: The weights fitted, and the bounds of each: none changes sign, and the ceiling stays below a
#: won game's value, so that a certain win still beats every unfinished position.
FITTED = {"objectives": (0.0, 3.0), "pressure": (0.0, 3.0), "risk": (0.0, 3.0), "fire": (0.0, 10.0), "material": (0.0, 10.0),
          "volley": (0.0, 10.0), "collapse": (0.0, 10.0), "scale": (0.01, 10.0), "early": (0.0, 10.0), "ceiling": (0.3, 0.9)}


@dataclass(frozen=True)
class Positions:
    """Features of positions (one array per feature), the map of each, the result it led to and
    the players (``mover:enemy``)."""

    features: dict[str, np.ndarray]
    maps: np.ndarray
    results: np.ndarray
    pairs: np.ndarray | None = None

    def where(self, keep: np.ndarray) -> "Positions":
        return Positions({k: v[keep] for k, v in self.features.items()}, self.maps[keep], self.results[keep],
                         None if self.pairs is None else self.pairs[keep])

    def of_map(self, name: str) -> "Positions":
        return self.where(self.maps == name)

    def __len__(self) -> int:
        return len(self.results)


def values(weights: Weights, positions: Positions) -> np.ndarray:
    """``evaluate`` of every position at once."""
    return unfinished_value(positions.features, weights)


def error(weights: Weights, positions: Positions) -> float:
    """Mean squared error of the values against the results."""
    return float(np.mean((values(weights, positions) - positions.results) ** 2))


def fit(positions: Positions, start: Weights = DEFAULT_WEIGHTS) -> Weights:
    """The weights (of :data:`FITTED`) with the least squared error on ``positions``."""
    from scipy.optimize import least_squares

    names = list(FITTED)
    lower, upper = zip(*FITTED.values())
    x0 = np.clip([getattr(start, n) for n in names], lower, upper)

    def residuals(x):
        return values(replace(start, **dict(zip(names, x))), positions) - positions.results

    found = least_squares(residuals, x0, bounds=(lower, upper))
    return replace(start, **{n: round(float(v), 3) for n, v in zip(names, found.x)})


@dataclass(frozen=True)
class Game:
    """One game to learn from: the map, its seed, who plays each side (the scenario's first side
    first) and how often a position is kept."""

    map: str
    seed: int
    first: str
    second: str
    every: int
    iterations: int


def games(maps: list[Path], seeds: range, pairs: list[tuple[str, str]], every: int, iterations: int) -> list[Game]:
    """Every map, seed and pair, a pair of two players both ways round."""
    seatings = []
    for a, b in pairs:
        seatings += [(a, b)] if a == b else [(a, b), (b, a)]
    return [Game(str(m), seed, a, b, every, iterations) for seed in seeds for a, b in seatings for m in maps]


def play(game: Game) -> list[dict]:
    """The side to move's features at every ``game.every``-th decision, each with the map, the
    players and that side's result."""
    from engine.scenario import load_scenario

    state = load_scenario(game.map).new_game(seed=game.seed)
    sides = list(state.returns())
    names = {sides[0]: game.first, sides[1]: game.second}
    players = {side: make_player(names[side], seed=2 * game.seed + 1 + i, iterations=game.iterations).player
               for i, side in enumerate(sides)}
    rows, decisions = [], 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
            continue
        side = state.current_player()
        if decisions % game.every == 0:
            rows.append({"side": side, **feature_row(state, side)})
        decisions += 1
        state.apply_action(players[side].act(state))
    returns = state.returns()
    name = Path(game.map).stem
    other = {sides[0]: sides[1], sides[1]: sides[0]}
    return [{**row, "map": name, "pair": f"{names[row['side']]}:{names[other[row['side']]]}",
             "result": float(returns[row["side"]])} for row in rows]


def collect(tasks: list[Game], workers: int) -> list[dict]:
    """The positions of ``tasks``' games, played in ``workers`` processes."""
    from rich.progress import track

    rows: list[dict] = []
    if not tasks:
        return rows
    with ProcessPoolExecutor(workers) as pool:
        for game in track(pool.map(play, tasks), total=len(tasks), description=f"{len(tasks)} games"):
            rows.extend(game)
    return rows


def read_positions(paths: list[Path]) -> tuple[list[dict], list[dict]]:
    """Positions a tournament kept (its ``positions.csv``), split by game: even games to fit on,
    odd ones to validate on (both sides of a duplicate pair fall on the same side of the split).
    ValueError names a file that is not one, or the columns an older one lacks."""
    fit_rows, validate_rows = [], []
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in (*FEATURES, "map", "player", "enemy", "game", "result") if c not in (reader.fieldnames or ())]
            if reader.fieldnames and missing and len(missing) < len(FEATURES):
                raise ValueError(f"{path}: no column {', '.join(missing)}: a tournament run before the evaluation had "
                                 f"that feature kept none; run it again to fit on it")
            for row in reader:
                try:
                    kept = {**{k: float(row[k]) for k in FEATURES}, "map": row["map"],
                            "pair": f"{row['player']}:{row['enemy']}", "result": float(row["result"])}
                    game = int(row["game"])
                except (KeyError, TypeError, ValueError) as error:
                    raise ValueError(f"{path}: not a tournament's positions.csv ({error!r} in row {row})") from None
                (validate_rows if game % 2 else fit_rows).append(kept)
    return fit_rows, validate_rows


def as_positions(rows: list[dict]) -> Positions:
    """Rows of features (with ``map`` and ``result``) as arrays."""
    return Positions({k: np.array([r[k] for r in rows], dtype=float) for k in FEATURES},
                     np.array([r["map"] for r in rows]), np.array([r["result"] for r in rows], dtype=float),
                     np.array([r.get("pair", "") for r in rows]))


def report(fitted: Weights, validation: Positions) -> str:
    """A markdown table: the error forecasting 0, with the greedy player's weights, the search's
    and the fitted ones, on each map, for each pair of players (mover first) when there are
    several, and on all."""
    lines = ["| positions of | positions | forecast 0 | greedy's (default) | search's | fitted |",
             "|---|---|---|---|---|---|"]
    parts = [(name, validation.of_map(name)) for name in sorted(set(validation.maps))]
    pairs = sorted(set(validation.pairs)) if validation.pairs is not None else []
    if len(pairs) > 1:
        parts += [(pair, validation.where(validation.pairs == pair)) for pair in pairs]
    for name, part in [*parts, ("all", validation)]:
        lines.append(f"| {name} | {len(part)} | {float(np.mean(part.results ** 2)):.3f} | "
                     f"{error(DEFAULT_WEIGHTS, part):.3f} | {error(SEARCH_WEIGHTS, part):.3f} | {error(fitted, part):.3f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="games a map to fit on, seeds 0, 1, ... (default 30, at most 100)")
    parser.add_argument("--validate", type=int, default=15, help="fresh games a map to score on, seeds 100, 101, ... (default 15)")
    parser.add_argument("--every", type=int, default=4, help="keep every N-th decision of a game (default 4)")
    parser.add_argument("--maps", nargs="*", help="map names (default: every map)")
    parser.add_argument("--pairs", nargs="*", default=["greedy:greedy"],
                        help="players as first:second, a pair of two both ways round (default greedy:greedy; "
                             f"players: {', '.join(ALL_PLAYERS)})")
    parser.add_argument("--iterations", type=int, default=24, help="the AI's simulations a decision (default 24)")
    parser.add_argument("--positions", nargs="*", type=Path, default=[],
                        help="tournaments' positions.csv files to learn from too (even games fit, odd ones validate)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "experiments" / "results" / "fit_evaluation")
    args = parser.parse_args(argv)
    known = map_names()
    unknown = [name for name in args.maps or () if name not in known]
    if unknown:
        parser.error(f"unknown map {unknown[0]!r}: one of {', '.join(known)}")
    maps = [map_path(name) for name in args.maps or known]
    if not 0 <= args.games <= 100 or args.validate < 0 or (args.games == 0 and not args.positions):
        parser.error("--games takes 0 to 100 (its seeds must not reach validation's, 100 on; 0 only with "
                     "--positions) and --validate 0 or more")
    missing = [str(p) for p in args.positions if not p.is_file()]
    if missing:
        parser.error(f"--positions: no such file: {', '.join(missing)}")
    pairs = [tuple(p.split(":")) for p in args.pairs]
    wrong = [p for p, pair in zip(args.pairs, pairs) if len(pair) != 2 or not set(pair) <= set(ALL_PLAYERS)]
    if wrong or not pairs:
        parser.error(f"--pairs takes first:second of {', '.join(ALL_PLAYERS)}, got {' '.join(wrong) or 'none'}")
    if args.iterations < 1:
        parser.error("--iterations takes 1 or more")
    try:
        kept_fit, kept_validate = read_positions(args.positions)
    except ValueError as error:
        parser.error(f"--positions: {error}")
    names = {m.stem for m in maps}
    training = as_positions(collect(games(maps, range(args.games), pairs, args.every, args.iterations), args.workers)
                            + [r for r in kept_fit if r["map"] in names])
    fresh = range(100, 100 + args.validate)  # fresh game seeds
    validation = as_positions(collect(games(maps, fresh, pairs, args.every, args.iterations), args.workers)
                              + [r for r in kept_validate if r["map"] in names])
    if not len(training) or not len(validation):
        parser.error("no positions to fit on or to validate on: more --games, --validate or --positions")
    fitted = fit(training)
    table = report(fitted, validation)
    changed = " ".join(f"weights.{f.name}={getattr(fitted, f.name)}" for f in fields(Weights)
                       if getattr(fitted, f.name) != getattr(DEFAULT_WEIGHTS, f.name))
    text = (f"# Evaluation fitted to results\n\n`python experiments/fit_evaluation.py {' '.join(argv or sys.argv[1:])}`\n\n"
            f"{len(training)} positions to fit, {len(validation)} to validate (mean squared error of value "
            f"against result, validation games):\n\n{table}\n\nDefault: {asdict(DEFAULT_WEIGHTS)}\n\n"
            f"Fitted: {asdict(fitted)}\n\nTry it: `--search {changed}`\n")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fit.md").write_text(text)
    (args.out / "weights.json").write_text(json.dumps(asdict(fitted), indent=1))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
