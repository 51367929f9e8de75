"""The rulesets in scope and their data files.

A ruleset's facts (unit cards, settings, tables) live in ``<name>/rules.toml``
beside its code, each value marked with where it comes from (seed, public,
house or reading), so a house value changes without touching code.

Examples
--------
>>> chq = load_ruleset("chq")
>>> chq.setting("smoke_tn_modifier")
2
>>> chq.settings["high_suppression_on_miss"].source
'reading'
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Any, Mapping

from engine.errors import FireplanError

__all__ = ["RULESET_NAMES", "Setting", "RulesetData", "load_ruleset"]

RULESET_NAMES = ("chq", "met")


@dataclass(frozen=True, slots=True)
class Setting:
    """One rules value with its provenance: the rule it serves and why it has this value."""

    name: str
    value: Any
    source: str
    rule: str
    note: str


@dataclass(frozen=True, slots=True)
class RulesetData:
    """The fixed facts of one ruleset, read from its data file."""

    name: str
    title: str
    length_unit: str
    uses_weather: bool
    uses_command_dice: bool
    time_unit: str
    settings: Mapping[str, Setting]
    cards: Mapping[str, Mapping[str, Any]]
    tables: Mapping[str, Mapping[str, Any]]

    def setting(self, name: str) -> Any:
        """The value of setting ``name``; an unknown name is a bug, so it raises KeyError."""
        return self.settings[name].value

    def card(self, name: str) -> Mapping[str, Any]:
        try:
            return self.cards[name]
        except KeyError:
            raise FireplanError(f"{self.title} has no unit card named {name!r}") from None

    def table(self, name: str) -> Mapping[str, Any]:
        return self.tables[name]


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({key: _frozen(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    return value


@lru_cache(maxsize=None)
def load_ruleset(name: str) -> RulesetData:
    """Read and freeze ruleset ``name`` (one of ``RULESET_NAMES``)."""
    if name not in RULESET_NAMES:
        raise FireplanError(f"unknown ruleset {name!r}: expected one of {', '.join(RULESET_NAMES)}")
    text = resources.files(f"engine.rulesets.{name}").joinpath("rules.toml").read_text()
    data = tomllib.loads(text)
    header = data.pop("ruleset")
    settings = {
        key: Setting(key, _frozen(entry["value"]), entry["source"], entry["rule"], entry["note"])
        for key, entry in data.pop("settings").items()
    }
    cards = {key: _frozen({"name": key, **entry}) for key, entry in data.pop("cards").items()}
    return RulesetData(
        name=header["name"],
        title=header["title"],
        length_unit=header["length_unit"],
        uses_weather=header["uses_weather"],
        uses_command_dice=header["uses_command_dice"],
        time_unit=header["time_unit"],
        settings=MappingProxyType(settings),
        cards=MappingProxyType(cards),
        tables=MappingProxyType({key: _frozen(table) for key, table in data.items()}),
    )
