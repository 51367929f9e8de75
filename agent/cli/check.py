"""``fireplan check FILE...``: validate scenario files and say what is in them."""

from __future__ import annotations

import sys

from engine.errors import ScenarioError
from engine.scenario import load_scenario

__all__ = ["register"]


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "check",
        help="validate scenario files",
        description="Validate scenario files: a one-line summary of each good file, the first problem of each bad one.",
    )
    parser.add_argument("files", nargs="+", metavar="SCENARIO", help="scenario JSON file(s)")
    parser.add_argument("--all-problems", action="store_true", help="list every problem found, not only the first")
    parser.set_defaults(run=run)


def run(args) -> int:
    failed = 0
    for path in args.files:
        try:
            scenario = load_scenario(path)
        except ScenarioError as error:
            failed += 1
            problems = error.problems if args.all_problems else (str(error),)
            for problem in problems:
                print(f"fireplan check: error: {problem}", file=sys.stderr)
            continue
        print(f"{path}: ok: {scenario.summary()}")
    return 2 if failed else 0
