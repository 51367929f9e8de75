"""MET-19 movement off the canonical lattice: ``ring_moves`` lists legal destinations on rings
around each element that may still move, for a planner that places elements as freely as a
player at the table (``is_legal`` accepts any point within the move)."""

from __future__ import annotations

import math

from engine.rulesets.met.actions import Move
from engine.rulesets.met.resolution import Status

from .helpers import box, end_until, feature, game, next_period, unit


def _state(**options):
    return game([unit("gb-1", "Sherman V", "gb", (500, 300)), unit("gb-2", "Rifle Section", "gb", (300, 300)),
                 unit("gb-bty", "25pdr Field Battery", "gb"), unit("de-1", "Panzer IV H", "de", (500, 700), 180)],
                **options)


def test_met_19_ring_moves_are_exactly_the_ring_points_at_each_move():
    state = _state()
    moves = state.ring_moves((0.5, 1.0), 4)
    # the Sherman moves 200 m, the section 100 m; east, north, west, south of each, rounded to the metre
    expected = {Move("gb-1", x, y) for x, y in [(600, 300), (500, 400), (400, 300), (500, 200),
                                                 (700, 300), (500, 500), (300, 300), (500, 100)]}
    expected |= {Move("gb-2", x, y) for x, y in [(350, 300), (300, 350), (250, 300), (300, 250),
                                                  (400, 300), (300, 400), (200, 300), (300, 200)]}
    lattice = set(state.legal_actions())
    assert set(moves) == expected - lattice
    assert all(state.is_legal(m) for m in moves)
    assert len(moves) == len(set(moves))


def test_met_19_ring_moves_leave_out_what_is_illegal_or_already_listed():
    wood = feature("wood", "woods", box(560, 250, 900, 350), blocks=False, cover="light", difficult=True)
    state = _state(terrain=[wood])
    moves = state.ring_moves((1.0,), 8)
    # the Sherman's full move east crosses difficult going: half a move only
    assert Move("gb-1", 700, 300) not in moves
    assert "difficult going" in state.illegal_reason(Move("gb-1", 700, 300))
    # nothing off the table, nothing the lattice offers
    assert all(0 <= m.x <= 1000 and 0 <= m.y <= 1000 for m in moves)
    assert not set(moves) & set(state.legal_actions())


def test_met_19_ring_moves_follow_the_element_and_the_phase():
    state = _state()
    state.apply_action(Move("gb-1", 500, 400))
    moves = state.ring_moves((1.0,), 4)
    assert {m.element for m in moves} == {"gb-2"}, "an element that has moved is done for the period"
    state.elements["gb-2"].status = Status.SUPPRESSED
    state._version += 1
    half = {m for m in state.ring_moves((1.0,), 4)}
    assert all(math.dist((300, 300), m.point) == 50 for m in half), "a suppressed element moves half"
    end_until(state, "fire")
    assert state.ring_moves((1.0,), 4) == [], "no moves outside a movement decision"
    next_period(state, "move", "gb")
    assert {m.element for m in state.ring_moves((1.0,), 4)} == {"gb-1", "gb-2"}, "a new period, new moves"


def test_met_19_ring_moves_of_named_elements_are_theirs_from_the_full_list():
    state = _state()
    every = state.ring_moves((0.5, 1.0), 4)
    section = state.ring_moves((0.5, 1.0), 4, elements={"gb-2"})
    assert section == [m for m in every if m.element == "gb-2"] and section
    assert state.ring_moves((0.5, 1.0), 4, elements=set()) == []
