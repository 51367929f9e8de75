"""The scenarios that ship in ``maps/``: listed by name (and ruleset), and a name turned into a file.

Experiments, the OpenSpiel adapter and the demo all take map names. This is the one place that
knows where the files are and that the schema beside them is not a map.

>>> map_names("met")
['met_burning_village', 'met_calm_bocage', 'met_le_mesnil', 'met_strong_ridge']
>>> map_path("chq_saint_aubin").name
'chq_saint_aubin.json'
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from engine.scenario import load_scenario

__all__ = ["MAPS_DIR", "map_names", "map_path"]

MAPS_DIR = Path(__file__).resolve().parent.parent / "maps"


def map_names(ruleset: str | None = None) -> list[str]:
    """Every map's name, sorted; only ``ruleset``'s maps when it is given ("chq" or "met")."""
    names = sorted(path.stem for path in MAPS_DIR.glob("*.json") if not path.name.endswith(".schema.json"))
    return [name for name in names if ruleset is None or _ruleset(name) == ruleset]


def map_path(name: str | Path) -> Path:
    """The scenario file of a map name (``"chq_saint_aubin"``), or ``name`` itself when it is a file.

    Raises ValueError naming the maps there are, so a typo is one clear message.
    """
    path = Path(name)
    if path.suffix == ".json" and path.is_file():
        return path
    candidate = MAPS_DIR / f"{name}.json"
    if candidate.is_file() and not candidate.name.endswith(".schema.json"):
        return candidate
    raise ValueError(f"no map {str(name)!r}: give a scenario file or one of {', '.join(map_names())}")


@lru_cache(maxsize=None)
def _ruleset(name: str) -> str:
    return load_scenario(MAPS_DIR / f"{name}.json").ruleset.name
