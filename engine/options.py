"""What a ruleset offers the planners beyond legal actions: smoke options and sight lines with threat.

The planners never build screens or judge fire themselves: a ruleset lists the
screens its rules allow (battery smoke, dischargers, mortars, grenades) as
``SmokeOption`` values, each with the ``actions`` that lay it and the screens it
will make tick by tick, and a state says how dangerous one unit's fire is to
another (``GameState.threat``), exactly, from the ruleset's own dice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable

from engine.geometry import Screen

__all__ = ["SmokeOption"]


@dataclass(frozen=True, slots=True)
class SmokeOption:
    """One way to lay smoke now.

    Attributes
    ----------
    actions:
        The actions that lay it, in order (e.g. call a smoke mission).
    screens:
        ``screens[t]`` are the screens it makes ``t`` ticks from now (a tick is a
        pulse/phase in CHQ, a period in MET); empty for ticks after it is gone.
        Deviation is left out here: planners sample it from ``deviation``.
    resources:
        What it uses up, as ``{name: amount}``: a battery id, ``"staff_orders"``,
        a single-use item such as ``"grenades:gb-section-1"``.
    deviation:
        Exact deviation outcomes ``[((dx, dy), probability)]`` of the screen
        centre; ``((0, 0), 1)`` when it cannot deviate.
    label:
        A short description for plans and narration.
    """

    actions: tuple[Hashable, ...]
    screens: tuple[tuple[Screen, ...], ...]
    resources: tuple[tuple[str, int], ...] = ()
    deviation: tuple[tuple[tuple[float, float], float], ...] = (((0.0, 0.0), 1.0),)
    label: str = ""
    source: str = field(default="", compare=False)
