"""The scenario file format as pydantic models: the single source of the JSON Schema.

These models check shape and types only (what a JSON Schema can say). What
needs the ruleset or geometry (cards, table bounds, polygons, blinds) is checked
by ``engine.scenario.checks`` after parsing.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

__all__ = [
    "FORMAT_VERSION",
    "Point",
    "TableModel",
    "SideModel",
    "UnitModel",
    "BlindModel",
    "TerrainProperties",
    "PolygonGeometry",
    "LineStringGeometry",
    "FeatureModel",
    "FeatureCollectionModel",
    "ObjectiveModel",
    "LimitsModel",
    "WindModel",
    "WeatherModel",
    "ScenarioModel",
]

FORMAT_VERSION = "fireplan-scenario/1"

#: Largest coordinate or size accepted anywhere: bigger numbers are typos, and they would break geometry.
MAX_LENGTH = 1.0e6

Id = Annotated[
    str,
    StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"),
    Field(description="An identifier: letters, digits, '_', '.', '-'; at most 64 characters."),
]
Coordinate = Annotated[float, Field(ge=-MAX_LENGTH, le=MAX_LENGTH, allow_inf_nan=False)]
Length = Annotated[float, Field(gt=0, le=MAX_LENGTH, allow_inf_nan=False)]
Bearing = Annotated[
    float,
    Field(ge=0, lt=360, allow_inf_nan=False, description="Degrees clockwise from north (0 = +y, 90 = +x)."),
]
Dice = Annotated[int, Field(ge=0, le=100, description="A number of dice (0 to 100).")]
Point = Annotated[tuple[Coordinate, Coordinate], Field(description="[x, y]: x east, y north, in table units.")]
Ring = Annotated[list[Point], Field(min_length=4, max_length=10_000)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class TableModel(_Model):
    """The playing area: x from 0 to width (east), y from 0 to depth (north)."""

    width: Length
    depth: Length
    units: Literal["in", "m"] = Field(description="Units of every length in the file: inches (CHQ) or metres (MET).")


class SideModel(_Model):
    """One of the two sides, with its dice and Staff Orders."""

    id: Id
    name: str = Field(max_length=200)
    nation: str = Field(max_length=100, description="Nation as the ruleset names it, e.g. 'USA', 'Germany'.")
    edge: Literal["north", "south", "east", "west"] = Field(description="The side's own table edge.")
    attacker: bool = False
    command_dice: Dice = 0
    comms_dice: Dice | None = Field(None, description="Artillery Response dice; the ruleset's default when absent.")
    supply_dice: Dice | None = Field(None, description="Supply dice; the nation's value (CHQ-22) when absent.")
    staff_orders: Dice = Field(0, description="Staff Orders at the start (CHQ-15).")
    morale_points: Dice | None = Field(None, description="Army Morale Points; CHQ-29's formula when absent.")


class UnitModel(_Model):
    """A unit (CHQ) or element (MET) from the ruleset's cards."""

    id: Id
    card: str = Field(max_length=200, description="A card name from the ruleset's data file.")
    side: Id
    position: Point | None = Field(None, description="Centre of the base; omitted for off-table batteries.")
    facing: Bearing = 0.0
    blind: Id | None = Field(None, description="The blind that hides this unit at the start, if any.")


class BlindModel(_Model):
    """A blind marker: it hides one unit or is a dummy, and only its owner knows which (CHQ-28)."""

    id: Id
    owner: Id
    position: Point
    dummy: bool = False


class TerrainProperties(_Model):
    kind: Literal["woods", "buildings", "hill", "road", "river", "hedge", "field"]
    blocks_sight: bool = Field(description="Whether the feature blocks a line of sight that crosses it.")
    cover: Literal["none", "light", "medium", "heavy"] = "none"
    height: Annotated[float, Field(ge=0, le=1000, allow_inf_nan=False)] = Field(
        0.0, description="Level of a hill crest: a higher hill sees over a lower one (CHQ-30)."
    )
    difficult: bool = Field(False, description="Difficult going: halves a move (CHQ-16).")
    burning: bool = Field(False, description="Set burning at the start (MET-20).")
    name: str | None = Field(None, max_length=200)


class PolygonGeometry(_Model):
    type: Literal["Polygon"]
    coordinates: Annotated[
        list[Ring],
        Field(min_length=1, max_length=1000, description="GeoJSON rings: the exterior first, then holes; each closed."),
    ]


class LineStringGeometry(_Model):
    type: Literal["LineString"]
    coordinates: Annotated[list[Point], Field(min_length=2, max_length=10_000)]


class FeatureModel(_Model):
    type: Literal["Feature"]
    id: Id | None = None
    properties: TerrainProperties
    geometry: PolygonGeometry | LineStringGeometry = Field(discriminator="type")
    width: Length | None = Field(None, description="Width of a LineString feature (road, river, hedge).")


class FeatureCollectionModel(_Model):
    """Terrain as a GeoJSON FeatureCollection in table coordinates."""

    type: Literal["FeatureCollection"]
    features: Annotated[list[FeatureModel], Field(max_length=5000)]


class ObjectiveModel(_Model):
    id: Id
    position: Point
    radius: Length = Field(description="Distance within which a unit is on the objective.")
    points: Annotated[int, Field(ge=0, le=1000)]
    name: str | None = Field(None, max_length=200)


class LimitsModel(_Model):
    """How long the game lasts: turns (CHQ) or periods (MET)."""

    turns: Annotated[int, Field(ge=1, le=100)] | None = None
    periods: Annotated[int, Field(ge=1, le=100)] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> "LimitsModel":
        if (self.turns is None) == (self.periods is None):
            raise ValueError("give exactly one of 'turns' and 'periods'")
        return self


class WindModel(_Model):
    from_bearing: Bearing = Field(alias="from", description="Where the wind blows from, degrees clockwise from north.")
    knots: Annotated[float, Field(ge=0, le=200, allow_inf_nan=False)]


class WeatherModel(_Model):
    wind: WindModel
    rain: bool = False


class ScenarioModel(_Model):
    """A fireplan scenario file."""

    format: Literal["fireplan-scenario/1"] = Field(description="The format version; always 'fireplan-scenario/1'.")
    name: str = Field(min_length=1, max_length=200)
    description: str = Field("", max_length=10_000)
    ruleset: Literal["chq", "met"]
    table: TableModel
    sides: Annotated[list[SideModel], Field(min_length=2, max_length=2)]
    units: Annotated[list[UnitModel], Field(min_length=1, max_length=2000)]
    blinds: Annotated[list[BlindModel], Field(max_length=2000)] = []
    terrain: FeatureCollectionModel = FeatureCollectionModel(type="FeatureCollection", features=[])
    objectives: Annotated[list[ObjectiveModel], Field(max_length=100)] = []
    limits: LimitsModel
    mission: str | None = Field(None, max_length=100, description="Mission type, e.g. 'attack-defend' (CHQ-26).")
    weather: WeatherModel | None = Field(None, description="Wind and rain, for rulesets that use them (MET).")
