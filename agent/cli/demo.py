"""``fireplan demo``: what fireplan makes of the default scenario.

Until the AI plays (issue 8 makes this the AI playing both sides), the demo
loads the default scenario and prints the exact odds that matter before the
first turn: who sees which blind, the attacker's initial barrage on each blind
and each side's comms check.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from engine.errors import FireplanError
from engine.rulesets.chq.fire import barrage_fire_odds, comms_odds
from engine.scenario import load_scenario
from engine.sight import inside, sight_matrix

__all__ = ["register", "DEFAULT_SCENARIO"]

MAPS = Path(__file__).resolve().parents[2] / "maps"
DEFAULT_SCENARIO = MAPS / "chq_saint_aubin.json"


def register(subparsers) -> None:
    parser = subparsers.add_parser("demo", help="show fireplan on the default scenario", description=__doc__)
    parser.add_argument("--scenario", type=Path, default=DEFAULT_SCENARIO, help="a CHQ scenario file (default: %(default)s)")
    parser.set_defaults(run=run)


def run(args) -> int:
    scenario = load_scenario(args.scenario)
    if scenario.ruleset.name != "chq":
        raise FireplanError(f"{args.scenario}: the demo needs a CHQ scenario, got a {scenario.ruleset.name} one")
    console = Console()
    console.print(f"[bold]{scenario.summary()}[/bold]")
    console.print(scenario.description)
    attacker = next((side for side in scenario.sides if side.attacker), scenario.sides[0])
    defender = scenario.other_side(attacker.id)
    _print_sight(console, scenario, attacker, defender)
    _print_barrage(console, scenario, attacker, defender)
    for side in scenario.sides:
        p = comms_odds(side.comms_dice)
        console.print(f"Comms check for {side.name}: {side.comms_dice}D against 3D succeeds with P = {float(p):.1%} (CHQ-18).")
    return 0


def _print_sight(console, scenario, attacker, defender) -> None:
    """Which enemy blinds each attacking unit sees now; a blind's own cover does not hide it."""
    observers = [unit for unit in scenario.units_of(attacker.id) if not unit.off_table]
    blinds = [blind for blind in scenario.blinds if blind.owner == defender.id]
    if not observers or not blinds:
        return
    terrain = [feature.geometry for feature in scenario.sight_blocking_terrain()]
    target_points = np.array([blind.position for blind in blinds])
    # A blind inside a wood or village is seen from outside (CHQ-30 edge rule, simplified for the demo):
    # only terrain that does not contain the target blocks the line.
    holding = inside(target_points, terrain)
    table = Table(title=f"Sight from {attacker.name} to the enemy blinds (terrain only, before any smoke)")
    table.add_column("unit")
    for blind in blinds:
        table.add_column(blind.id, justify="center")
    observer_points = np.array([unit.position for unit in observers])
    seen = np.ones((len(observers), len(blinds)), dtype=bool)
    for index in range(len(terrain)):
        blocked = sight_matrix(observer_points, target_points, terrain=[terrain[index]]).terrain_blocked
        seen &= ~(blocked & ~holding[:, index][None, :])
    for row, unit in enumerate(observers):
        table.add_row(unit.id, *("sees" if visible else "-" for visible in seen[row]))
    console.print(table)


def _print_barrage(console, scenario, attacker, defender) -> None:
    """Odds of the attacker's batteries combined on one blind, if it hides a typical 4D unit (CHQ-25..27)."""
    batteries = [unit for unit in scenario.units_of(attacker.id) if unit.off_table and "indirect" in unit.card]
    blinds = [blind for blind in scenario.blinds if blind.owner == defender.id]
    if not batteries or not blinds:
        return
    rounds = scenario.ruleset.table("missions")[scenario.mission][0]
    dice = [unit.card["indirect"]["fp"] for unit in batteries]
    cover_dice = scenario.ruleset.table("cover")
    table = Table(title=f"Initial barrage: {len(batteries)} batteries combined ({'+'.join(map(str, dice))} fire dice), "
                        f"{rounds} round(s) for the attacker ({scenario.mission})")
    for column in ("blind", "cover", "reaction", "P(suppressed)", "P(any effect)", "E[Disruption]"):
        table.add_column(column, justify="right")
    terrain = list(scenario.terrain)
    holding = inside(np.array([blind.position for blind in blinds]), [feature.geometry for feature in terrain])
    for row, blind in enumerate(blinds):
        covers = [terrain[k].cover for k in np.flatnonzero(holding[row]) if terrain[k].cover != "light"]  # CHQ-7
        cover = max(covers, key=lambda name: cover_dice[name], default="none")
        reaction = 4 + cover_dice[cover]
        odds = barrage_fire_odds(dice, reaction)
        table.add_row(blind.id, cover, f"{reaction}D", f"{float(odds.p_suppressed):.1%}",
                      f"{float(odds.p_any_effect):.1%}", f"{float(odds.expected_disruption):.2f}")
    console.print(table)
