"""Line of sight in bulk: the sweep and the dense test must agree exactly with shapely, pair by pair."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box

import engine.sight as sight_module
from engine.errors import FireplanError
from engine.geometry import Density, Screen, footprint, rectangle, sample_points, triangle
from engine.sight import SightStatus, crossings, footprint_sight, inside, sight_matrix

FULL, PARTIAL = Density.FULL, Density.PARTIAL
CLEAR, OBSCURED, BLOCKED = SightStatus.CLEAR, SightStatus.PARTIAL, SightStatus.BLOCKED


# -- references ----------------------------------------------------------------------------------


def loop_reference(observers, targets, polygons) -> set[tuple[int, int, int]]:
    """The obvious answer: one shapely ``intersects`` per (observer, target), over all polygons."""
    geoms = np.array(polygons, dtype=object)
    rows = set()
    for o, a in enumerate(np.asarray(observers, float)):
        for t, b in enumerate(np.asarray(targets, float)):
            line = Point(a) if (a == b).all() else LineString([a, b])
            rows.update((o, t, int(k)) for k in np.flatnonzero(shapely.intersects(line, geoms)))
    return rows


def rows(found) -> set[tuple[int, int, int]]:
    result = set(zip(found.observer.tolist(), found.target.tolist(), found.polygon.tolist()))
    assert len(result) == len(found), "duplicate rows"
    return result


def assert_all_methods_agree(observers, targets, polygons):
    expected = loop_reference(observers, targets, polygons)
    for method in sight_module.METHODS:
        found = rows(crossings(observers, targets, polygons, method=method))
        assert found == expected, f"{method}: missing {sorted(expected - found)[:5]}, extra {sorted(found - expected)[:5]}"


# -- random instances ------------------------------------------------------------------------------


def random_wood(rng, centre, radius) -> Polygon:
    n = int(rng.integers(5, 12))
    angles = np.sort(rng.uniform(0, 2 * np.pi, n))
    radii = radius * rng.uniform(0.4, 1.0, n)
    shell = np.c_[centre[0] + radii * np.cos(angles), centre[1] + radii * np.sin(angles)]
    x, y, r = centre[0], centre[1], 0.1 * radius
    clearing = list(box(x - r, y - r, x + r, y).exterior.coords)
    wood = Polygon(shell, [clearing] if rng.random() < 0.5 else [])
    return wood if wood.is_valid else Polygon(shell).convex_hull


def float_instance(seed: int, n_obs: int, n_tgt: int, n_poly: int):
    """Generic floats on a 72 x 48 table, plus the awkward cases a game produces: observers
    inside polygons, at polygon vertices, a hair from a vertex, and on top of targets."""
    rng = np.random.default_rng(seed)

    def spot():
        return rng.uniform((0, 0), (72, 48))

    polygons = []
    for i in range(n_poly):
        kind = i % 4
        if kind == 0:
            polygons.append(rectangle(spot(), 12, 1, rng.uniform(0, 360)))
        elif kind == 1:
            polygons.append(rectangle(spot(), rng.uniform(0.5, 6), rng.uniform(0.5, 6), rng.uniform(0, 360)))
        elif kind == 2:
            polygons.append(triangle(spot(), rng.uniform(0, 360), rng.uniform(1, 8), rng.uniform(1, 6)))
        else:
            polygons.append(random_wood(rng, spot(), rng.uniform(2, 7)))
    observers = rng.uniform((0, 0), (72, 48), (n_obs, 2))
    targets = rng.uniform((0, 0), (72, 48), (n_tgt, 2))
    for i in range(min(n_obs, n_poly) // 3):
        polygon = polygons[int(rng.integers(n_poly))]
        vertex = np.asarray(polygon.exterior.coords[int(rng.integers(3))])
        observers[3 * i] = shapely.get_coordinates(polygon.point_on_surface())[0]  # inside
        observers[3 * i + 1] = vertex  # exactly on a corner
        observers[3 * i + 2] = vertex + rng.normal(0, 1e-9, 2)  # too near for angles
    for i in range(n_tgt // 4):
        polygon = polygons[int(rng.integers(n_poly))]
        targets[-1 - i] = polygon.exterior.coords[int(rng.integers(3))]  # lines ending on a corner
    for i in range(min(n_obs, n_tgt) // 5):
        targets[i] = observers[i]  # degenerate sight lines
        targets[n_tgt // 2 + i] = observers[n_obs // 2 + i] + rng.normal(0, 1e-8, 2)
    return observers, targets, polygons


def lattice_instance(seed: int, n_obs: int, n_tgt: int, n_poly: int):
    """Everything on a small integer grid: collinear lines, lines along edges, lines through
    corners and grazing them. Coordinates are small integers, so floating point is exact and the
    sweep must match shapely's robust predicates to the last case."""
    rng = np.random.default_rng(seed)
    polygons = []
    for i in range(n_poly):
        x, y = rng.integers(0, 8, 2)
        w, h = rng.integers(1, 4, 2)
        if i % 3 == 0:
            polygons.append(box(x, y, x + w, y + h))
        elif i % 3 == 1:
            corners = rng.integers(0, 10, (3, 2))
            tri = Polygon(corners)
            polygons.append(tri if tri.is_valid and tri.area > 0 else box(x, y, x + 1, y + 1))
        else:  # an L, a U or a ring of boxes: non-convex, sometimes with a hole
            cells = [box(x + i, y + j, x + i + 1, y + j + 1) for i in range(3) for j in range(3) if rng.random() < 0.7]
            shape = shapely.union_all(cells or [box(x, y, x + 1, y + 1)])
            valid = isinstance(shape, (Polygon, MultiPolygon)) and shape.is_valid
            polygons.append(shape if valid else box(x, y, x + 2, y + 1))
    observers = rng.integers(-1, 11, (n_obs, 2)).astype(float)
    targets = rng.integers(-1, 11, (n_tgt, 2)).astype(float)
    return observers, targets, polygons


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_sweep_matches_shapely_on_random_tables(seed):
    assert_all_methods_agree(*float_instance(seed, 24, 30, 20))


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_sweep_matches_shapely_on_lattice_tables(seed):
    assert_all_methods_agree(*lattice_instance(seed, 20, 20, 12))


@pytest.mark.parametrize("seed", range(3))
def test_sweep_matches_strtree_on_larger_tables(seed):
    observers, targets, polygons = float_instance(100 + seed, 120, 150, 80)
    assert rows(crossings(observers, targets, polygons)) == rows(
        crossings(observers, targets, polygons, method="strtree")
    )


@pytest.mark.parametrize(("n_obs", "n_tgt", "n_poly", "chosen"), [(4, 36, 9, "dense"), (30, 200, 12, "sweep")])
def test_auto_takes_the_dense_test_on_small_questions_and_the_sweep_on_large(monkeypatch, n_obs, n_tgt, n_poly, chosen):
    observers, targets, polygons = float_instance(5, n_obs, n_tgt, n_poly)
    called = []
    for name in ("_crossings_dense", "_crossings_sweep"):
        real = getattr(sight_module, name)
        monkeypatch.setattr(sight_module, name, lambda *a, _real=real, _name=name: called.append(_name) or _real(*a))
    found = rows(crossings(observers, targets, polygons))
    assert called == [f"_crossings_{chosen}"]
    assert found == rows(crossings(observers, targets, polygons, method="strtree"))


def test_sweep_is_the_same_in_small_chunks(monkeypatch):
    observers, targets, polygons = float_instance(7, 40, 30, 20)
    whole = rows(crossings(observers, targets, polygons, method="sweep"))
    monkeypatch.setattr(sight_module, "_CHUNK_LINES", 64)
    assert rows(crossings(observers, targets, polygons, method="sweep")) == whole


def test_sweep_when_observers_are_the_targets():
    observers, _, polygons = float_instance(11, 30, 1, 15)
    assert_all_methods_agree(observers, observers, polygons)


# -- hand-built cases ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "meets"),
    [
        ((0, 2), (2, 0), True),  # grazes the corner (1, 1) of the unit square
        ((0, 2.5), (2.5, 0), False),  # passes beside it
        ((-1, 0), (3, 0), True),  # runs along the bottom edge
        ((-1, -1e-12), (3, -1e-12), False),  # just below it
        ((0.5, -1), (0.5, 0), True),  # ends on the edge
        ((0.5, 0.5), (0.5, 0.5), True),  # a point inside
        ((1, 1), (1, 1), True),  # a point on the corner
        ((2, 2), (2, 2), False),  # a point outside
        ((0.2, 0.2), (5, 5), True),  # starts inside
        ((-1, 3), (3, -1), True),  # a diagonal through two corners' chord
        ((2, -1), (2, 5), False),
    ],
)
def test_touching_counts_as_crossing(a, b, meets):
    square = box(0, 0, 1, 1)
    found = crossings([a], [b], [square])
    assert (len(found) == 1) is meets
    assert len(crossings([a], [b], [square], method="strtree")) == len(found)


def test_screen_between_two_points_is_crossed_and_one_beside_is_not():
    between = rectangle((5, 0), width=12, depth=1, bearing=90)  # long axis north-south at x = 5
    beside = rectangle((5, 20), width=12, depth=1, bearing=90)
    found = crossings([(0, 0)], [(10, 0)], [between, beside])
    assert rows(found) == {(0, 0, 0)}
    assert found.count_matrix().tolist() == [[1]]


def test_crossings_helpers_count_by_polygon():
    walls = [box(4, -10, 5, 10), box(6, -10, 7, 0)]  # the second only blocks the south
    found = crossings([(0, 5), (0, -5)], [(10, 5), (10, -5), (1, 0)], walls)
    assert found.shape == (2, 3) and (found.n_observers, found.n_targets, found.n_polygons) == (2, 3, 2)
    assert found.count_matrix().tolist() == [[1, 2, 0], [1, 2, 0]]
    assert found.count_matrix(np.array([False, True])).tolist() == [[0, 1, 0], [0, 1, 0]]
    assert found.crossed_matrix([1]).tolist() == [[False, True, False], [False, True, False]]
    assert found.line.max() < 6
    assert [x.tolist() for x in found.by_polygon()] == [[0, 1, 3, 4], [1, 4]]
    ordered = found.sorted()
    assert list(zip(ordered.observer, ordered.target, ordered.polygon)) == sorted(rows(found))
    assert not found.observer.flags.writeable
    with pytest.raises(FireplanError, match="one entry per polygon"):
        found.count_matrix(np.array([True]))
    with pytest.raises(FireplanError, match="polygon indices"):
        found.count_matrix([5])


def test_a_polygon_crossed_through_several_parts_is_one_crossing():
    u_shape = Polygon([(0, 0), (3, 0), (3, 3), (2, 3), (2, 1), (1, 1), (1, 3), (0, 3)])
    found = crossings([(-1, 2), (-1, 0.5)], [(4, 2), (4, 0.5)], [u_shape])
    assert rows(found) == {(0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 0)}


def test_empty_inputs():
    assert len(crossings([], [(1, 1)], [box(0, 0, 1, 1)])) == 0
    assert len(crossings([(0, 0)], [(1, 1)], [])) == 0
    found = crossings(np.zeros((0, 2)), np.zeros((3, 2)), [box(0, 0, 1, 1)])
    assert found.count_matrix().shape == (0, 3)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (([(0, np.nan)], [(1, 1)], [box(0, 0, 1, 1)]), {}, "observers has a NaN"),
        (([(0, 0)], [(1, np.inf)], [box(0, 0, 1, 1)]), {}, "targets has a NaN"),
        (([(0, 0, 0)], [(1, 1)], [box(0, 0, 1, 1)]), {}, "shape"),
        (([(0, 0)], [(1, 1)], [Polygon([(0, 0), (1, 1), (1, 0), (0, 1)])]), {}, r"polygons\[0\] is not a valid"),
        (([(0, 0)], [(1, 1)], [Point(0, 0)]), {}, "shapely Polygon"),
        (([(0, 0)], [(1, 1)], [box(0, 0, 1, 1)]), {"method": "brute"}, "method"),
    ],
)
def test_crossings_validates(args, kwargs, message):
    with pytest.raises(FireplanError, match=message):
        crossings(*args, **kwargs)


# -- terrain and smoke -----------------------------------------------------------------------------


def wall(x, y0=-10.0, y1=10.0):
    return box(x, y0, x + 1, y1)


def test_met_15_full_smoke_blocks_and_partial_smoke_obscures():
    # one observer, four rays; each obstacle sits across one ray only, at x 4..6
    observers, targets = [(0, 0)], [(10, 0), (10, 30), (10, 60), (10, -30)]
    terrain = [box(4, 11, 6, 19)]
    screens = [
        Screen(box(4, -5, 6, 5), (FULL,)),
        Screen(box(4, 20, 6, 40), (PARTIAL, FULL)),
        Screen(box(4, 22, 6, 38), (PARTIAL,)),
        Screen(box(4, -20, 6, -10), (FULL,), age=1),  # gone: ignored
    ]
    s = sight_matrix(observers, targets, terrain, screens)
    assert s.status.tolist() == [[BLOCKED, BLOCKED, OBSCURED, CLEAR]]
    assert s.terrain_blocked.tolist() == [[False, True, False, False]]
    assert s.full_screens.tolist() == [[1, 0, 0, 0]]
    assert s.partial_screens.tolist() == [[0, 0, 2, 0]]
    assert s.visible.tolist() == [[False, False, True, True]]
    aged = sight_matrix(observers, targets, terrain, [sc.aged() for sc in screens])
    assert aged.status.tolist() == [[CLEAR, BLOCKED, BLOCKED, CLEAR]]


def test_chq_10_screens_are_counted_for_the_ruleset_to_add_tn():
    # CHQ smoke obscures rather than blocks: the ruleset reads the counts, not the status
    s = sight_matrix([(0, 0)], [(10, 0), (0, 10)], screens=[Screen(wall(5), (FULL,)), Screen(wall(7), (PARTIAL,))])
    assert s.screens.tolist() == [[2, 0]]
    assert not s.terrain_blocked.any()


def test_sight_matrix_validates_screens():
    with pytest.raises(FireplanError, match="Screen"):
        sight_matrix([(0, 0)], [(1, 1)], screens=[box(0, 0, 1, 1)])


def test_chq_30_at_least_half_the_base_must_be_visible():
    base = footprint((10, 0), width=2, depth=1, facing=0)  # x 9..11, y -0.5..0.5: nine samples
    observer = [(0, 0)]
    # a wall at x = 5 hiding the top row of samples (3 of 9): two thirds visible
    low_hedge = box(5, 0.2, 5.1, 5)
    seen = footprint_sight(observer, [base], terrain=[low_hedge])
    assert seen.visible_fraction[0, 0] == pytest.approx(6 / 9) and seen.visible[0, 0]
    assert seen.status[0, 0] == CLEAR
    # lower, it hides the top and middle rows (6 of 9): not visible
    seen = footprint_sight(observer, [base], terrain=[box(5, -0.1, 5.1, 5)])
    assert seen.visible_fraction[0, 0] == pytest.approx(3 / 9) and not seen.visible[0, 0]
    assert seen.status[0, 0] == BLOCKED
    # partial smoke over the whole base: seen, but not clearly
    seen = footprint_sight(observer, [base], screens=[Screen(box(5, -5, 6, 5), (PARTIAL,))])
    assert seen.visible[0, 0] and seen.clear_fraction[0, 0] == 0.0 and seen.status[0, 0] == OBSCURED
    assert seen.samples.shape == (1, 9) and seen.sample_target.tolist() == [0] * 9


def test_footprint_sight_many_bases_in_one_call():
    rng = np.random.default_rng(5)
    bases = [footprint(rng.uniform(0, 30, 2), 2, 1, rng.uniform(0, 360)) for _ in range(12)]
    terrain = [rectangle(rng.uniform(0, 30, 2), 6, 1, rng.uniform(0, 360)) for _ in range(8)]
    observers = rng.uniform(0, 30, (10, 2))
    seen = footprint_sight(observers, bases, terrain=terrain)
    terrain_array = np.array(terrain, dtype=object)
    for o, a in enumerate(observers):
        for m, base in enumerate(bases):
            points = sample_points(base)
            clear = [not shapely.intersects(LineString([a, p]), terrain_array).any() for p in points]
            assert seen.visible_fraction[o, m] == pytest.approx(np.mean(clear))
            assert seen.visible[o, m] == (np.mean(clear) >= 0.5)


def test_inside_points_and_polygons():
    polygons = [box(0, 0, 2, 2), rectangle((10, 10), 4, 4, 45)]
    points = [(1, 1), (2, 1), (10, 10), (5, 5)]
    assert inside(points, polygons).tolist() == [[True, False], [True, False], [False, True], [False, False]]
    strictly = inside(points, polygons, boundary=False)
    assert strictly.tolist() == [[True, False], [False, False], [False, True], [False, False]]
    assert inside([], polygons).shape == (0, 2)


def test_a_bad_polygon_is_named_every_time_it_is_given():
    """Validity is cached by geometry: a polygon found invalid once is refused again, and a
    valid one with the same shape elsewhere in the list is still accepted."""
    bowtie = Polygon([(0, 0), (1, 1), (1, 0), (0, 1)])
    for _ in range(2):
        with pytest.raises(FireplanError, match=r"polygons\[1\] is not a valid polygon \(Self-intersection"):
            crossings([(0, 0)], [(1, 1)], [box(0, 0, 1, 1), bowtie])
    assert len(crossings([(0, 0)], [(5, 5)], [box(0, 0, 1, 1), box(0, 0, 1, 1)])) == 2
