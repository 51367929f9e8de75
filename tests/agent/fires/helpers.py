"""Drive a CHQ game to a chosen side's pulse, and build small scenarios for the fire planner tests."""

from __future__ import annotations

from engine.game import CHANCE
from engine.rulesets.chq.actions import Chain, CommandRoll

from tests.engine.chq.helpers import counts, feature, rect, scenario, unit

__all__ = ["to_pulse", "counts", "feature", "rect", "scenario", "unit"]


def _faces(n: int, first: bool) -> tuple[int, ...]:
    faces = [6, 4, 4, 4, 3, 5, 5, 2][:n] if first else [2, 2, 3, 3, 5, 5, 4, 4][:n]
    return counts(*faces)


def to_pulse(state, side: str, *, chain_dice: int | None = None):
    """Play the Initial Barrage (each battery's first legal order that is no smoke) and turn 1's
    Command Dice so that ``side`` takes the first pulse, then choose a chain: ``state`` ends at
    ``side``'s pulse decision."""
    while state.turn == 0 or state.pending() is not None and state.pending()[0] not in ("command",):
        if state.current_player() == CHANCE:
            kind = state.pending()[0]
            if kind == "command":
                break
            outcomes = state.chance_outcomes()
            state.apply_action(max(outcomes, key=lambda o: o[1])[0])
        else:
            if state.turn >= 1 and state.pending() is None:
                break
            actions = state.legal_actions()
            state.apply_action(next((a for a in actions if getattr(a, "at", None) is None), actions[0]))
    other = state.facts.other(side)
    for s in state.facts.side_ids:
        n = int(state.facts.sides[s].command_dice)
        state.apply_action(CommandRoll(s, _faces(n, s == side)))
    chains = [a for a in state.legal_actions() if isinstance(a, Chain)]
    chain = max(chains, key=lambda c: (c.dice, -c.staff)) if chain_dice is None else next(c for c in chains if c.dice == chain_dice)
    state.apply_action(chain)
    assert state.current_player() == side, (state.current_player(), state.agenda[-1])
    del other
    return state
