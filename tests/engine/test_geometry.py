"""Geometry of the table: bearings, rectangles and triangles, screens, templates, convex parts."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import MultiPolygon, Polygon, box

from engine.errors import FireplanError
from engine.geometry import (
    Density,
    FireTemplate,
    Screen,
    bearing_between,
    bearing_vector,
    convex_parts,
    coverage,
    footprint,
    rectangle,
    sample_points,
    triangle,
)

FULL, PARTIAL = Density.FULL, Density.PARTIAL


def ring(polygon: Polygon) -> list[tuple[float, float]]:
    return list(polygon.exterior.coords)[:-1]


# -- bearings ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bearing", "vector"),
    [
        (0, (0.0, 1.0)),
        (90, (1.0, 0.0)),
        (180, (0.0, -1.0)),
        (270, (-1.0, 0.0)),
        (360, (0.0, 1.0)),
        (-90, (-1.0, 0.0)),
    ],
)
def test_bearing_vector_is_clockwise_from_north_and_exact_on_quarter_turns(bearing, vector):
    assert bearing_vector(bearing) == vector


def test_bearing_vector_45_points_north_east():
    dx, dy = bearing_vector(45)
    assert dx == pytest.approx(math.sqrt(0.5)) and dy == pytest.approx(math.sqrt(0.5))


@pytest.mark.parametrize(
    ("target", "bearing"), [((0, 5), 0.0), ((5, 0), 90.0), ((0, -5), 180.0), ((-5, 0), 270.0), ((3, 3), 45.0)]
)
def test_bearing_between(target, bearing):
    assert bearing_between((0, 0), target) == pytest.approx(bearing)


@given(st.floats(-720, 720, allow_nan=False))
@settings(max_examples=50, deadline=None)
def test_bearing_between_inverts_bearing_vector(bearing):
    dx, dy = bearing_vector(bearing)
    result = bearing_between((1.0, 2.0), (1.0 + 10 * dx, 2.0 + 10 * dy))
    assert 0.0 <= result < 360.0
    assert math.isclose(math.cos(math.radians(result - bearing)), 1.0, abs_tol=1e-9)


def test_bearing_between_a_point_and_itself_is_an_error():
    with pytest.raises(FireplanError, match="itself"):
        bearing_between((1, 1), (1, 1))


@pytest.mark.parametrize("bad", [math.nan, math.inf, "north", None])
def test_bearing_vector_rejects_non_finite(bad):
    with pytest.raises(FireplanError):
        bearing_vector(bad)


# -- rectangles and triangles --------------------------------------------------------------------


def test_rectangle_bearing_0_depth_runs_north():
    r = rectangle((10, 20), width=12, depth=1)
    assert ring(r) == [(4.0, 19.5), (16.0, 19.5), (16.0, 20.5), (4.0, 20.5)]
    assert r.area == 12.0 and r.exterior.is_ccw


def test_rectangle_bearing_90_depth_runs_east():
    # a CHQ screen 1" wide by 12" long laid on bearing 90: its long axis runs north-south
    r = rectangle((0, 0), width=12, depth=1, bearing=90)
    assert ring(r) == [(-0.5, 6.0), (-0.5, -6.0), (0.5, -6.0), (0.5, 6.0)]
    assert r.area == 12.0 and r.exterior.is_ccw


def test_rectangle_bearing_45_exact_corners():
    h = math.sqrt(0.5)
    r = rectangle((0, 0), width=2, depth=4, bearing=45)  # depth along north-east
    expected = [(-2 * h - h, -2 * h + h), (-2 * h + h, -2 * h - h), (2 * h + h, 2 * h - h), (2 * h - h, 2 * h + h)]
    np.testing.assert_allclose(ring(r), expected, atol=1e-12)
    assert r.area == pytest.approx(8.0) and r.exterior.is_ccw


def test_met_2_beaten_zone_is_wide_across_and_deep_along_the_line_of_fire():
    zone = rectangle((0, 0), 200, 100, 90)  # firing east
    minx, miny, maxx, maxy = zone.bounds
    assert (maxx - minx, maxy - miny) == (100.0, 200.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(centre=(0, 0), width=0, depth=1), "width"),
        (dict(centre=(0, 0), width=1, depth=-1), "depth"),
        (dict(centre=(math.nan, 0), width=1, depth=1), "centre"),
        (dict(centre=(0, math.inf), width=1, depth=1), "centre"),
        (dict(centre=(0, 0), width=math.inf, depth=1), "width"),
        (dict(centre=(0, 0, 0), width=1, depth=1), "centre"),
        (dict(centre=(0, 0), width=1, depth=1, bearing=math.nan), "bearing"),
    ],
)
def test_rectangle_rejects_bad_input(kwargs, message):
    with pytest.raises(FireplanError, match=message):
        rectangle(**kwargs)


def test_met_14_burning_building_triangle_reaches_downwind():
    t = triangle((0, 0), bearing=90, length=20, base_width=10)  # wind blowing toward the east
    assert ring(t) == [(0.0, 0.0), (20.0, -5.0), (20.0, 5.0)]
    assert t.area == 100.0 and t.exterior.is_ccw


def test_triangle_rejects_bad_sizes():
    with pytest.raises(FireplanError, match="length"):
        triangle((0, 0), 0, 0, 1)
    with pytest.raises(FireplanError, match="base_width"):
        triangle((0, 0), 0, 1, -2)


def test_footprint_is_a_base_facing_its_bearing():
    assert footprint((1, 1), 2, 1, 90).equals(rectangle((1, 1), 2, 1, 90))


# -- sample points (CHQ-30) ----------------------------------------------------------------------


def test_chq_30_sample_points_of_a_rectangular_base_are_centre_corners_and_midpoints():
    points = sample_points(footprint((0, 0), width=2, depth=1))
    assert points.shape == (9, 2)
    assert tuple(points[0]) == (0.0, 0.0)
    expected = {(-1, -0.5), (0, -0.5), (1, -0.5), (1, 0), (1, 0.5), (0, 0.5), (-1, 0.5), (-1, 0)}
    assert {tuple(p) for p in points[1:]} == expected


def test_sample_points_are_deterministic_and_configurable():
    base = rectangle((3, 4), 2, 1, 30)
    np.testing.assert_array_equal(sample_points(base), sample_points(base))
    assert sample_points(base, per_edge=1).shape == (5, 2)
    assert sample_points(base, per_edge=3).shape == (13, 2)
    with pytest.raises(FireplanError, match="per_edge"):
        sample_points(base, per_edge=0)


def test_sample_points_centre_stays_inside_a_bent_base():
    bent = Polygon([(0, 0), (4, 0), (4, 4), (3, 4), (3, 1), (0, 1)])
    centre = sample_points(bent)[0]
    assert bent.covers(shapely.Point(centre))


# -- screens -------------------------------------------------------------------------------------


def test_met_4_screen_density_schedule_and_aging():
    screen = Screen(rectangle((0, 0), 200, 100), (PARTIAL, FULL, FULL, PARTIAL), source="battery 1")
    assert [screen.aged(i).density for i in range(5)] == [PARTIAL, FULL, FULL, PARTIAL, None]
    assert screen.remaining == 4 and screen.aged(3).remaining == 1
    assert not screen.aged(3).is_gone
    assert screen.aged(4).is_gone and screen.aged(4).remaining == 0
    assert screen.aged().aged().aged().aged() == screen.aged(4)
    assert screen.age == 0  # aging makes a new screen


def test_screen_accepts_density_words_and_is_hashable():
    screen = Screen(box(0, 0, 1, 1), ["full", "partial"])
    assert screen.densities == (FULL, PARTIAL)
    assert str(FULL) == "full" and Density("partial") is PARTIAL
    assert len({screen, Screen(box(0, 0, 1, 1), (FULL, PARTIAL))}) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((box(0, 0, 1, 1), ()), "at least one tick"),
        ((box(0, 0, 1, 1), ("thick",)), "partial' or 'full"),
        ((Polygon([(0, 0), (1, 1), (1, 0), (0, 1)]), (FULL,)), "not a valid polygon"),
        ((Polygon(), (FULL,)), "empty"),
        (("a square", (FULL,)), "shapely Polygon"),
        ((box(0, 0, 1, 1), (FULL,), -1), "age"),
    ],
)
def test_screen_validates(args, message):
    with pytest.raises(FireplanError, match=message):
        Screen(*args)


def test_screen_aged_rejects_negative_ticks():
    with pytest.raises(FireplanError, match="ticks"):
        Screen(box(0, 0, 1, 1), (FULL,)).aged(-1)


# -- fire templates ------------------------------------------------------------------------------


def test_fire_template_polygon_and_move():
    template = FireTemplate((10, 10), 6, 6, 0, "regular")
    assert template.polygon.equals(box(7, 7, 13, 13))
    moved = template.moved(2, -1)
    assert moved.centre == (12.0, 9.0) and moved.sheaf == "regular" and template.centre == (10.0, 10.0)
    assert moved.polygon.equals(box(9, 6, 15, 12))
    assert moved == FireTemplate((12, 9), 6, 6, 0, "regular")


def test_chq_7_fraction_of_a_base_under_a_template():
    template = FireTemplate((0, 0), 6, 6, 0, "regular")
    assert template.coverage(box(-1, -1, 1, 1)) == 1.0
    assert template.coverage(box(2, 0, 4, 1)) == 0.5  # half under: not "less than half"
    assert template.coverage(box(2.5, 0, 4.5, 1)) == 0.25
    assert template.coverage(box(10, 10, 11, 11)) == 0.0
    assert coverage(box(2, 0, 4, 1), template.polygon) == 0.5


def test_fire_template_validates():
    with pytest.raises(FireplanError, match="width"):
        FireTemplate((0, 0), 0, 6)
    with pytest.raises(FireplanError, match="centre"):
        FireTemplate((math.nan, 0), 6, 6)
    with pytest.raises(FireplanError, match="dx"):
        FireTemplate((0, 0), 6, 6).moved(math.inf, 0)


# -- convex parts --------------------------------------------------------------------------------


def assert_exact_convex_cover(polygon, parts, max_vertices=None):
    assert parts
    for part in parts:
        assert part.is_valid and part.exterior.is_ccw and part.area > 0
        assert part.equals(part.convex_hull)
        if max_vertices is not None:
            assert len(part.exterior.coords) - 1 <= max_vertices
    assert sum(p.area for p in parts) == pytest.approx(polygon.area, rel=1e-12)
    assert shapely.union_all(parts).symmetric_difference(polygon).area <= 1e-12 * polygon.area


def test_convex_parts_of_a_convex_polygon_is_itself():
    square = rectangle((0, 0), 3, 2, 30)
    (part,) = convex_parts(square)
    assert part.equals(square)


def test_convex_parts_of_a_wood_with_a_clearing():
    wood = Polygon([(0, 0), (8, 0), (8, 8), (4, 3), (0, 8)], [[(1, 1), (3, 1), (3, 2), (1, 2)]])
    parts = convex_parts(wood)
    assert_exact_convex_cover(wood, parts)
    assert len(parts) < len(convex_parts(wood, merge=False))  # merging triangles pays


def test_convex_parts_caps_vertices_and_accepts_multipolygons():
    circle = shapely.Point(0, 0).buffer(5, quad_segs=8)  # 32-gon
    parts = convex_parts(circle, max_vertices=6)
    assert_exact_convex_cover(circle, parts, max_vertices=6)
    both = MultiPolygon([box(0, 0, 1, 1), box(3, 0, 4, 1)])
    assert len(convex_parts(both)) == 2


def test_convex_parts_rejects_bad_input():
    with pytest.raises(FireplanError, match="valid"):
        convex_parts(Polygon([(0, 0), (1, 1), (1, 0), (0, 1)]))
    with pytest.raises(FireplanError, match="max_vertices"):
        convex_parts(box(0, 0, 1, 1), max_vertices=2)


@given(st.integers(0, 2**32 - 1), st.integers(4, 16), st.booleans())
@settings(max_examples=40, deadline=None)
def test_convex_parts_cover_random_woods_exactly(seed, n, clearing):
    rng = np.random.default_rng(seed)
    angles = np.sort(rng.uniform(0, 2 * np.pi, n))
    radii = rng.uniform(1, 5, n)
    shell = np.c_[radii * np.cos(angles), radii * np.sin(angles)]
    holes = [ring(box(-0.3, -0.3, 0.3, 0.2))] if clearing else []
    wood = Polygon(shell, holes)
    if not wood.is_valid:
        wood = Polygon(shell).buffer(0)
        if wood.is_empty or not isinstance(wood, Polygon):
            return
    assert_exact_convex_cover(wood, convex_parts(wood, max_vertices=8), max_vertices=8)
