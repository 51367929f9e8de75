"""``fireplan odds``: exact odds of a fire, a time-on-target pool or a comms check.

Each ruleset is a nested sub-command (``fireplan odds chq ...``) added by a
function in ``RULESET_COMMANDS``, so a MET odds command is one more entry
there, not an ``if ruleset == ...`` branch. The numbers come from the
ruleset's engine module; this module only parses, checks and prints.

Examples
--------
::

    fireplan odds chq --dice 7 --tn 3 --reaction 5
    fireplan odds chq --tot 4,4,4 --reaction 5 --json
    fireplan odds chq --comms 4 --against 3
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Any, Callable

from engine.errors import FireplanError

from engine.rulesets import load_ruleset
from engine.rulesets.chq.fire import FireOdds, chq_fire_odds, comms_odds, tot_fire_odds

from .args import OneLineParser

__all__ = ["register", "register_chq", "RULESET_COMMANDS", "fire_report"]

TN_RANGE = (1, 12)




# ---------------------------------------------------------------- argument types
def _dice(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of dice, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of dice >= 0, got {value}")
    return value


def _tn(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole-number TN, got {text!r}") from None
    low, high = TN_RANGE
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"expected a TN from {low} to {high}, got {value}")
    return value


def _batteries(text: str) -> tuple[int, ...]:
    parts = [part.strip() for part in text.split(",")]
    try:
        dice = tuple(_dice(part) for part in parts)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected the batteries' Fire dice as whole numbers >= 0 separated by commas (4,4,4), got {text!r}"
        ) from None
    if len(dice) < 2:
        raise argparse.ArgumentTypeError(f"time-on-target needs two or more batteries (CHQ-24), got {text!r}")
    return dice


# ---------------------------------------------------------------- registration
def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "odds",
        help="exact odds of a fire, a time-on-target pool or a comms check",
        description="Exact odds of a fire, a time-on-target pool or a comms check, with and without smoke.",
    )
    rulesets = parser.add_subparsers(
        dest="ruleset", metavar="RULESET", required=True, parser_class=OneLineParser
    )
    for add_ruleset in RULESET_COMMANDS:
        add_ruleset(rulesets)


def register_chq(rulesets: argparse._SubParsersAction) -> None:
    """``fireplan odds chq``: a fire (--dice), a time-on-target mission (--tot) or a comms check (--comms)."""
    rules = load_ruleset("chq")
    parser = rulesets.add_parser(
        "chq",
        help=f"{rules.title} (CHQ)",
        description=f"Exact odds under {rules.title}: give exactly one of --dice, --tot, --comms.",
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--dice", type=_dice, metavar="N", help="the firer's FP or AT dice (CHQ-3)")
    what.add_argument("--tot", type=_batteries, metavar="D,D,...", help="Fire dice of each battery of a time-on-target mission (CHQ-24)")
    what.add_argument("--comms", type=_dice, metavar="N", help="Artillery Response dice of a Comms Check (CHQ-18)")
    parser.add_argument("--tn", type=_tn, help=f"the firer's TN; required with --dice, default {rules.setting('indirect_tn')} with --tot")
    parser.add_argument("--reaction", type=_dice, metavar="N", help="the target's Reaction dice, cover included (CHQ-3, CHQ-7)")
    parser.add_argument(
        "--reaction-tn", type=_tn, metavar="TN",
        help=f"Reaction TN (default {rules.setting('reaction_tn')}, or {rules.setting('reaction_tn_suppressed')} with --suppressed)",
    )
    parser.add_argument("--smoke", action="store_true", help=f"the line crosses smoke: +{rules.setting('smoke_tn_modifier')} TN (CHQ-10)")
    parser.add_argument("--high-suppression", action="store_true", help="a High Suppression weapon (CHQ-5)")
    parser.add_argument(
        "--on-miss", action="store_true",
        help="with --high-suppression, the target checks even after a complete miss (the other reading of CHQ-5)",
    )
    parser.add_argument("--suppressed", action="store_true", help="the target is already suppressed (Reaction at 5+)")
    parser.add_argument(
        "--against", type=_dice, metavar="N",
        help=f"with --comms, the opponent's dice (default {rules.setting('comms_opposing_dice')})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.set_defaults(run=_run_chq)


RULESET_COMMANDS: tuple[Callable[[argparse._SubParsersAction], None], ...] = (register_chq,)


# ---------------------------------------------------------------- running
_FIRE_ONLY = ("tn", "reaction", "reaction_tn", "smoke", "high_suppression", "on_miss", "suppressed")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _run_chq(args: argparse.Namespace) -> int:
    if args.comms is not None:
        given = [name for name in _FIRE_ONLY if getattr(args, name) not in (None, False)]
        if given:
            raise FireplanError(f"{_flag(given[0])} does not apply to --comms")
        return _show_comms(args)
    if args.against is not None:
        raise FireplanError("--against applies only to --comms")
    if args.reaction is None:
        raise FireplanError("--reaction (the target's Reaction dice) is required with --dice or --tot")
    if args.on_miss and not args.high_suppression:
        raise FireplanError("--on-miss applies only with --high-suppression")
    options = dict(
        reaction_tn=args.reaction_tn,
        smoke=args.smoke,
        high_suppression=args.high_suppression,
        suppressed_target=args.suppressed,
        on_miss=True if args.on_miss else None,
    )
    if args.tot is not None:
        odds = tot_fire_odds(args.tot, args.reaction, args.tn, **options)
        inputs: dict[str, Any] = {"tot": list(args.tot)}
    else:
        if args.tn is None:
            raise FireplanError("--tn is required with --dice")
        odds = chq_fire_odds(args.dice, args.tn, args.reaction, **options)
        inputs = {"dice": args.dice}
    inputs.update(
        tn=odds.tn,
        reaction=args.reaction,
        reaction_tn=odds.reaction_tn,
        smoke=args.smoke,
        high_suppression=args.high_suppression,
        on_miss=odds.on_miss,
        suppressed=args.suppressed,
    )
    if args.json:
        _print_json(fire_report(odds, inputs))
    else:
        _print_fire(odds, inputs)
    return 0


def fire_report(odds: FireOdds, inputs: dict[str, Any]) -> dict[str, Any]:
    """The JSON object for a fire: floats for tools, exact fractions as strings under ``exact``."""
    forced_back = {str(inches): float(p) for inches, p in odds.forced_back.items()}
    return {
        "ruleset": "chq",
        "kind": "tot" if "tot" in inputs else "fire",
        "inputs": inputs,
        "effective_dice": odds.effective_dice,
        "effective_tn": odds.effective_tn,
        "reaction_dice": odds.effective_reaction,
        "reaction_tn": odds.effective_reaction_tn,
        "disruption": [float(p) for p in odds.disruption],
        "p_suppressed": float(odds.p_suppressed),
        "p_any_effect": float(odds.p_any_effect),
        "expected_disruption": float(odds.expected_disruption),
        "p_forced_back": float(odds.p_forced_back),
        "forced_back": forced_back,
        "p_dispersed": float(odds.p_dispersed()),
        "cohesion": odds.cohesion,
        "exact": {
            "disruption": [str(p) for p in odds.disruption],
            "p_suppressed": str(odds.p_suppressed),
            "p_any_effect": str(odds.p_any_effect),
            "expected_disruption": str(odds.expected_disruption),
        },
    }


def _show_comms(args: argparse.Namespace) -> int:
    rules = load_ruleset("chq")
    against = rules.setting("comms_opposing_dice") if args.against is None else args.against
    tn = rules.setting("check_tn")
    p = comms_odds(args.comms, against)
    if args.json:
        _print_json(
            {
                "ruleset": "chq",
                "kind": "comms",
                "inputs": {"comms": args.comms, "against": args.against},
                "dice": args.comms,
                "against": against,
                "tn": tn,
                "p_success": float(p),
                "exact": {"p_success": str(p)},
            }
        )
    else:
        console = _console()
        console.print(f"[bold]CHQ Comms Check (CHQ-18):[/bold] {args.comms}D against {against}D, both at {tn}+")
        console.print(f"P(success, fires for effect now) = {_percent(p)}   (exact {p})")
        console.print(f"P(failure, delayed to the next Logistics Phase) = {_percent(1 - p)}")
    return 0


# ---------------------------------------------------------------- printing
def _print_json(report: dict[str, Any]) -> None:
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")


def _console():
    from rich.console import Console  # imported here: only printing needs rich

    return Console(highlight=False, soft_wrap=True)


def _percent(p: Fraction) -> str:
    if p == 0:
        return "0%"
    if p < Fraction(1, 1000):
        return "<0.1%"
    if p > Fraction(999, 1000) and p != 1:
        return ">99.9%"
    return f"{float(p):.1%}"


def _print_fire(odds: FireOdds, inputs: dict[str, Any]) -> None:
    from rich.table import Table

    console = _console()
    pool = f"{odds.dice}D"
    if "tot" in inputs:
        pool = f"time-on-target of {len(inputs['tot'])} batteries ({', '.join(f'{d}D' for d in inputs['tot'])}) = {odds.dice}D"
    title = (
        f"[bold]CHQ fire:[/bold] {pool} at {odds.tn + odds.smoke_modifier}+ against Reaction "
        f"{odds.effective_reaction}D at {odds.effective_reaction_tn}+"
    )
    console.print(title)
    notes = []
    if odds.smoke_modifier:
        notes.append(f"smoke +{odds.smoke_modifier} TN (CHQ-10)")
    if (odds.effective_dice, odds.effective_tn) != (odds.dice, odds.tn + odds.smoke_modifier):
        notes.append(
            f"{odds.dice}D at {odds.tn + odds.smoke_modifier}+ rolls as {odds.effective_dice}D at {odds.effective_tn}+ (CHQ-11)"
        )
    if (odds.effective_reaction, odds.effective_reaction_tn) != (odds.reaction, odds.reaction_tn):
        notes.append(
            f"Reaction {odds.reaction}D at {odds.reaction_tn}+ rolls as "
            f"{odds.effective_reaction}D at {odds.effective_reaction_tn}+ (CHQ-11)"
        )
    if odds.high_suppression:
        reading = "a miss also checks" if odds.on_miss else "a complete miss forces no check"
        notes.append(f"High Suppression: ties suppress (CHQ-5; {reading})")
    for note in notes:
        console.print(f"  {note}")

    table = Table(title="Disruption (CHQ-3)", title_justify="left")
    table.add_column("Disruption", justify="right")
    table.add_column("P", justify="right")
    table.add_column("P(at least)", justify="right")
    at_least = Fraction(1)
    for points, p in enumerate(odds.disruption):
        table.add_row(str(points), _percent(p), _percent(at_least))
        at_least -= p
    console.print(table)

    console.print(f"P(suppressed)        {_percent(odds.p_suppressed)}")
    console.print(f"P(any effect)        {_percent(odds.p_any_effect)}")
    console.print(f"Expected Disruption  {float(odds.expected_disruption):.3f}")
    console.print(f"P(dispersed)         {_percent(odds.p_dispersed())}  (fresh unit, Cohesion {odds.cohesion})")
    pushed = [(inches, p) for inches, p in odds.forced_back.items() if inches]
    if pushed:
        p_pushed = odds.p_forced_back
        mean = sum(inches * p for inches, p in pushed) / p_pushed
        low, high = pushed[0][0], pushed[-1][0]
        console.print(
            f'Forced back (CHQ-6)  {_percent(p_pushed)}; when forced back {float(mean):.1f}" on average, '
            f'{low}" to {high}"'
        )
    else:
        console.print("Forced back (CHQ-6)  never")
