"""``fireplan render SCENARIO -o FILE.png|svg [--sight SIDE]``: a picture of the table."""

from __future__ import annotations

from pathlib import Path

from engine.errors import FireplanError
from engine.scenario import load_scenario
from engine.view import table_view

__all__ = ["register"]


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "render",
        help="draw the table to a PNG or SVG",
        description="Draw the table: terrain, objectives, units and blinds (as SIDE knows them with --sight), "
        "smoke screens by density, fire templates, a scale bar and a north arrow.",
    )
    parser.add_argument("source", type=Path, metavar="SCENARIO", help="a scenario file")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="picture to write (.png or .svg)")
    parser.add_argument("--sight", metavar="SIDE", help="draw the table as this side knows it (default: the umpire's view)")
    parser.add_argument("--seed", type=int, default=0, help="game seed (default %(default)s)")
    parser.set_defaults(run=run)


def run(args) -> int:
    from agent.render import render_table  # matplotlib loads only for this command

    scenario = load_scenario(args.source)
    side_ids = [side.id for side in scenario.sides]
    if args.sight is not None and args.sight not in side_ids:
        raise FireplanError(f"--sight: expected one of the sides {', '.join(side_ids)}, got {args.sight!r}")
    state = scenario.new_game(seed=args.seed)
    path = render_table(table_view(state, args.sight), args.output)
    print(f"wrote {path}")
    return 0
