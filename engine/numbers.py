"""Checking the numbers users and callers hand the engine, once, with messages that name them.

Shared by geometry, the rulesets and the planners so a NaN or a negative size
is refused in the same words wherever it enters.
"""

from __future__ import annotations

import math

from .errors import FireplanError

__all__ = ["as_point", "finite_number", "positive_number"]


def as_point(value, name: str) -> tuple[float, float]:
    """``value`` as a finite ``(x, y)`` tuple of floats, or FireplanError naming it."""
    try:
        x, y = value
        x, y = float(x), float(y)
    except (TypeError, ValueError):
        raise FireplanError(f"{name} must be a pair of numbers (x, y), got {value!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise FireplanError(f"{name} must have finite coordinates, got ({x}, {y})")
    return (x, y)


def finite_number(value, name: str) -> float:
    """``value`` as a finite float, or FireplanError naming it."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise FireplanError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise FireplanError(f"{name} must be finite, got {value!r}")
    return number


def positive_number(value, name: str) -> float:
    """``value`` as a finite float > 0, or FireplanError naming it."""
    number = finite_number(value, name)
    if number <= 0.0:
        raise FireplanError(f"{name} must be a finite number greater than 0, got {value!r}")
    return number
