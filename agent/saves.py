"""Saved games: versioned JSON, written atomically, resumed exactly by replaying the orders.

A save records what is needed to rebuild a game, never the game's internals::

    {
      "format": "fireplan-save/1",
      "scenario": {"path": "/abs/maps/met_calm_bocage.json", "sha256": "<hex of the file's bytes>"},
      "seed": 7,
      "human": "gb",
      "dice": "computer",                       # or "table"
      "players": {"gb": {"player": "human"}, "de": {"player": "ai", "seed": 7, "time_budget": 1.0}},
      "actions": ["hold gb-section-1", "...", "hit", "..."],   # notation, chance outcomes included
      "rng": {...}                               # the state's dice generator after the last action
    }

Loading replays ``actions`` on a fresh ``Scenario.new_game(seed)``: each string is matched
to the state's own outcomes (at a chance node) or legal orders, or else read with the
ruleset's ``parse_action`` and checked by the rules, so a save that does not replay is
refused. ``rng`` then restores the dice generator, so a resumed game rolls what the
uninterrupted one would have rolled. Every refusal is one sentence naming the file
(``SaveError``, exit code 2 on the command line); nothing is ever written while loading.

Examples
--------
>>> import tempfile, pathlib
>>> from engine.scenario import load_scenario
>>> path = pathlib.Path("maps/met_calm_bocage.json")
>>> state = load_scenario(path).new_game(seed=3)
>>> save = new_save(path, seed=3, human="gb", dice="computer", players={})
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = write_save(save.with_actions(["end"], state.rng), folder / "g.save.json")
>>> load_game(folder / "g.save.json").state.current_player()
'de'
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Hashable, Mapping, Sequence

from engine.errors import FireplanError
from engine.files import read_user_text
from engine.scenario import Scenario, load_scenario

__all__ = [
    "SAVE_FORMAT",
    "DICE_MODES",
    "SaveError",
    "SaveGame",
    "LoadedGame",
    "new_save",
    "read_save",
    "write_save",
    "load_game",
    "replay",
    "resolve_order",
    "resolve_outcome",
    "is_save_file",
    "scenario_sha256",
]

SAVE_FORMAT = "fireplan-save/1"
DICE_MODES = ("computer", "table")
#: A save holds a few thousand short strings; anything much bigger is not one of ours.
MAX_SAVE_BYTES = 5_000_000
_FIELDS = ("format", "scenario", "seed", "human", "dice", "players", "actions")


class SaveError(FireplanError):
    """A save file that cannot be used: the message names the file and what is wrong."""


@dataclass(frozen=True)
class SaveGame:
    """The contents of one save file."""

    scenario_path: str
    scenario_sha256: str
    seed: int
    human: str
    dice: str
    players: Mapping[str, Any]
    actions: tuple[str, ...] = ()
    rng: Mapping[str, Any] | None = field(default=None, compare=False)

    def with_actions(self, actions: Sequence[str], rng=None) -> "SaveGame":
        """This save after ``actions``; ``rng`` is the state's generator (its state is stored)."""
        state = dict(rng.bit_generator.state) if rng is not None else None
        return replace(self, actions=tuple(actions), rng=state)

    def to_json(self) -> dict:
        data = {
            "format": SAVE_FORMAT,
            "scenario": {"path": self.scenario_path, "sha256": self.scenario_sha256},
            "seed": self.seed,
            "human": self.human,
            "dice": self.dice,
            "players": dict(self.players),
            "actions": list(self.actions),
        }
        if self.rng is not None:
            data["rng"] = self.rng
        return data


@dataclass
class LoadedGame:
    """A save brought back to life: the scenario, the state after every action, who moved."""

    save: SaveGame
    scenario: Scenario
    state: Any
    movers: list[str]


# ---------------------------------------------------------------------------- scenario identity
def scenario_sha256(path: str | Path) -> str:
    """The SHA-256 of a scenario file's bytes (a save names the exact file it was played on)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as error:
        raise SaveError(f"{path}: cannot be read ({error.strerror or error}).") from None


def new_save(scenario_path: str | Path, *, seed: int, human: str, dice: str, players: Mapping[str, Any]) -> SaveGame:
    """A save of a game about to start on ``scenario_path`` (no actions yet)."""
    path = Path(scenario_path).resolve()
    return SaveGame(str(path), scenario_sha256(path), int(seed), human, dice, dict(players))


# ---------------------------------------------------------------------------- writing
def write_save(save: SaveGame, path: str | Path) -> Path:
    """Write ``save`` to ``path`` atomically: a temporary file in the same folder, then ``os.replace``.

    A crash at any moment leaves either the previous save or the new one, never half a file.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise SaveError(f"{path}: cannot save there, the folder {folder} does not exist.")
    text = json.dumps(save.to_json(), indent=1)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as error:
        raise SaveError(f"{path}: cannot save there ({error.strerror or error}).") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text + "\n")
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise SaveError(f"{path}: cannot save there ({error.strerror or error}).") from None
        raise
    return path


# ---------------------------------------------------------------------------- reading
def _read_json(path: Path) -> Any:
    text = read_user_text(path, what="fireplan save", max_bytes=MAX_SAVE_BYTES, error=SaveError)

    def no_constants(name):
        raise ValueError(f"expected finite numbers, got {name}")

    try:
        return json.loads(text, parse_constant=no_constants)
    except json.JSONDecodeError as error:
        raise SaveError(
            f"{path}: line {error.lineno} column {error.colno}: expected a fireplan save (valid JSON), "
            f"got {error.msg.lower()} (is the file truncated?)."
        ) from None
    except RecursionError:
        raise SaveError(f"{path}: expected a fireplan save, got JSON nested too deeply to be one.") from None
    except ValueError as error:
        raise SaveError(f"{path}: {error} (not valid JSON).") from None


def is_save_file(path: str | Path) -> bool:
    """Whether ``path`` claims to be a fireplan save (its ``format`` starts with ``fireplan-save``).

    Anything unreadable or not a JSON object is not a save (the scenario loader will explain).
    """
    try:
        data = _read_json(Path(path))
    except SaveError:
        return False
    return isinstance(data, dict) and isinstance(data.get("format"), str) and data["format"].startswith("fireplan-save")


def read_save(path: str | Path) -> SaveGame:
    """Read and check the shape of the save at ``path`` (without replaying it)."""
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, dict):
        raise SaveError(f"{path}: expected a fireplan save (a JSON object), got {type(data).__name__ if data is not None else 'null'}.")
    found = data.get("format")
    if found != SAVE_FORMAT:
        if isinstance(found, str) and found.startswith("fireplan-save"):
            raise SaveError(f"{path}: format: expected {SAVE_FORMAT!r}, got {found!r} (saved by another version of fireplan).")
        what = "a scenario file" if isinstance(found, str) and found.startswith("fireplan-scenario") else "another kind of file"
        raise SaveError(f"{path}: format: expected {SAVE_FORMAT!r}, got {_show(found)} ({what}, not a save).")
    for name in _FIELDS:
        if name not in data:
            raise SaveError(f"{path}: {name}: is missing; expected a field of every save (is the file truncated?).")
    extra = sorted(set(data) - set(_FIELDS) - {"rng"})
    if extra:
        raise SaveError(f"{path}: {extra[0]}: is not a field of a save file.")
    scenario = data["scenario"]
    if not (isinstance(scenario, dict) and isinstance(scenario.get("path"), str) and isinstance(scenario.get("sha256"), str)
            and len(scenario["sha256"]) == 64 and set(scenario) == {"path", "sha256"}):
        raise SaveError(f"{path}: scenario: expected {{\"path\": ..., \"sha256\": <64 hex digits>}}, got {_show(scenario)}.")
    seed = data["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise SaveError(f"{path}: seed: expected a whole number from 0, got {_show(seed)}.")
    if not isinstance(data["human"], str):
        raise SaveError(f"{path}: human: expected a side id, got {_show(data['human'])}.")
    if data["dice"] not in DICE_MODES:
        raise SaveError(f"{path}: dice: expected one of {', '.join(DICE_MODES)}, got {_show(data['dice'])}.")
    if not isinstance(data["players"], dict):
        raise SaveError(f"{path}: players: expected an object of side: player, got {_show(data['players'])}.")
    actions = data["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, str) and 0 < len(a) <= 400 for a in actions):
        raise SaveError(f"{path}: actions: expected a list of orders and outcomes in the notation, got {_show(actions)}.")
    rng = data.get("rng")
    if rng is not None and not isinstance(rng, dict):
        raise SaveError(f"{path}: rng: expected the dice generator's state (an object), got {_show(rng)}.")
    return SaveGame(scenario["path"], scenario["sha256"].lower(), seed, data["human"], data["dice"],
                    data["players"], tuple(actions), rng)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ---------------------------------------------------------------------------- replaying
def _normal(text: str) -> str:
    return "".join(text.split()).lower()


def _parser(state):
    """The ruleset's ``parse_action`` (each ruleset package has ``actions.parse_action``)."""
    return importlib.import_module(f"engine.rulesets.{state.scenario.ruleset.name}.actions").parse_action


def resolve_outcome(state, text: str) -> Hashable:
    """The outcome of the current chance node that ``text`` names.

    In order: its notation (``dice us: 1,3,4,4,6``); the same dice in any order, with or without
    the label (``6 4 1 3 4``: dice read off the table are not sorted); the ruleset's parse; its
    number in the list as ``#N`` (or a bare ``N`` when no result reads so). Raises
    ``FireplanError`` with the expected forms when none matches.
    """
    outcomes = [outcome for outcome, _ in state.chance_outcomes()]
    wanted = _normal(text)
    exact = [o for o in outcomes if _normal(str(o)) == wanted]
    if exact:
        return exact[0]
    if wanted.startswith("#") and wanted[1:].isdigit() and int(wanted[1:]) < len(outcomes):
        return outcomes[int(wanted[1:])]
    label, dice = _dice_reading(text)
    if dice:
        same = [o for o in outcomes if _dice_reading(str(o))[1] == dice and (not label or _dice_reading(str(o))[0] == label)]
        if len(same) == 1:
            return same[0]
    try:
        parsed = _parser(state)(text, state)
    except (FireplanError, ValueError):
        parsed = None
    if parsed is not None and parsed in outcomes:
        return parsed
    if wanted.isdigit() and int(wanted) < len(outcomes):
        return outcomes[int(wanted)]
    sample = ", ".join(f"'{o}'" for o in outcomes[:3])
    raise FireplanError(
        f"{text.strip()!r} is not one of the {len(outcomes)} possible results here; type a result such as {sample}"
        f" (dice in any order) or its number #0-#{len(outcomes) - 1}"
    )


_TRAILING_NUMBERS = re.compile(r"(\d+(?:[\s,;]+\d+)*)\s*$")


def _dice_reading(text: str) -> tuple[str, tuple[int, ...]]:
    """``(label, sorted numbers)`` of a result's trailing list of numbers: ``"dice us: 4,1"`` gives
    ``("diceus:", (1, 4))``; a text without trailing numbers gives ``(label, ())``."""
    match = _TRAILING_NUMBERS.search(text)
    if match is None:
        return _normal(text), ()
    numbers = tuple(sorted(int(n) for n in re.split(r"[\s,;]+", match.group(1))))
    return _normal(text[: match.start()]), numbers


def resolve_order(state, text: str) -> Hashable:
    """The order ``text`` names for the side to move: a canonical legal order printing the same, else
    the ruleset's parse of it. Raises ``FireplanError`` (``IllegalActionError``) with the reason when
    it cannot be read or the rules forbid it now."""
    wanted = _normal(text)
    for action in state.legal_actions():
        if _normal(str(action)) == wanted:
            return action
    action = _parser(state)(text, state)
    reason = state.illegal_reason(action)
    if reason is not None:
        raise FireplanError(reason)
    return action


def replay(scenario: Scenario, seed: int, actions: Sequence[str], *, source: str = "<save>"):
    """A fresh game of ``scenario`` with ``actions`` applied in order; returns ``(state, movers)``.

    Raises ``SaveError`` naming ``source`` and the first action that does not replay.
    """
    state = scenario.new_game(seed=seed)
    movers = []
    for index, text in enumerate(actions):
        if state.is_terminal():
            raise SaveError(f"{source}: actions[{index}]: the game was already over before {text!r}.")
        mover = state.current_player()
        try:
            action = resolve_outcome(state, text) if state.is_chance_node() else resolve_order(state, text)
            state.apply_action(action)
        except FireplanError as error:
            raise SaveError(f"{source}: actions[{index}]: {text!r} does not replay ({_clause(error)}).") from None
        movers.append(mover)
    return state, movers


def _clause(error: Exception) -> str:
    return str(error).strip().rstrip(".")


def load_game(path: str | Path, *, scenario_path: str | Path | None = None) -> LoadedGame:
    """Read the save at ``path`` and rebuild its game exactly.

    ``scenario_path`` (optional) is the scenario the caller expects: a save of a different file
    is refused. The scenario file must be byte for byte the one the game was played on.
    """
    path = Path(path)
    save = read_save(path)
    if scenario_path is not None:
        given = scenario_sha256(scenario_path)
        if given != save.scenario_sha256:
            raise SaveError(f"{path}: is a save of {save.scenario_path}, not of {scenario_path} (the scenario files differ).")
        where = Path(scenario_path)
    else:
        where = Path(save.scenario_path)
        if not where.is_file():
            raise SaveError(f"{path}: its scenario file {where} is missing; give the scenario on the command line.")
        if scenario_sha256(where) != save.scenario_sha256:
            raise SaveError(f"{path}: its scenario file {where} has changed since the game was saved (the SHA-256 differs).")
    scenario = load_scenario(where)
    sides = [side.id for side in scenario.sides]
    if save.human not in sides:
        raise SaveError(f"{path}: human: expected one of the sides {', '.join(sides)}, got {save.human!r}.")
    state, movers = replay(scenario, save.seed, save.actions, source=str(path))
    if save.rng is not None:
        try:
            state.rng.bit_generator.state = dict(save.rng)
        except (TypeError, ValueError, KeyError, OverflowError):
            raise SaveError(f"{path}: rng: expected the state of a {type(state.rng.bit_generator).__name__} generator.") from None
    return LoadedGame(save, scenario, state, movers)
