"""Direct-fire smoke (MET-13): a gun fires smoke at or beside an acquired enemy.

The hit check is a HEAT check (MET-18: FN 7 at up to 200 m, 5 to 500 m, 3 to 1000 m,
partial smoke on the line -2). A hit lands on the aim point; an apparent miss deviates
by half the artillery deviation with +2 on the roll (MET-2: 2d10 + 2 of 11 or more is
on target, else ``(11 - roll) x 10 m``). The screen is 75 m across the line of fire by
50 m along it; its life is the setting ``direct_smoke_life``.

Examples
--------
>>> direct_smoke_polygon((0, 0), (0, 300)).bounds
(-37.5, 275.0, 37.5, 325.0)
>>> landing = direct_smoke_landing(300)  # HEAT FN 5: 1/2 + 1/2 * 18/25
>>> landing[ON_TARGET]
Fraction(43, 50)
>>> direct_smoke_landing(1200) is None
True
"""

from __future__ import annotations

from fractions import Fraction

from shapely.geometry import Polygon

from engine.dice import Distribution
from engine.geometry import bearing_between, rectangle
from engine.rulesets import RulesetData

from .data import exact, met_rules
from .deviation import ON_TARGET, Deviation, deviation_distribution
from .resolution import heat_fn, hit_probability
from .smoke import WindBand, smoke_schedules, wind_band

__all__ = [
    "ON_TARGET",
    "direct_smoke_polygon",
    "direct_smoke_fn",
    "direct_smoke_deviation",
    "direct_smoke_landing",
    "direct_smoke_densities",
]


def direct_smoke_polygon(firer, aim, rules: RulesetData | None = None, facing: float = 0.0) -> Polygon:
    """The 75 m x 50 m screen centred on ``aim``: wide across the line from ``firer``.

    A round that lands on the firer itself (it moved onto its aim) has no line
    of fire; the screen then lies across the firer's ``facing``.
    """
    width, depth = met_rules(rules).setting("direct_smoke_size")
    same_point = tuple(map(float, firer)) == tuple(map(float, aim))
    return rectangle(aim, width, depth, facing if same_point else bearing_between(firer, aim))


def direct_smoke_fn(range_m: float, partial_smoke: bool = False, rules: RulesetData | None = None) -> int | None:
    """The HEAT hit-check FN at ``range_m``, with the partial smoke modifier; None when out of range."""
    rules = met_rules(rules)
    fn = heat_fn(range_m, rules)
    if fn is None:
        return None
    return fn + (int(rules.setting("partial_smoke_fn_modifier")) if partial_smoke else 0)


def direct_smoke_deviation(rules: RulesetData | None = None) -> Distribution[Deviation]:
    """Deviation of an apparent miss: half the artillery distance, +2 on the roll."""
    rules = met_rules(rules)
    return deviation_distribution(
        modifier=int(rules.setting("direct_smoke_deviation_modifier")),
        factor=exact(rules.setting("direct_smoke_deviation_factor")),
        rules=rules,
    )


def direct_smoke_landing(
    range_m: float, partial_smoke: bool = False, rules: RulesetData | None = None
) -> Distribution[Deviation] | None:
    """Where the smoke lands relative to the aim point: the hit check and the deviation composed.

    The game plays these as two chance nodes (the HEAT check, then the deviation of a
    miss); this is their exact composition, for planners. None when out of range.
    """
    fn = direct_smoke_fn(range_m, partial_smoke, rules)
    if fn is None:
        return None
    p_hit = hit_probability(fn)
    outcomes: dict[Deviation, Fraction] = {ON_TARGET: p_hit}
    for deviation, p in direct_smoke_deviation(rules).items():
        outcomes[deviation] = outcomes.get(deviation, Fraction(0)) + (1 - p_hit) * p
    return Distribution(outcomes)


def direct_smoke_densities(wind_knots: float, rain: bool, smoke_type: str = "BE", rules: RulesetData | None = None):
    """The screen's schedule, or None for ``"until_firer_moves"`` (full until the firer's next movement).

    With ``direct_smoke_life = "artillery"`` it is the wind schedule of the screen's
    downwind part (no extension); in winds over 30 kts there is no screen (empty tuple).
    """
    rules = met_rules(rules)
    if rules.setting("direct_smoke_life") == "until_firer_moves":
        return None
    band = wind_band(wind_knots, rules)
    if band is WindBand.TOO_STRONG:
        return ()
    schedules = smoke_schedules(band, rain, smoke_type, rules)
    return schedules["zone"]

