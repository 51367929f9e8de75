"""The engine's exact expectation of a measure after some actions, by enumerating its chance nodes.

Every chance node reached is expanded over its exact outcomes on clones of the state; states that
agree on everything the game depends on are merged (their probabilities added), so the frontier
stays small. This is the reference the fire planners' predicted values are tested against: it
knows nothing of the planners' DP, only ``apply_action`` and ``chance_outcomes``.
"""

from __future__ import annotations

from fractions import Fraction


def signature(state) -> tuple:
    """Everything a CHQ state's future depends on (not its log or generator)."""
    units = tuple(
        (u, s.pos, s.facing, s.hidden, s.disruption, s.suppressed, s.fire_marker, s.dispersed) for u, s in sorted(state.units.items())
    )
    pulse = state.pulse
    pulse_key = None
    if pulse is not None:
        pulse_key = (pulse.side, pulse.chain_face, pulse.dice_left, tuple(sorted(pulse.activated)), tuple(sorted(pulse.fired)),
                     tuple(sorted(pulse.folds.items())), pulse.group, pulse.group_moved, pulse.group_rallied, pulse.group_fired, pulse.chosen)
    return (
        units,
        tuple(sorted(state.blinds.items())),
        tuple(sorted(state.morale.items())),
        tuple(sorted(state.collapsed)),
        tuple(sorted(state.missions.items())),
        state.next_mission,
        tuple(sorted(state.battery_used.items())),
        tuple(sorted(state.staff.items())),
        tuple(sorted(state.lp_count.items())),
        tuple(state.agenda),
        pulse_key,
        state.barrage,
        state.window,
        state.move,
        state.game_over,
        state.turn,
    )


def _resolve(frontier: dict) -> dict:
    """Expand chance nodes until every state waits on a decision (or the game is over)."""
    done: dict = {}
    while frontier:
        nxt: dict = {}
        for sig, (state, p) in frontier.items():
            if not state.is_chance_node():
                key = signature(state)
                if key in done:
                    done[key] = (done[key][0], done[key][1] + p)
                else:
                    done[key] = (state, p)
                continue
            for outcome, q in state.chance_outcomes():
                child = state.clone()
                child.apply_action(outcome)
                key = signature(child)
                if key in nxt:
                    nxt[key] = (nxt[key][0], nxt[key][1] + p * q)
                else:
                    nxt[key] = (child, p * q)
        frontier = nxt
    return done


def expectation(state, actions, measure, *, then=()) -> tuple[Fraction | float, int]:
    """E[measure(state')] over the engine's chance nodes after applying ``actions`` in order
    (each followed by all its chance nodes), then the decisions ``then`` (e.g. ``end``) likewise.
    Returns the expectation and the number of distinct end states."""
    frontier = _resolve({signature(state): (state.clone(), Fraction(1))})
    for action in list(actions) + list(then):
        stepped = {}
        for _, (s, p) in frontier.items():
            child = s.clone()
            child.apply_action(action)
            key = signature(child)
            stepped[key] = (child, stepped[key][1] + p) if key in stepped else (child, p)
        frontier = _resolve(stepped)
    total = sum(p * measure(s) for s, p in frontier.values())
    assert sum(p for _, p in frontier.values()) == 1
    return total, len(frontier)
