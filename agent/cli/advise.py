"""``fireplan advise SCENARIO_OR_SAVE --side SIDE``: the top plans for this turn, with odds, risks and reasons."""

from __future__ import annotations

import json
from pathlib import Path

from engine.errors import FireplanError
from engine.scenario import load_scenario

from ..turn_plans import DEFAULT_ITERATIONS

__all__ = ["register", "run", "load_source"]


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "advise",
        help="the top plans for this turn: odds, sight lines cut, risks and reasons",
        description="The top K plans the barrage, fire and smoke planners give SIDE at this moment of the game "
        "(a scenario: its start; a save: as the game stands), ranked by expected value, with the odds of "
        "suppressing and dispersing, the sight lines cut, the threat removed, the risks and the reasons. "
        "The state is planned as given; when no planner applies, the list is empty and the decision the "
        "game waits for is named.",
    )
    parser.add_argument("source", type=Path, metavar="SCENARIO_OR_SAVE", help="a scenario file or a save file")
    parser.add_argument("--side", required=True, metavar="SIDE", help="the side to advise")
    parser.add_argument("--top", type=int, default=3, metavar="K", help="how many plans (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--png", type=Path, metavar="FILE", help="draw the table with the top plan (.png or .svg)")
    parser.add_argument("--seed", type=int, default=None, help="game seed for a scenario (default 0); also the planners' seed")
    parser.add_argument("--time-limit", type=float, default=2.0, metavar="S", help="seconds per solver run (default 2)")
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS, metavar="N",
                        help="simulations of the AI's search for the whole-turn plans (default %(default)s; 0: none)")
    parser.set_defaults(run=run)


def load_source(source: Path, seed: int | None):
    """``(scenario, state)`` for a scenario file (a new game) or a save (the game as it stands),
    as ``fireplan render`` reads them."""
    from agent.saves import is_save_file, load_game

    if is_save_file(source):
        if seed is not None:
            raise FireplanError(f"--seed: {source} is a save, which has its own seed; leave --seed out")
        loaded = load_game(source)
        return loaded.scenario, loaded.state
    scenario = load_scenario(source)
    return scenario, scenario.new_game(seed=seed or 0)


def run(args) -> int:
    from agent.advice import advise, draw_advice

    if not 0 <= args.iterations <= 100_000:
        raise FireplanError(f"--iterations: expected 0 to 100000 simulations, got {args.iterations}")
    if args.top < 1:
        raise FireplanError(f"--top: expected a whole number >= 1, got {args.top}")
    if not (args.time_limit > 0 and args.time_limit <= 600):
        raise FireplanError(f"--time-limit: expected seconds in (0, 600], got {args.time_limit:g}")
    if args.png is not None and args.png.suffix.lower() not in (".png", ".svg"):
        raise FireplanError(f"--png: {args.png}: expected a file name ending in .png or .svg")
    scenario, state = load_source(args.source, args.seed)
    side_ids = [side.id for side in scenario.sides]
    if args.side not in side_ids:
        raise FireplanError(f"--side: expected one of the sides {', '.join(side_ids)}, got {args.side!r}")
    report = advise(state, args.side, top=args.top, seed=args.seed or 0, time_limit=args.time_limit,
                    scenario=str(args.source), iterations=args.iterations)
    if args.png is not None:
        path = draw_advice(state, args.side, report, args.png)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        _print(report)
    if args.png is not None and not args.json:
        print(f"wrote {path}")
    return 0


def _print(report) -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False)
    console.print(f"[bold]Advice for {report.side}[/bold] in {report.scenario}: waiting for {report.decision}.")
    if not report.plans and not report.turn_plans:
        console.print("No plan to offer at this moment.")
        return
    for plan in report.plans:
        console.print(f"\n[bold]#{plan.rank} {plan.source}[/bold] ({plan.method}): expected value {plan.expected_value:.2f}"
                      + (f", threat removed {plan.threat_removed:.2f}" if plan.threat_removed else ""))
        for action in plan.actions:
            console.print(f"  > {action}", markup=False)
        for name, odds in plan.odds.items():
            text = ", ".join(f"{k} {v:.0%}" if k.startswith("p_") else f"{k} {v:.2f}" for k, v in odds.items())
            console.print(f"  {name}: {text}", markup=False)
        if plan.sight_lines_cut:
            console.print("  cuts: " + "; ".join(f"{a} -> {b}" for a, b in plan.sight_lines_cut), markup=False)
        for risk in plan.risks:
            console.print(f"  risk: {risk}", markup=False)
        for reason in plan.reasons:
            console.print(f"  {reason}", markup=False)
    if report.turn_plans:
        console.print(f"\n[bold]Whole-turn plans[/bold] (the AI's search; value: mean result of its simulations, +1 a win, -1 a loss)")
    for plan in report.turn_plans:
        console.print(f"\n[bold]turn plan {plan.rank}[/bold] {escape(plan.label)} \\[{plan.source}]: {plan.value:+.2f} over "
                      f"{plan.simulations} simulations")
        for action in plan.actions[:12]:
            console.print(f"  > {action}", markup=False)
        if len(plan.actions) > 12:
            console.print(f"  ... and {len(plan.actions) - 12} more orders", markup=False)
        for unit, points in plan.routes.items():
            console.print(f"  route {unit}: " + " -> ".join(f"{x:g},{y:g}" for x, y in points), markup=False)
