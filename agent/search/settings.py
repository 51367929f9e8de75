"""Search settings from words: ``FIELD=VALUE`` changes to the AI's settings, as experiments take them.

A change is tried without editing code: ``anchor_z=2`` sets a :class:`~agent.search.mcts.SearchConfig`
field, ``weights.fire=2`` a field of the leaves' :class:`~agent.search.evaluation.Weights` and
``greedy_weights.volley=1`` one of the weights its own greedy plans rank orders with. Each value
is read as its default's type, so a typo is named before hours of games are played.

Examples
--------
>>> search_config(search_options(["anchor_z=2", "weights.fire=3"])).weights.fire
3.0
>>> changed_fields(Weights(), ["risk=2"], option="--candidate").risk
2.0
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Iterable, Mapping

from .evaluation import Weights
from .mcts import SearchConfig

__all__ = ["WEIGHT_GROUPS", "changed_fields", "parse_fields", "search_config", "search_options"]

#: SearchConfig's fields that are evaluation weights, set one field at a time (``weights.fire=2``).
WEIGHT_GROUPS = ("weights", "greedy_weights")

_TRUE, _FALSE = ("true", "yes", "1"), ("false", "no", "0")


def parse_fields(words: Iterable[str], defaults: Mapping[str, object], option: str) -> tuple[tuple[str, object], ...]:
    """``FIELD=VALUE`` words as (field, value) pairs, each value read as the type of the field's
    default in ``defaults`` (a tuple as comma-separated values, ``none`` for an optional name);
    ValueError names the first word that is wrong, as ``option`` gave it."""
    out = []
    for text in words:
        name, sep, value = text.partition("=")
        if not sep or name not in defaults:
            raise ValueError(f"{option} {text!r}: expected FIELD=VALUE with FIELD one of {', '.join(defaults)}")
        default = defaults[name]
        try:
            out.append((name, _read(value, default)))
        except ValueError:
            raise ValueError(f"{option} {text!r}: {name} takes a {type(default).__name__} like {default!r}") from None
    return tuple(out)


def _read(value: str, default: object) -> object:
    if isinstance(default, bool):
        if value.lower() not in _TRUE + _FALSE:
            raise ValueError(value)
        return value.lower() in _TRUE
    if isinstance(default, tuple):
        kind = type(default[0]) if default else str
        return tuple(kind(v) for v in value.split(",") if v)
    if default is None or isinstance(default, str):
        return None if value.lower() == "none" else value
    return type(default)(value)


def changed_fields(weights: Weights, words: Iterable[str], option: str = "--weights") -> Weights:
    """``weights`` with the ``FIELD=VALUE`` words' changes."""
    defaults = {f.name: getattr(weights, f.name) for f in fields(Weights)}
    return replace(weights, **dict(parse_fields(words, defaults, option)))


def search_options(words: Iterable[str], option: str = "--search") -> tuple[tuple[str, object], ...]:
    """``FIELD=VALUE`` words as SearchConfig fields (``weights.FIELD`` a field of the leaves'
    weights, ``greedy_weights.FIELD`` of its greedy plans'); ValueError names the first that is wrong."""
    config = SearchConfig()
    defaults = {f.name: getattr(config, f.name) for f in fields(SearchConfig)}
    for group in WEIGHT_GROUPS:
        defaults.pop(group)
        defaults |= {f"{group}.{f.name}": getattr(getattr(config, group), f.name) for f in fields(Weights)}
    return parse_fields(words, defaults, option)


def search_config(options: Iterable[tuple[str, object]] = ()) -> SearchConfig:
    """The AI's SearchConfig with the :func:`search_options` changed from the defaults."""
    changes = dict(options)
    for group in WEIGHT_GROUPS:
        weights = {name.removeprefix(f"{group}."): changes.pop(name) for name in list(changes) if name.startswith(f"{group}.")}
        changes[group] = replace(getattr(SearchConfig(), group), **weights)
    return SearchConfig(**changes)

