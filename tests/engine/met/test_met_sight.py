"""Seeing in smoke: MET-15 (full smoke blocks; the edge sees out), MET-16 (no cover leaving smoke),
MET-17 (inside a screen only base contact), and cover."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import shapely

from engine.geometry import Density, Screen, footprint, rectangle
from engine.rulesets.met.actions import Grenade, Move
from engine.rulesets.met.elements import MetScreen
from engine.rulesets.met.sightlines import cover_mask, met_sight, path_cover_fraction
from engine.sight import SightStatus

from .helpers import box, feature, game, unit, with_settings

CLEAR, PARTIAL, BLOCKED = int(SightStatus.CLEAR), int(SightStatus.PARTIAL), int(SightStatus.BLOCKED)
WALL = Screen(rectangle((500, 450), 200, 100), (Density.FULL,))  # x 400..600, y 400..500
MIST = Screen(rectangle((500, 450), 200, 100), (Density.PARTIAL,))


def sight(points, screens, terrain=(), rules=None, size=10):
    bases = [footprint(p, size, size) for p in points]
    return met_sight(points, bases, points, bases, terrain, screens, rules)


# ---------------------------------------------------------------- MET-15
def test_met_15_full_smoke_blocks_sight_completely():
    s = sight([(500, 300), (500, 700), (250, 300)], [WALL])
    assert s[0, 1] == s[1, 0] == BLOCKED
    assert s[0, 2] == CLEAR and s[1, 2] == CLEAR  # a line round the screen
    assert sight([(500, 300), (500, 700)], [MIST])[0, 1] == PARTIAL


def test_met_15_element_inside_touching_the_edge_sees_out_through_partial():
    edge, north = (500, 495), (500, 800)  # the base's north side lies on the screen's edge (y = 500)
    s = sight([edge, north], [WALL])
    assert s[0, 1] == PARTIAL and s[1, 0] == PARTIAL  # sees out and is seen, as through partial smoke
    south = (500, 100)
    s = sight([edge, south], [WALL])
    assert s[0, 1] == BLOCKED  # not out through the 95 m of smoke behind it
    deep, north = (500, 450), (500, 800)
    assert sight([deep, north], [WALL])[0, 1] == BLOCKED  # not touching the edge


def test_met_15_element_inside_a_screen_is_in_cover():
    covered = cover_mask([(500, 495), (500, 450), (500, 700)], (), [WALL])
    assert covered.tolist() == [True, True, False]
    assert cover_mask([(500, 450)], (), [MIST]).tolist() == [True]
    assert cover_mask([(500, 450)], (), [MIST], rules=with_settings(partial_smoke_is_cover=False)).tolist() == [False]


def test_met_15_in_game_edge_element_is_a_harder_target():
    state = game([unit("gb-1", "Sherman V", "gb", (500, 600), 180), unit("de-1", "Grenadier Section", "de", (500, 322))])
    assert state.exact_threat("gb-1", "de-1") == Fraction(6, 10)  # FN 6 in the open
    # a full screen y 300..325 with the German section standing inside it, its base (y 317..327)
    # across the north edge: it sees out north, 3 m through the smoke, and is seen
    state.screens.append(MetScreen(Screen(rectangle((500, 312.5), 50, 25), (Density.FULL,)), "grenade", "de-1", "de", 1, "de"))
    state._smoke_version += 1
    assert state.sight("gb-1", "de-1") is SightStatus.PARTIAL
    assert state.in_cover("de-1")
    assert state.exact_threat("gb-1", "de-1") == Fraction(2, 10)  # 6 - 2 (partial) - 2 (cover)


# ---------------------------------------------------------------- MET-16
def test_met_16_leaving_smoke_into_the_open_is_not_cover():
    # smoke never counts for the half-move rule: only terrain cover is an argument
    assert path_cover_fraction((500, 318), (500, 338), []) == 0.0
    assert path_cover_fraction((300, 318), (300, 338), [rectangle((300, 315), 40, 30)]) == pytest.approx(0.6)
    # the union a game keeps gives what the polygons give; two overlapping woods count once
    woods = [rectangle((300, 315), 40, 30), rectangle((300, 325), 40, 30)]
    assert path_cover_fraction((300, 318), (300, 358), shapely.union_all(woods)) == path_cover_fraction((300, 318), (300, 358), woods)
    assert path_cover_fraction((300, 318), (300, 358), woods) == pytest.approx(0.55)
    assert path_cover_fraction((300, 318), (300, 338), None) == 0.0
    covered = cover_mask([(500, 338), (300, 338)], [rectangle((300, 315), 40, 30)], [], [0.0, 0.6])
    assert covered.tolist() == [False, True]


def test_met_16_in_game_half_a_move_in_smoke_then_out_is_not_cover():
    woods = [feature("woods", "woods", box(280, 300, 320, 330), blocks=False, cover="light")]
    state = game(
        [unit("gb-thrower", "Rifle Section", "gb", (500, 300)), unit("gb-smoke", "Rifle Section", "gb", (500, 318)),
         unit("gb-wood", "Rifle Section", "gb", (300, 318)), unit("de-1", "PaK 40", "de", (500, 900), 180)],
        terrain=woods,
    )
    state.apply_action(Grenade("gb-thrower", "front"))  # screen y 305..330 around gb-smoke
    assert state.in_cover("gb-smoke") and state.in_cover("gb-wood")
    state.apply_action(Move("gb-smoke", 500, 338))  # 12 of 20 m inside the smoke, ends in the open
    state.apply_action(Move("gb-wood", 300, 338))  # 12 of 20 m inside the wood, ends in the open
    assert not state.in_cover("gb-smoke")
    assert state.in_cover("gb-wood")
    rules = with_settings(half_move_cover=False)
    assert cover_mask([(300, 338)], [rectangle((300, 315), 40, 30)], [], [0.6], rules).tolist() == [False]


# ---------------------------------------------------------------- MET-17
def test_met_17_inside_a_screen_elements_see_each_other_only_in_base_contact():
    far = sight([(470, 450), (530, 450)], [WALL])
    assert far[0, 1] == BLOCKED
    touching = sight([(490, 450), (500, 450)], [WALL])  # 10 m bases side by side: in contact
    assert touching[0, 1] == PARTIAL and touching[1, 0] == PARTIAL
    near = sight([(490, 450), (502, 450)], [WALL])  # 2 m apart
    assert near[0, 1] == BLOCKED


def test_met_17_partial_screens_by_setting():
    inside = [(470, 450), (530, 450)]
    assert sight(inside, [MIST])[0, 1] == PARTIAL
    assert sight(inside, [MIST], rules=with_settings(inside_partial_blind=True))[0, 1] == BLOCKED


def test_met_sight_terrain_blocks_except_near_the_edge_from_within():
    wood = rectangle((500, 500), 200, 200)  # y 400..600; elements see out from up to 50 m + 7 m inside
    edge, deep, south, north = (500, 560), (500, 500), (500, 300), (500, 700)
    s = sight([south, north, edge, deep], [], terrain=[wood])
    assert s[0, 1] == BLOCKED
    assert s[2, 1] == CLEAR and s[1, 2] == CLEAR  # 40 m from the edge: sees out and is seen
    assert s[2, 0] == BLOCKED  # not out through 160 m of wood
    assert s[3, 1] == BLOCKED and s[3, 0] == BLOCKED  # 100 m in: hidden
    assert s[2, 3] == BLOCKED  # 60 m apart inside the same wood
    near = sight([(500, 460), (500, 500)], [], terrain=[wood])
    assert near[0, 1] == CLEAR  # 40 m apart inside it
    assert np.all(np.diag(s) == CLEAR)
