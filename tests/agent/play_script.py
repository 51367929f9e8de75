"""Feeding ``fireplan play`` its standard input: fixed lines first, then answers chosen from the game.

``ScriptedInput`` is a stream whose ``readline`` returns the given lines in order, then (with
``autoplay``) answers each prompt from the game as the autosave file records it: the first legal
order at an order prompt, a result of the roll at a table-dice prompt (alternately its notation
and its number, ``#N``). The game on screen and the save are one, so replaying the save tells which
prompt is waiting. ``stop_after`` ends the input (EOF) after that many automatic answers, ``stop_at_roll`` at the
first table-dice prompt; ``answered`` counts answers an earlier session gave.
"""

from __future__ import annotations

from pathlib import Path

from agent.saves import load_game


class ScriptedInput:
    def __init__(self, save_path: Path, lines=(), *, autoplay: bool = True, stop_after: int | None = None,
                 stop_at_roll: bool = False, answered: int = 0):
        self.save_path = Path(save_path)
        self.lines = list(lines)
        self.autoplay = autoplay
        self.stop_after = stop_after
        self.stop_at_roll = stop_at_roll
        self.answers = answered  # answers given before (a resumed game goes on with the same choices)
        self.fed: list[str] = []

    def isatty(self) -> bool:
        return False

    def readline(self) -> str:
        if self.lines:
            line = self.lines.pop(0)
        elif not self.autoplay or (self.stop_after is not None and self.answers >= self.stop_after):
            return ""
        else:
            state = load_game(self.save_path).state
            if state.is_chance_node() and self.stop_at_roll:
                return ""
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                index = self.answers % len(outcomes)
                line = f"#{index}" if self.answers % 2 else str(outcomes[index][0])
            else:
                line = str(state.legal_actions()[0])
            self.answers += 1
        self.fed.append(line)
        return line + "\n"
