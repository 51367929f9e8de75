"""Vehicle and infantry smoke: MET-7 (dischargers), MET-8 (when), MET-9 (reload), MET-10 (mortars and
launchers), MET-11 (AP grenade thrower), MET-12 (infantry smoke grenades)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.rulesets.met.actions import Discharge, End, Fire, Grenade, Hold, Launch, Move, Reload, Thrower
from engine.rulesets.met.dischargers import Kit, discharger_screen
from engine.rulesets.met.events import FireCheck
from engine.rulesets.met.resolution import HIT, MISS, Status

from .helpers import box, end_until, feature, game, next_period, resolve_chance, unit


def _tank_duel(pak_hidden=False, **options):
    units = [
        unit("gb-sherman", "Sherman V", "gb", (500, 300)),
        unit("gb-cromwell", "Cromwell IV", "gb", (300, 300)),
        unit("de-pak", "PaK 40", "de", (500, 700), 180, blind="de-b1" if pak_hidden else None),
        unit("de-pz", "Panzer IV H", "de", (800, 750), 180),
    ]
    blinds = [{"id": "de-b1", "owner": "de", "position": [500, 700]}] if pak_hidden else []
    return game(units, blinds=blinds, periods=6, **options)


def _screens(state, kind):
    return [ms for ms in state.screens if ms.kind == kind]


# ---------------------------------------------------------------- MET-7
def test_met_7_discharger_screen_touches_the_face():
    front = discharger_screen((500, 300), 0, (10, 15), "front")
    assert front.bounds == pytest.approx((475.0, 307.5, 525.0, 332.5))
    assert front.area == pytest.approx(50 * 25)
    right = discharger_screen((500, 300), 0, (10, 15), "right")
    assert right.bounds == pytest.approx((505.0, 275.0, 530.0, 325.0))
    rear = discharger_screen((500, 300), 90, (10, 15), "rear")  # facing east: the rear is west
    assert rear.bounds == pytest.approx((467.5, 275.0, 492.5, 325.0))


def test_met_7_turret_any_face_hull_front_only():
    state = _tank_duel()
    legal = state.legal_actions()
    assert {a.face for a in legal if isinstance(a, Discharge) and a.element == "gb-sherman"} == {"front", "right", "rear", "left"}
    assert {a.face for a in legal if isinstance(a, Discharge) and a.element == "gb-cromwell"} == {"front"}
    assert "hull-mounted" in state.illegal_reason(Discharge("gb-cromwell", "left"))
    end_until(state, "move", "de")
    assert "no smoke dischargers" in state.illegal_reason(Discharge("de-pz", "front"))


def test_met_7_full_at_once_until_the_start_of_the_elements_next_movement():
    state = _tank_duel()
    assert state.sight("de-pak", "gb-sherman").name == "CLEAR"
    state.apply_action(Discharge("gb-sherman", "front"))
    (screen,) = _screens(state, "discharger")
    assert screen.screen.density.value == "full"
    assert state.sight("de-pak", "gb-sherman").name == "BLOCKED"  # at once, before it moves
    # still there for the enemy's movement, the fire phase and the artillery phase ...
    end_until(state, "move", "de")
    assert _screens(state, "discharger")
    end_until(state, "fire", "de")
    assert _screens(state, "discharger")
    # ... gone at the start of gb's next movement
    next_period(state, "move", "gb")
    assert state.period == 2 and not _screens(state, "discharger")


def test_met_7_second_mover_screen_lasts_through_the_first_movers_next_movement():
    state = _tank_duel()
    end_until(state, "move", "de")
    state.apply_action(Launch("de-pz", 700, 650))  # the Sherman threatens it
    next_period(state, "move", "gb")
    assert state.period == 2 and len(_screens(state, "launcher")) == 1
    end_until(state, "move", "de")
    assert not _screens(state, "launcher")


# ---------------------------------------------------------------- MET-8
def test_met_8_no_dischargers_without_fire_or_a_located_threat():
    # the PaK is hidden under a blind (not located); the located Panzer IV's line is blocked by woods
    woods = [feature("woods", "woods", box(360, 400, 700, 460), cover="medium")]
    state = game(
        [unit("gb-cromwell", "Cromwell IV", "gb", (500, 300)), unit("de-pak", "PaK 40", "de", (500, 700), 180, "de-b1"),
         unit("de-pz", "Panzer IV H", "de", (600, 900), 180)],
        blinds=[{"id": "de-b1", "owner": "de", "position": [500, 700]}], terrain=woods, periods=4,
    )
    assert not state.threatened("gb-cromwell")
    reason = state.illegal_reason(Discharge("gb-cromwell", "front"))
    assert "MET-8" in reason and "under direct fire" in reason
    assert not any(isinstance(a, Discharge) for a in state.legal_actions())


@pytest.mark.parametrize(
    "pak, expected",
    [
        ((500, 700), True),  # located, in range, in sight
        ((500, 1390), False),  # out of range (1090 m > 1000 m)
    ],
)
def test_met_8_located_enemy_able_to_fire_threatens(pak, expected):
    state = game([unit("gb-sherman", "Sherman V", "gb", (500, 300)), unit("de-pak", "PaK 40", "de", pak, 180)],
                 size=(1000, 1400))
    assert state.threatened("gb-sherman") is expected
    assert state.is_legal(Discharge("gb-sherman", "front")) is expected


def test_met_8_blocked_or_suppressed_enemy_does_not_threaten():
    woods = [feature("woods", "woods", box(400, 450, 600, 500), cover="medium")]
    state = game([unit("gb-sherman", "Sherman V", "gb", (500, 300)), unit("de-pak", "PaK 40", "de", (500, 700), 180)],
                 terrain=woods)
    assert not state.threatened("gb-sherman")
    state = game([unit("gb-sherman", "Sherman V", "gb", (500, 300)), unit("de-pak", "PaK 40", "de", (500, 700), 180)])
    state.elements["de-pak"].status = Status.SUPPRESSED
    state._version += 1
    assert not state.threatened("gb-sherman")


def test_met_8_under_direct_fire_last_period_allows_dischargers():
    state = game(
        [unit("gb-sherman", "Sherman V", "gb", (500, 300)), unit("gb-2", "Sherman V", "gb", (560, 300)),
         unit("de-pak", "PaK 40", "de", (500, 700), 180)],
        periods=4,
    )
    end_until(state, "fire", "gb")
    state.apply_action(Fire("gb-2", "de-pak"))
    state.apply_action(End())
    state.apply_action(Fire("de-pak", "gb-sherman"))  # its only possible order: the phase resolves at once
    # gb-2's shot hits the PaK, the PaK's shot misses; results apply together
    assert isinstance(state.pending_event(), FireCheck) and state.pending_event().firer == "gb-2"
    state.apply_action(HIT)
    state.apply_action(MISS)
    end_until(state, "move", "gb")
    assert state.period == 2
    assert state.elements["de-pak"].status is Status.SUPPRESSED  # hit this period: no recovery yet
    # the PaK cannot fire now, but the Sherman was under direct fire in the last fire phase
    assert state.elements["gb-sherman"].under_fire_period == 1
    assert state.threatened("gb-sherman")
    assert state.is_legal(Discharge("gb-sherman", "front"))
    assert not state.threatened("gb-2")


# ---------------------------------------------------------------- MET-9
def test_met_9_reload_takes_a_full_period_stationary_and_not_firing():
    state = _tank_duel()
    state.apply_action(Discharge("gb-sherman", "front"))
    assert state.elements["gb-sherman"].dischargers is Kit.EMPTY
    next_period(state, "move", "gb")  # period 2
    reason = state.illegal_reason(Discharge("gb-sherman", "front"))
    assert "empty" in reason and "MET-9" in reason
    assert Reload("gb-sherman") in state.legal_actions()
    state.apply_action(Reload("gb-sherman"))
    assert "already moved" in state.illegal_reason(Move("gb-sherman", 500, 350))
    end_until(state, "fire", "gb")
    reason = state.illegal_reason(Fire("gb-sherman", "de-pak"))
    assert "reloading" in reason and "MET-9" in reason
    assert not any(getattr(a, "element", None) == "gb-sherman" for a in state.legal_actions())
    next_period(state, "move", "gb")  # period 3
    assert state.elements["gb-sherman"].dischargers is Kit.READY
    assert state.is_legal(Discharge("gb-sherman", "rear"))


def test_met_9_no_reload_after_moving_or_while_suppressed():
    state = _tank_duel()
    state.apply_action(Discharge("gb-sherman", "front"))
    next_period(state, "move", "gb")
    state.apply_action(Move("gb-sherman", 500, 400))
    assert "already moved" in state.illegal_reason(Reload("gb-sherman"))
    state = _tank_duel()
    state.apply_action(Discharge("gb-sherman", "front"))
    next_period(state, "move", "gb")
    state.elements["gb-sherman"].status = Status.SUPPRESSED
    state._version += 1
    assert "suppressed" in state.illegal_reason(Reload("gb-sherman"))


def test_met_9_a_reload_fails_when_the_vehicle_is_suppressed_during_it():
    state = _tank_duel()
    state.apply_action(Discharge("gb-sherman", "front"))
    next_period(state, "move", "gb")
    state.apply_action(Reload("gb-sherman"))
    end_until(state, "fire", "de")
    state.apply_action(Fire("de-pak", "gb-sherman"))
    state.apply_action(End())
    state.apply_action(HIT)
    end_until(state, "move", "gb")
    assert state.period == 3
    assert state.elements["gb-sherman"].status is Status.SUPPRESSED
    assert state.elements["gb-sherman"].dischargers is Kit.EMPTY


# ---------------------------------------------------------------- MET-10
def test_met_10_launcher_screen_75_by_50_between_50_and_200_m():
    state = _tank_duel()
    end_until(state, "move", "de")
    assert "50-200 m" in state.illegal_reason(Launch("de-pz", 800, 720))  # 30 m
    assert "50-200 m" in state.illegal_reason(Launch("de-pz", 800, 500))  # 250 m
    state.apply_action(Launch("de-pz", 800, 650))
    (screen,) = _screens(state, "launcher")
    assert screen.screen.polygon.bounds == pytest.approx((762.5, 625.0, 837.5, 675.0))
    assert screen.screen.density.value == "full"
    assert state.elements["de-pz"].launcher is Kit.EMPTY


def test_met_10_launchers_reload_under_cover_at_no_time_cost():
    woods = [feature("woods", "woods", box(150, 250, 350, 310), cover="medium")]  # the section 10 m in
    state = game(
        [unit("gb-section", "Rifle Section", "gb", (250, 300)), unit("gb-open", "Rifle Section", "gb", (600, 300)),
         unit("de-pak", "PaK 40", "de", (400, 800), 180)],
        terrain=woods, periods=4,
    )
    assert state.in_cover("gb-section") and not state.in_cover("gb-open")
    state.apply_action(Launch("gb-section", 250, 400))
    state.apply_action(Launch("gb-open", 600, 400))
    next_period(state, "move", "gb")  # period 2
    assert state.elements["gb-section"].launcher is Kit.READY  # under cover: reloaded, no time lost
    assert state.elements["gb-open"].launcher is Kit.EMPTY
    assert "reloaded under cover" in state.illegal_reason(Launch("gb-open", 600, 400))
    assert state.is_legal(Launch("gb-section", 250, 400))


# ---------------------------------------------------------------- MET-11
def _thrower_game():
    return game(
        [
            unit("gb-1", "Rifle Section", "gb", (500, 580)),
            unit("gb-2", "Rifle Section", "gb", (600, 640)),
            unit("gb-far", "Rifle Section", "gb", (350, 600)),
            unit("gb-still", "Rifle Section", "gb", (530, 660)),
            unit("de-panther", "Panther G", "de", (500, 700), 180),
            unit("de-pz", "Panzer IV H", "de", (420, 700), 180),
        ],
        periods=3,
    )


def test_met_11_thrower_fires_at_infantry_that_moved_within_50_m():
    state = _thrower_game()
    state.apply_action(Move("gb-1", 500, 660))  # 40 m from the Panther
    state.apply_action(Move("gb-2", 540, 680))  # 44.7 m
    state.apply_action(Move("gb-far", 420, 620))  # moved, but 100 m away
    state.apply_action(Hold("gb-still"))  # 50 m away already, did not move
    end_until(state, "fire", "de")
    assert Thrower("de-panther") in state.legal_actions()
    assert "no grenade thrower" in state.illegal_reason(Thrower("de-pz"))
    state.apply_action(Thrower("de-panther"))
    state.apply_action(End())
    targets = []
    while isinstance(state.pending_event(), FireCheck):
        event = state.pending_event()
        assert event.weapon == "thrower" and event.fn == 5
        assert dict(state.chance_outcomes()) == {HIT: Fraction(1, 2), MISS: Fraction(1, 2)}
        targets.append(event.target)
        state.apply_action(HIT)
    assert sorted(targets) == ["gb-1", "gb-2"]
    assert state.elements["gb-1"].status is Status.SUPPRESSED


def test_met_11_no_thrower_without_infantry_moving_close():
    state = _thrower_game()
    state.apply_action(Move("gb-far", 420, 620))
    end_until(state, "fire", "de")
    reason = state.illegal_reason(Thrower("de-panther"))
    assert "MET-11" in reason and "moved to within 50 m" in reason


# ---------------------------------------------------------------- MET-12
def test_met_12_grenades_adjacent_full_until_next_movement_and_once_only():
    state = game([unit("gb-section", "Rifle Section", "gb", (500, 300)), unit("de-1", "PaK 40", "de", (500, 900), 180, "de-b")],
                 blinds=[{"id": "de-b", "owner": "de", "position": [500, 900]}], periods=4)
    assert not state.threatened("gb-section")
    assert state.is_legal(Grenade("gb-section", "front"))  # no condition of use (setting grenades_need_threat)
    state.apply_action(Grenade("gb-section", "front"))
    (screen,) = _screens(state, "grenade")
    assert screen.screen.polygon.bounds == pytest.approx((475.0, 305.0, 525.0, 330.0))
    assert screen.screen.density.value == "full"
    assert state.elements["gb-section"].grenades is Kit.USED
    next_period(state, "move", "gb")
    assert not _screens(state, "grenade")
    reason = state.illegal_reason(Grenade("gb-section", "left"))
    assert "only once" in reason and "MET-12" in reason
    assert not any(isinstance(a, Grenade) for a in state.legal_actions())


def test_met_12_one_smoke_device_then_the_move():
    state = game([unit("gb-section", "Rifle Section", "gb", (500, 300)), unit("gb-2", "Rifle Section", "gb", (700, 300)),
                  unit("de-1", "PaK 40", "de", (500, 700), 180)])
    state.apply_action(Grenade("gb-section", "front"))
    assert "already fired a smoke device" in state.illegal_reason(Launch("gb-section", 500, 420))
    state.apply_action(Move("gb-section", 500, 380))
    assert "already moved" in state.illegal_reason(Grenade("gb-section", "left"))
    resolve_chance(state)
