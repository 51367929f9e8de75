"""``fireplan play SCENARIO --human SIDE``: a game in the terminal against the AI.

Type orders in the ruleset's notation (``help`` lists it with the orders legal now), or:
``undo`` (take back your last order before any dice are rolled), ``odds ORDER`` (the exact
results of the dice that order leads to), ``show`` (draw the table as you know it to a PNG),
``quit``. With ``--dice table`` the game asks for each roll made at the table (type the
result's notation, Command Dice in any order, or its number as ``#N``); with ``computer`` (the default) it rolls, seeded. The AI's
decisions are narrated with its reasons. The game is saved before every prompt (to ``--save``,
default ``<scenario>.save.json``) and ``--load`` resumes a save exactly. Reading standard
input line by line, it also plays from a pipe; the end of the input ends the game politely.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from engine.errors import FireplanError
from engine.scenario import load_scenario

from ..narrate import order_sentence, outcome_sentence, probability_text, side_name, turn_header, turn_number
from ..players.registry import ALL_PLAYERS, ExplainedPlayer, make_player
from ..saves import DICE_MODES, LoadedGame, SaveError, load_game, new_save, resolve_order, resolve_outcome, write_save

__all__ = ["register", "Session", "notation_help"]

#: How many legal orders (or dice results) ``help`` lists before abbreviating.
LIST_LIMIT = 25


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "play", help="play a game in the terminal against the AI", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("scenario", type=Path, nargs="?", metavar="SCENARIO",
                        help="a scenario file (optional with --load: the save names its scenario)")
    parser.add_argument("--human", metavar="SIDE", help="the side you command (required for a new game)")
    parser.add_argument("--dice", choices=DICE_MODES, help="who rolls: the computer (seeded) or you, at the table (default computer)")
    parser.add_argument("--seed", type=int, help="game seed (default 0)")
    parser.add_argument("--save", type=Path, metavar="FILE", help="autosave file (default <scenario stem>.save.json here, or the --load file)")
    parser.add_argument("--load", type=Path, metavar="FILE", help="resume the game saved in FILE")
    parser.add_argument("--ai", choices=ALL_PLAYERS, help="the opponent (default ai: the search player; a posture such as hold is an easy one)")
    parser.add_argument("--budget", type=float, default=1.0, metavar="SECONDS", help="AI thinking time per decision (default %(default)s)")
    parser.add_argument("--iterations", type=int, metavar="N",
                        help="the AI searches N simulations a decision instead of for --budget seconds: the same "
                             "game on any machine, and a resumed game plays on exactly as the uninterrupted one")
    parser.set_defaults(run=run)


def run(args) -> int:
    session = Session.from_args(args)
    return session.run()


def notation_help(state) -> str:
    """The notation summary of the state's ruleset: its actions module's documentation, examples dropped."""
    import importlib

    doc = importlib.import_module(f"engine.rulesets.{state.scenario.ruleset.name}.actions").__doc__ or ""
    lines = []
    for line in doc.strip().splitlines():
        if line.startswith(">>>") or line.strip() in ("Examples", "--------"):
            break
        lines.append(line)
    return "\n".join(lines).rstrip()


class _Stop(Exception):
    """The player quit or the input ended."""


class Session:
    """One terminal game: the state, the record, the AI, the save file, the input and output."""

    def __init__(self, loaded: LoadedGame, *, save_path: Path, ai_name: str, budget: float,
                 iterations: int | None = None, input_stream=None, output_stream=None):
        self.save = loaded.save
        self.scenario = loaded.scenario
        self.state = loaded.state
        self.actions: list[str] = list(loaded.save.actions)
        self.movers: list[str] = list(loaded.movers)
        self.human = loaded.save.human
        self.ai_side = self.scenario.other_side(self.human).id
        self.dice = loaded.save.dice
        self.save_path = save_path
        self.input = input_stream if input_stream is not None else sys.stdin
        self.output = output_stream if output_stream is not None else sys.stdout
        self.echo = not _isatty(self.input)
        entry = dict(self.save.players.get(self.ai_side) or {})
        self.ai_seed = int(entry.get("seed", self.save.seed)) if isinstance(entry.get("seed", 0), int) else self.save.seed
        made = make_player(ai_name, seed=self.ai_seed, time_budget=budget, iterations=iterations)
        self.ai, self.ai_name, self.ai_note = ExplainedPlayer(made.player, self.ai_seed), made.name, made.note
        thinking = {"iterations": iterations} if iterations is not None and self.ai_name == "ai" else {"time_budget": budget}
        self.save = replace(self.save, players={
            self.human: {"player": "human"},
            self.ai_side: {"player": self.ai_name, "seed": self.ai_seed, **thinking},
        })
        self.undo_stack: list[tuple[object, int]] = []
        self.pictures = 0
        self.last_turn = None

    # ------------------------------------------------------------------ setting up
    @classmethod
    def from_args(cls, args, input_stream=None, output_stream=None) -> "Session":
        if args.load is None and args.scenario is None:
            raise FireplanError("give a SCENARIO file to start a game, or --load FILE to resume one")
        if args.load is not None:
            loaded = load_game(args.load, scenario_path=args.scenario)
            save = loaded.save
            for name, value, saved in (("--human", args.human, save.human), ("--dice", args.dice, save.dice),
                                       ("--seed", args.seed, save.seed)):
                if value is not None and value != saved:
                    raise FireplanError(f"{name}: the game in {args.load} was saved with {saved}, not {value}; "
                                        f"leave {name} out to resume it")
            save_path = args.save or args.load
            entry = save.players.get(loaded.scenario.other_side(save.human).id) or {}
            ai_name = args.ai or str(entry.get("player", "ai"))
            if ai_name not in ALL_PLAYERS:
                ai_name = "ai"
            saved_iterations = entry.get("iterations")
            iterations = args.iterations if args.iterations is not None else (
                saved_iterations if isinstance(saved_iterations, int) and saved_iterations > 0 else None)
        else:
            scenario = load_scenario(args.scenario)
            sides = [side.id for side in scenario.sides]
            if args.human is None:
                raise FireplanError(f"--human: say which side you command, one of {', '.join(sides)}")
            if args.human not in sides:
                raise FireplanError(f"--human: expected one of the sides {', '.join(sides)}, got {args.human!r}")
            seed = 0 if args.seed is None else args.seed
            if seed < 0:
                raise FireplanError(f"--seed: expected a whole number from 0, got {seed}")
            save = new_save(args.scenario, seed=seed, human=args.human, dice=args.dice or "computer", players={})
            loaded = LoadedGame(save, scenario, scenario.new_game(seed=seed), [])
            name = args.scenario.name.removesuffix(".json")
            save_path = args.save or Path(f"{name}.save.json")
            ai_name = args.ai or "ai"
            iterations = args.iterations
        if not args.budget > 0:
            raise FireplanError(f"--budget: expected a positive number of seconds, got {args.budget}")
        if iterations is not None and not 1 <= iterations <= 100_000:
            raise FireplanError(f"--iterations: expected a whole number from 1 to 100000, got {iterations}")
        session = cls(loaded, save_path=save_path, ai_name=ai_name, budget=args.budget, iterations=iterations,
                      input_stream=input_stream, output_stream=output_stream)
        if loaded.save.actions:
            session.recall_ai_plan()
        return session

    def recall_ai_plan(self) -> None:
        """Think again what the AI was thinking when the game was saved.

        The AI plans a whole scope at its first decision and follows the plan, so a game
        resumed mid-scope must know the plan. It is not in the save (a save holds orders, not
        a player's internals): the AI's decisions since the start of its latest scope are
        made again, on the states replayed from the save. With ``--iterations`` they are the
        same decisions, so the resumed game plays on exactly as the uninterrupted one.
        """
        if self.ai_name != "ai":  # the other players decide from the state alone
            return
        state = self.scenario.new_game(seed=self.save.seed)
        since_scope: list[tuple[object, int]] = []  # (state, decision number) of the latest scope
        decision, scope = 0, None
        for mover, text in zip(self.movers, self.actions):
            if mover == self.ai_side and not state.is_chance_node():
                now = _scope(state, mover)
                if now != scope or not since_scope:
                    since_scope, scope = [], now
                since_scope.append((state.clone(), decision))
                decision += 1
            action = resolve_outcome(state, text) if state.is_chance_node() else resolve_order(state, text)
            state.apply_action(action)
        for past, number in since_scope:
            self.ai.decide(past, number)

    # ------------------------------------------------------------------ output and input
    def say(self, text: str = "") -> None:
        print(text, file=self.output, flush=True)

    def read(self, prompt: str) -> str:
        """One line of input (stripped); ``_Stop`` at the end of the input."""
        print(prompt, end="", file=self.output, flush=True)
        line = self.input.readline()
        if not line:
            self.say()
            raise _Stop("end of input")
        line = line.strip()
        if self.echo:
            self.say(line)
        return line

    # ------------------------------------------------------------------ the game
    def run(self) -> int:
        state = self.state
        self.say(self.scenario.summary())
        self.say(f"You command {side_name(state, self.human)} ({self.human}); the computer plays "
                 f"{side_name(state, self.ai_side)} ({self.ai_side}) with the {self.ai_name} player. "
                 f"Dice: {'rolled by the computer' if self.dice == 'computer' else 'rolled by you at the table'}.")
        if self.ai_note:
            self.say(f"Note: {self.ai_note}.")
        if self.actions:
            self.say(f"Resumed from {len(self.actions)} recorded actions.")
        self.say(f"Saving to {self.save_path} before every prompt. Type 'help' for the orders.")
        self.write()
        try:
            while not self.state.is_terminal():
                self._turn_banner()
                mover = self.state.current_player()
                if self.state.is_chance_node():
                    self._chance()
                elif mover == self.human:
                    self._human()
                else:
                    self._ai()
        except _Stop as stop:
            self.write()
            reason = "End of input" if str(stop) == "end of input" else "Game stopped"
            self.say(f"{reason}: the game is saved in {self.save_path}; resume it with "
                     f"'fireplan play --load {self.save_path}'.")
            return 0
        self._finish()
        return 0

    def write(self) -> None:
        write_save(self.save.with_actions(self.actions, self.state.rng), self.save_path)

    def _turn_banner(self) -> None:
        number = turn_number(self.state)
        if number != self.last_turn:
            self.last_turn = number
            self.say(turn_header(self.state))

    def _record(self, mover: str, action, *, undoable: bool) -> None:
        if undoable:
            self.undo_stack.append((self.state.clone(), len(self.actions)))
        else:
            self.undo_stack.clear()
        self.state.apply_action(action)
        self.actions.append(str(action))
        self.movers.append(mover)

    def _finish(self) -> None:
        self.write()
        returns = self.state.returns()
        winners = [side for side, value in returns.items() if value > 0]
        result = f"{side_name(self.state, winners[0])} wins" if winners else "a draw"
        if winners == [self.human]:
            result += " (you)"
        elif winners:
            result += " (the computer)"
        score = ""
        try:
            score = "; score " + ", ".join(f"{side} {value:+.2f}" for side, value in self.state.score().items())
        except NotImplementedError:
            pass
        self.say(f"Game over after {len(self.actions)} actions: {result}{score}. Saved in {self.save_path}.")

    # ------------------------------------------------------------------ chance
    def _chance(self) -> None:
        mover = self.state.current_player()
        if self.dice == "computer":
            outcome = self.state.sample_chance()
            self.say("  " + outcome_sentence(self.state, outcome))
            self._record(mover, outcome, undoable=False)
            return
        self.write()
        outcomes = self.state.chance_outcomes()
        self._list_outcomes(outcomes, LIST_LIMIT)
        while True:
            line = self.read("roll> ")
            word = line.split(" ")[0].lower() if line else ""
            if not line:
                continue
            if word in ("quit", "exit"):
                raise _Stop("quit")
            if word == "list":
                self._list_outcomes(outcomes, None)
            elif word == "help":
                self.say("Type the result rolled at the table in the notation shown (dice in any order, e.g. '6 2 2 5'), "
                         "or its number as #N; "
                         "'list' shows every result, 'undo' takes back your order, 'show' draws the table, 'quit' stops.")
            elif word == "undo":
                if self._undo():
                    return
            elif word == "show":
                self._show()
            else:
                try:
                    outcome = resolve_outcome(self.state, line)
                except FireplanError as error:
                    self.say(f"  {error}.")
                    continue
                self.say("  " + outcome_sentence(self.state, outcome, by="table"))
                self._record(mover, outcome, undoable=False)
                return

    def _list_outcomes(self, outcomes, limit) -> None:
        self.say(f"Roll at the table: {len(outcomes)} possible results. Type one (dice in any order) or its #number:")
        shown = outcomes if limit is None else outcomes[:limit]
        for index, (outcome, probability) in enumerate(shown):
            self.say(f"  #{index} {outcome}   {probability_text(probability)}")
        if len(shown) < len(outcomes):
            self.say(f"  ... and {len(outcomes) - len(shown)} more ('list' shows them all)")

    # ------------------------------------------------------------------ the human
    def _human(self) -> None:
        self.write()
        while True:
            line = self.read(f"{self.human}> ")
            if not line:
                continue
            word, _, rest = line.partition(" ")
            word = word.lower()
            if word in ("quit", "exit"):
                raise _Stop("quit")
            if word == "help":
                self._help(everything=rest.strip().lower() == "all")
            elif word == "undo":
                if self._undo():
                    return
            elif word == "odds":
                self._odds(rest.strip())
            elif word == "show":
                self._show()
            else:
                try:
                    action = resolve_order(self.state, line)
                except FireplanError as error:
                    self.say(f"  {str(error).rstrip('.')}.")
                    continue
                self._record(self.human, action, undoable=True)
                return

    def _help(self, everything: bool = False) -> None:
        self.say(notation_help(self.state))
        self.say("Commands: help [all] | undo | odds ORDER | show | quit")
        actions = self.state.legal_actions()
        shown = actions if everything else actions[:LIST_LIMIT]
        self.say(f"Legal orders now ({len(actions)}):")
        for action in shown:
            self.say(f"  {action}")
        if len(shown) < len(actions):
            self.say(f"  ... and {len(actions) - len(shown)} more ('help all' lists them all; any point on the table "
                     "works where the notation takes one)")

    def _undo(self) -> bool:
        if not self.undo_stack:
            self.say("  Nothing to undo: dice have been rolled or the computer has moved since your last order.")
            return False
        state, length = self.undo_stack.pop()
        taken = self.actions[length]
        self.state = state
        del self.actions[length:]
        del self.movers[length:]
        self.write()
        self.say(f"  Took back `{taken}`.")
        return True

    def _odds(self, text: str) -> None:
        if not text:
            self.say("  Usage: odds ORDER, e.g. 'odds " + str(self.state.legal_actions()[0]) + "'.")
            return
        try:
            action = resolve_order(self.state, text)
        except FireplanError as error:
            self.say(f"  {str(error).rstrip('.')}.")
            return
        trial = self.state.clone()
        trial.apply_action(action)
        if not trial.is_chance_node():
            after = "the game ends" if trial.is_terminal() else f"next, {side_name(trial, trial.current_player())} decides"
            self.say(f"  `{action}` rolls no dice: {after}.")
            return
        outcomes = sorted(trial.chance_outcomes(), key=lambda item: -item[1])
        self.say(f"  `{action}` leads to a roll with {len(outcomes)} possible results:")
        for outcome, probability in outcomes[:LIST_LIMIT]:
            self.say(f"    {probability_text(probability):>20}  {outcome}")
        if len(outcomes) > LIST_LIMIT:
            rest = sum(p for _, p in outcomes[LIST_LIMIT:])
            self.say(f"    ... and {len(outcomes) - LIST_LIMIT} rarer results, {float(rest):.1%} in all")

    def _show(self) -> None:
        from agent.render import render_table  # matplotlib loads only when a picture is asked for
        from engine.view import table_view

        self.pictures += 1
        stem = self.save_path.name.removesuffix(".json")
        path = self.save_path.parent / f"{stem}-{len(self.actions)}-{self.pictures}.png"
        path = render_table(table_view(self.state, self.human), path)
        self.say(f"  Drew the table as {side_name(self.state, self.human)} knows it: {path}")

    # ------------------------------------------------------------------ the AI
    def _ai(self) -> None:
        side = self.state.current_player()
        decision = sum(1 for mover in self.movers if mover == side)
        action, reason = self.ai.decide(self.state, decision)
        self.say("  " + order_sentence(self.state, action, reason, side))
        self._record(side, action, undoable=False)


def _scope(state, side):
    try:
        return state.plan_scope(side)
    except (AttributeError, NotImplementedError):
        return None


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
