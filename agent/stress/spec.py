"""What a stress run is: the scenario, the players, how many games, what varies, and the seeds.

Every game is a pure function of the run and its index: its game seed, its players' seeds and
the values of the varied parameters all come from ``numpy.random.SeedSequence([seed, index,
stream])``, so a run gives the same per-game results on one process, on many, and on Dask,
in any order, and a resumed run continues exactly.

A varied parameter is ``name=low:high`` (or ``name=value``). Each game draws its value
uniformly from the range: a whole number when both ends are whole numbers, else a real. The
names are scenario fields (``turns``, ``periods``, ``wind``, ``wind_from``, ``rain``,
``staff_orders``, ``command_dice``, ``comms_dice``, ``morale_points``, the side fields also as ``SIDE.field``)
and any number or yes/no setting of the ruleset's data file (``smoke_extra_pulse=0:1``).

Examples
--------
>>> parse_vary("wind=0:30,staff_orders=2:6")
(Vary(name='wind', low=0, high=30), Vary(name='staff_orders', low=2, high=6))
>>> game_seed(7, 0) == game_seed(7, 0) != game_seed(7, 1)
True
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np

from engine.errors import FireplanError
from engine.files import read_user_text
from engine.scenario import Scenario, load_scenario, parse_scenario
from engine.scenario.load import MAX_FILE_BYTES

__all__ = ["Vary", "StressRun", "parse_vary", "check_vary", "game_seed", "player_seed", "game_parameters", "scenario_for",
           "SCENARIO_FIELDS", "SIDE_FIELDS"]

#: Scenario fields a run may vary, and where they live in the file.
SCENARIO_FIELDS = ("turns", "periods", "wind", "wind_from", "rain")
SIDE_FIELDS = ("staff_orders", "command_dice", "comms_dice", "morale_points")
_GAME, _BLUE, _RED, _PARAMETERS = 0, 1, 2, 3  # the seed streams of one game


@dataclass(frozen=True, slots=True)
class Vary:
    """One varied parameter: each game draws ``name`` uniformly from ``low`` to ``high``."""

    name: str
    low: float
    high: float

    @property
    def whole(self) -> bool:
        return isinstance(self.low, int) and isinstance(self.high, int)

    def draw(self, rng: np.random.Generator):
        if self.whole:
            return int(rng.integers(self.low, self.high + 1))
        return round(float(rng.uniform(self.low, self.high)), 6)

    def __str__(self) -> str:
        return f"{self.name}={self.low}:{self.high}" if self.low != self.high else f"{self.name}={self.low}"


def _number(text: str, where: str):
    try:
        value = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            raise FireplanError(f"--vary {where}: expected a number, got {text!r}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise FireplanError(f"--vary {where}: expected a finite number, got {text!r}")
    return value


def parse_vary(text: str) -> tuple[Vary, ...]:
    """``"wind=0:30,staff_orders=2:6"`` as :class:`Vary` values (names are checked later, against
    the scenario)."""
    out = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, sep, values = item.partition("=")
        name = name.strip()
        if not sep or not name or not values.strip():
            raise FireplanError(f"--vary {item!r}: expected NAME=LOW:HIGH or NAME=VALUE, e.g. wind=0:30")
        low_text, _, high_text = values.partition(":")
        low = _number(low_text.strip(), item)
        high = _number(high_text.strip(), item) if high_text.strip() else low
        if high < low:
            raise FireplanError(f"--vary {item!r}: expected LOW <= HIGH, got {low} > {high}")
        if any(v.name == name for v in out):
            raise FireplanError(f"--vary: {name!r} is varied twice")
        out.append(Vary(name, low, high))
    return tuple(out)


def _seed_sequence(seed: int, index: int, stream: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([int(seed), int(index), stream])


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``seed``."""
    return int(_seed_sequence(seed, index, _GAME).generate_state(1)[0])


def player_seed(seed: int, index: int, colour: str) -> int:
    return int(_seed_sequence(seed, index, _BLUE if colour == "blue" else _RED).generate_state(1)[0])


@dataclass(frozen=True)
class StressRun:
    """Everything that decides a run's games (saved beside its results, to resume by).

    An AI searching ``iterations`` simulations a decision plays the same games on any machine;
    one given ``time_per_decision`` seconds searches as far as the machine gets in that time."""

    scenario: str
    games: int
    blue: str
    red: str
    vary: tuple[Vary, ...]
    seed: int
    time_per_decision: float
    iterations: int | None = None  # the AI's simulations a decision; None: ``time_per_decision`` seconds

    def describe(self) -> dict:
        return {"scenario": self.scenario, "games": self.games, "blue": self.blue, "red": self.red,
                "vary": [str(v) for v in self.vary], "seed": self.seed, "time_per_decision": self.time_per_decision,
                "iterations": self.iterations}

    def same_games(self, saved: dict) -> bool:
        """Whether ``saved`` (an earlier :meth:`describe`) plays the same games (their number aside)."""
        mine = self.describe()
        return all(saved.get(key) == mine[key] for key in mine if key != "games")


def game_parameters(run: StressRun, index: int) -> dict:
    """The varied parameters' values in game ``index``."""
    rng = np.random.default_rng(_seed_sequence(run.seed, index, _PARAMETERS))
    return {v.name: v.draw(rng) for v in run.vary}


# ------------------------------------------------------------------------ applying parameters
def _set_field(data: dict, name: str, value, source: str) -> None:
    if name in ("turns", "periods"):
        limits = data.setdefault("limits", {})
        if name not in limits:
            raise FireplanError(f"--vary {name}: {source} counts its length in {', '.join(limits) or 'nothing'}, not {name}")
        limits[name] = value
        return
    if name in ("wind", "wind_from", "rain"):
        weather = data.get("weather")
        if weather is None:
            raise FireplanError(f"--vary {name}: {source} has no weather (a {data.get('ruleset')} scenario)")
        if name == "rain":
            weather["rain"] = bool(value)
        else:
            weather.setdefault("wind", {})["knots" if name == "wind" else "from"] = value
        return
    side_id, _, field = name.rpartition(".")
    sides = [s for s in data["sides"] if not side_id or s["id"] == side_id]
    if field not in SIDE_FIELDS or not sides:
        raise FireplanError(f"--vary {name}: not a parameter of {source}")
    for side in sides:
        side[field] = value


def _is_setting(scenario: Scenario, name: str) -> bool:
    setting = scenario.ruleset.settings.get(name)
    return setting is not None and isinstance(setting.value, (bool, int, float))


def check_vary(scenario: Scenario, vary: tuple[Vary, ...]) -> None:
    """Refuse a parameter the scenario does not have, in one sentence naming the known ones."""
    for v in vary:
        field = v.name.rpartition(".")[2]
        if v.name in SCENARIO_FIELDS or field in SIDE_FIELDS or _is_setting(scenario, v.name):
            continue
        numeric = sorted(n for n in scenario.ruleset.settings if _is_setting(scenario, n))
        raise FireplanError(
            f"--vary {v.name}: unknown parameter; expected one of {', '.join(SCENARIO_FIELDS + SIDE_FIELDS)}, "
            f"SIDE.{'|'.join(SIDE_FIELDS)} or a setting of the {scenario.ruleset.name} ruleset ({', '.join(numeric[:6])}, ...)")


def scenario_for(path: str | Path, parameters: dict, *, text: str | None = None) -> Scenario:
    """The scenario at ``path`` with ``parameters`` applied; an impossible value is one clear error."""
    source = str(path)
    if not parameters:
        return load_scenario(path)
    text = text if text is not None else read_user_text(Path(path), what="scenario file", max_bytes=MAX_FILE_BYTES,
                                                         error=FireplanError)
    base = parse_scenario(text, source=source)
    data = copy.deepcopy(json.loads(text))
    settings = {}
    for name, value in parameters.items():
        if _is_setting(base, name):
            kind = type(base.ruleset.settings[name].value)
            settings[name] = bool(value) if kind is bool else kind(value)
        else:
            _set_field(data, name, value, source)
    values = ", ".join(f"{k}={v}" for k, v in parameters.items())
    try:
        scenario = parse_scenario(json.dumps(data), source=f"{source} with {values}")
    except FireplanError as error:
        raise FireplanError(f"--vary: {error}") from None
    if settings:
        rules = scenario.ruleset
        table = dict(rules.settings)
        for name, value in settings.items():
            table[name] = dataclasses.replace(table[name], value=value)
        scenario = dataclasses.replace(scenario, ruleset=dataclasses.replace(rules, settings=MappingProxyType(table)))
    return scenario
