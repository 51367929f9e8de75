"""A ruleset-neutral picture of the table as one side knows it: what renderers and narrators draw.

Each ruleset turns its own observation into a ``TableView`` in
``engine.rulesets.<name>.view.table_view(state, side)``; ``table_view`` here
finds that module by the scenario's ruleset name, so drawing code never asks
which ruleset it is looking at. With ``side=None`` the view is the umpire's:
everything, dummies marked.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from shapely.geometry.base import BaseGeometry

from engine.scenario import Scenario

__all__ = ["PieceView", "AreaView", "TableView", "table_view"]


@dataclass(frozen=True, slots=True)
class PieceView:
    """A unit or a blind on the table. ``dummy`` is None when the viewer cannot know."""

    id: str
    side: str
    kind: str  # "unit" or "blind"
    position: tuple[float, float]
    label: str
    base: BaseGeometry | None = None
    facing: float = 0.0
    status: str = ""
    dummy: bool | None = None


@dataclass(frozen=True, slots=True)
class AreaView:
    """Something with an outline on the table: a smoke screen, a fire template, a burning area."""

    kind: str  # "screen", "template" or "fire"
    polygon: BaseGeometry
    density: str | None = None  # "partial" or "full" for screens
    label: str = ""


@dataclass(frozen=True, slots=True)
class TableView:
    scenario: Scenario
    side: str | None
    caption: str
    pieces: tuple[PieceView, ...]
    areas: tuple[AreaView, ...]
    holders: tuple[tuple[str, str | None], ...] = ()  # objective id -> side holding it


def table_view(state, side: str | None = None) -> TableView:
    """The table of ``state`` as ``side`` knows it (None: the umpire's view)."""
    scenario = state_scenario(state)
    module = importlib.import_module(f"engine.rulesets.{scenario.ruleset.name}.view")
    return module.table_view(state, side)


def state_scenario(state) -> Scenario:
    """The scenario a game state was made from (each ruleset's state exposes ``scenario``)."""
    return state.scenario
