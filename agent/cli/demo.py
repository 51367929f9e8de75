"""``fireplan demo``: the AI plays both sides of the default scenario, narrating, with a picture per turn.

Each decision is narrated (the order in the notation, what it does and why, from the
player's plan), each roll with the odds it had, and at the start of every turn (or period)
the table is drawn to ``--out`` (default ``demo-out/``), as the umpire sees it. A small
thinking budget per decision keeps the whole game under two minutes.
"""

from __future__ import annotations

import time
from pathlib import Path

from engine.errors import FireplanError
from engine.scenario import load_scenario

from ..maps import map_path
from ..narrate import order_sentence, outcome_sentence, side_name, turn_header, turn_number
from ..players.registry import ALL_PLAYERS, ExplainedPlayer, make_player

__all__ = ["register", "DEFAULT_SCENARIO", "run_demo"]

DEFAULT_SCENARIO = map_path("chq_saint_aubin")


def register(subparsers) -> None:
    parser = subparsers.add_parser("demo", help="watch the AI play both sides of the default scenario", description=__doc__)
    parser.add_argument("--scenario", type=Path, default=DEFAULT_SCENARIO, help="a scenario file (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=Path("demo-out"), metavar="DIR", help="folder for the pictures (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="game seed (default %(default)s)")
    parser.add_argument("--ai", choices=ALL_PLAYERS, default="ai", help="the player on both sides (default %(default)s)")
    parser.add_argument("--budget", type=float, default=0.3, metavar="SECONDS",
                        help="thinking time per search (default %(default)s)")
    parser.set_defaults(run=run)


def run(args) -> int:
    if not args.budget > 0:
        raise FireplanError(f"--budget: expected a positive number of seconds, got {args.budget}")
    if args.seed < 0:
        raise FireplanError(f"--seed: expected a whole number from 0, got {args.seed}")
    scenario = load_scenario(args.scenario)
    if args.out.exists() and not args.out.is_dir():
        raise FireplanError(f"--out: {args.out} is a file, expected a folder for the pictures")
    run_demo(scenario, args.out, seed=args.seed, ai=args.ai, budget=args.budget)
    return 0


def run_demo(scenario, out: Path, *, seed: int = 1, ai: str = "ai", budget: float = 0.3, say=print,
             max_steps: int = 100_000) -> list[Path]:
    """Play ``scenario`` with ``ai`` on both sides, narrating through ``say``; returns the pictures."""
    from agent.render import render_table  # matplotlib loads only for the pictures
    from engine.view import table_view

    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise FireplanError(f"--out: cannot make the folder {out} ({error.strerror or error})") from None
    started = time.perf_counter()
    state = scenario.new_game(seed=seed)
    players = {}
    for index, side in enumerate(scenario.sides):
        made = make_player(ai, seed=seed * 1000 + index, time_budget=budget)
        if made.note:
            say(f"Note: {made.note}.")
        players[side.id] = ExplainedPlayer(made.player, seed * 1000 + index)
    say(scenario.summary())
    say(f"The {ai} player commands both sides ({budget:g} s a search); pictures go to {out}/.")
    pictures: list[Path] = []
    decisions = {side.id: 0 for side in scenario.sides}
    last_turn = object()

    def picture(label: str) -> None:
        path = render_table(table_view(state, None), out / f"{label}.png", width_inches=8, dpi=80)
        pictures.append(path)
        say(f"  [picture: {path}]")

    for _ in range(max_steps):
        number = turn_number(state)
        if number != last_turn and not state.is_terminal():
            last_turn = number
            say(turn_header(state))
            picture(f"turn-{number:02d}" if isinstance(number, int) else f"step-{len(pictures):02d}")
        if state.is_terminal():
            break
        mover = state.current_player()
        if state.is_chance_node():
            outcome = state.sample_chance()
            say("  " + outcome_sentence(state, outcome))
            state.apply_action(outcome)
            continue
        action, reason = players[mover].decide(state, decisions[mover])
        decisions[mover] += 1
        say("  " + order_sentence(state, action, reason, mover))
        state.apply_action(action)
    else:
        raise RuntimeError(f"the demo game did not end within {max_steps} steps")
    picture("final")
    returns = state.returns()
    winners = [side for side, value in returns.items() if value > 0]
    result = f"{side_name(state, winners[0])} wins" if winners else "a draw"
    say(f"Game over: {result}. {len(pictures)} pictures in {out}/; "
        f"{sum(decisions.values())} decisions in {time.perf_counter() - started:.0f} s.")
    return pictures
