"""Access to the MET data file (``rules.toml``): the ruleset, densities and exact numbers.

Every module of the MET package reads its values through :func:`met_rules`, so a
house value changes in the data file, not in code.

Examples
--------
>>> met_rules().setting("calm_wind_max")
5
>>> schedule(["partial", "full"])
(<Density.PARTIAL: 'partial'>, <Density.FULL: 'full'>)
>>> exact(0.2)
Fraction(1, 5)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable, Mapping

from engine.errors import FireplanError
from engine.geometry import Density
from engine.rulesets import RulesetData, load_ruleset

__all__ = ["met_rules", "schedule", "exact", "card_value", "FACES", "DIE", "EPS"]

#: MET rolls ten-sided dice.
DIE = 10

#: Tolerance of lengths in metres: a move, a range or a table edge this close counts as reached.
EPS = 1e-6

#: Faces of an element, named clockwise from its front, with their bearing offset from its facing.
FACES = {"front": 0.0, "right": 90.0, "rear": 180.0, "left": 270.0}


def met_rules(rules: RulesetData | None = None) -> RulesetData:
    """The MET ruleset data (``rules`` itself when given, for tests with other settings)."""
    return load_ruleset("met") if rules is None else rules


def schedule(values: Iterable[str]) -> tuple[Density, ...]:
    """A density schedule from the data file's words ``"partial"`` / ``"full"``."""
    try:
        return tuple(Density(value) for value in values)
    except ValueError:
        raise FireplanError(f"a smoke schedule holds 'partial' or 'full', got {list(values)!r}") from None


def exact(value: Any) -> Fraction:
    """A data-file number as an exact fraction: 0.2 is 1/5, not the binary float near it."""
    if isinstance(value, Fraction):
        return value
    return Fraction(str(value))


def card_value(card: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """A card field, or ``default`` when the card does not have it."""
    return card.get(key, default)
