"""``fireplan render SCENARIO_OR_SAVE -o FILE.png|svg [--sight SIDE]``: a picture of the table."""

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
        "smoke screens by density, fire templates, a scale bar and a north arrow. Given a save "
        "(fireplan play), the table is drawn as the game stands.",
    )
    parser.add_argument("source", type=Path, metavar="SCENARIO_OR_SAVE", help="a scenario file or a save file")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="picture to write (.png or .svg)")
    parser.add_argument("--sight", metavar="SIDE", help="draw the table as this side knows it (default: the umpire's view)")
    parser.add_argument("--seed", type=int, default=None, help="game seed for a scenario (default 0; a save has its own)")
    parser.set_defaults(run=run)


def run(args) -> int:
    from agent.render import render_table  # matplotlib loads only for this command
    from agent.saves import is_save_file, load_game

    if is_save_file(args.source):
        if args.seed is not None:
            raise FireplanError(f"--seed: {args.source} is a save, which has its own seed; leave --seed out")
        loaded = load_game(args.source)
        scenario, state = loaded.scenario, loaded.state
    else:
        scenario = load_scenario(args.source)
        state = None
    side_ids = [side.id for side in scenario.sides]
    if args.sight is not None and args.sight not in side_ids:
        raise FireplanError(f"--sight: expected one of the sides {', '.join(side_ids)}, got {args.sight!r}")
    if state is None:
        state = scenario.new_game(seed=args.seed or 0)
    path = render_table(table_view(state, args.sight), args.output)
    print(f"wrote {path}")
    return 0
