"""The ``fireplan`` command line.

Each sub-command lives in its own module with a ``register(subparsers)``
function; user mistakes (``FireplanError``) become one line on stderr and exit
code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys

from engine.errors import FireplanError

from . import advise, check, demo, odds, play, render, smoke, stress
from .args import OneLineParser

__all__ = ["main", "build_parser"]

COMMANDS = (odds, smoke, check, render, demo, play, advise, stress)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="fireplan",
        description="AI opponent and tactics planner for WWII tabletop battles.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=OneLineParser)
    for command in COMMANDS:
        command.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args) or 0
    except FireplanError as error:
        print(f"fireplan {args.command}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader (``| head``) went away: not an error of ours
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("fireplan: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
