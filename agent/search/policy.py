"""Postures: fast, one-decision-at-a-time policies that build plans and play rollouts.

A :class:`Posture` weighs what each legal action does (``state.describe_actions``: advance,
withdraw, cover, exact harm and dispersal odds, cost) into a score; :class:`PosturePolicy`
plays the best-scoring action (``end`` or ``pass`` when nothing scores above zero). The
postures are the movement options of a plan: *advance* along the route to the objectives,
*assault* (advance and fire at everything), take *cover*, *hold*, *withdraw*, and the
*balanced* default the search uses for both sides in its rollouts. Postures neither lay smoke
nor call artillery (``artillery=True`` lets one call a mission whose exact expected effect is
worth its Staff Orders): smoke and fire plans come from the planners (see
:mod:`agent.search.sources`), which is also what keeps rollouts cheap.

A policy reads the state it is given: the search gives it a world sampled from the player's
observation, never the true state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable

import numpy as np

from engine.game import GameState

__all__ = ["Posture", "POSTURES", "BALANCED", "PosturePolicy", "action_score", "best_legal_for_posture"]


@dataclass(frozen=True, slots=True)
class Posture:
    """Weights of one way of fighting a pulse or phase (see :func:`action_score`)."""

    name: str
    advance: float = 0.6
    withdraw: float = 0.0
    cover: float = 0.3
    objective: float = 0.5
    move: float = 0.0  # added to every move: negative to stay put
    hold: float = 0.1  # a MET "hold" (stay and fire)
    harm: float = 0.6
    kill: float = 2.0
    reveal: float = 0.3
    artillery: bool = False
    smoke: float = 0.0
    reason: str = ""


BALANCED = Posture("balanced", reason="advance on the objectives using cover, fire at what is in sight")
POSTURES: dict[str, Posture] = {
    "balanced": BALANCED,
    "advance": Posture("advance", advance=1.2, cover=0.1, objective=1.0, harm=0.4,
                       reason="advance along the route to the objectives"),
    "assault": Posture("assault", advance=0.8, cover=0.0, objective=1.0, harm=1.0, kill=3.0,
                       reason="close in and fire at every target in reach"),
    "cover": Posture("cover", advance=0.15, cover=1.2, objective=0.3, move=-0.05,
                     reason="move into cover and fire from it"),
    "hold": Posture("hold", advance=0.0, cover=0.4, objective=0.3, move=-0.6, hold=0.3,
                    reason="hold the ground and fire"),
    "withdraw": Posture("withdraw", advance=-0.5, withdraw=0.8, cover=0.8, objective=0.0, harm=0.3,
                        reason="pull back toward our edge into cover"),
}


def action_score(info: dict, posture: Posture) -> float:
    """How much ``posture`` likes an action described by ``info`` (0 is ``end`` / ``pass``)."""
    kind = info["kind"]
    if kind in ("end", "pass"):
        return 0.0
    if kind == "chain":
        return 1.0 + 0.2 * info.get("dice", 0) - 0.3 * info.get("cost", 0)
    if kind == "group":
        return 0.5 + 0.1 * info.get("size", 1)
    if kind == "move":
        score = (
            posture.move
            + posture.advance * info.get("advance", 0.0)
            + posture.withdraw * info.get("withdraw", 0.0)
            + posture.cover * info.get("cover", 0)
            + posture.objective * bool(info.get("objective"))
            - 0.15 * info.get("cost", 0)
        )
        return score
    if kind == "fire":
        return 0.05 + posture.harm * info.get("harm", 0.0) + posture.kill * info.get("kill", 0.0)
    if kind == "artillery":
        if not posture.artillery:
            return -1.0
        value = posture.harm * info.get("harm", 0.0) + posture.kill * info.get("kill", 0.0)
        value += posture.reveal * info.get("reveals", 0.0) - 1.5 * posture.harm * info.get("own_harm", 0.0)
        if info.get("continuous"):
            value *= 1.2
        return value - 0.35 * info.get("cost", 0)
    if kind == "spot":
        return posture.reveal * info.get("reveals", 0.0)
    if kind == "rally":
        return -0.5 * info.get("harm", 0.0)
    if kind == "unsuppress":
        return 0.3
    if kind == "smoke":
        return posture.smoke - 0.01
    if kind == "barrage":
        return 0.5
    if kind == "hold":
        return posture.hold
    if kind == "reload":
        return 0.2
    if kind == "keep":
        return 0.3
    if kind == "supply":
        return 0.1 - 0.15 * info.get("cost", 0)
    if kind == "cancel":
        return -0.1
    return -0.05


def best_legal_for_posture(world: GameState, state: GameState, posture: Posture) -> tuple[Hashable, str] | None:
    """(order, reason): the order ``posture`` scores best in ``world`` (drawn from the observation)
    that is legal in ``state`` (the true game); an order scoring nothing is played only if it
    ends the turn, then any legal one; None when no order ranked in ``world`` is legal."""
    actions = world.legal_actions()
    infos = world.describe_actions(actions, detail=posture.artillery)
    scores = [action_score(info, posture) for info in infos]
    order = sorted(range(len(actions)), key=lambda i: (-scores[i], i))
    for i in order:
        if scores[i] <= 0.0 and infos[i]["kind"] not in ("end", "pass"):
            continue
        if state.is_legal(actions[i]):
            return actions[i], reason_for(infos[i], posture)
    for i in order:
        if state.is_legal(actions[i]):
            return actions[i], reason_for(infos[i], posture)
    return None


class PosturePolicy:
    """Plays the best action for a posture, ties broken by the engine's canonical order.

    ``noise`` (standard deviation, drawn from ``rng``) varies plans of the same posture.
    """

    def __init__(self, posture: Posture = BALANCED, rng: np.random.Generator | None = None, noise: float = 0.0):
        self.posture = posture
        self.rng = rng
        self.noise = float(noise)

    def with_posture(self, posture: Posture) -> "PosturePolicy":
        return PosturePolicy(posture, self.rng, self.noise)

    def choose(self, state: GameState) -> tuple[Hashable, str]:
        """The action to play now and a short reason."""
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0], "the only order possible"
        infos = state.describe_actions(actions, detail=self.posture.artillery)
        scores = np.array([action_score(info, self.posture) for info in infos])
        if self.noise and self.rng is not None:
            scores = scores + self.rng.normal(0.0, self.noise, len(scores)) * (scores != 0.0)
        best = int(np.argmax(scores))
        if scores[best] <= 0.0:
            for i, info in enumerate(infos):
                if info["kind"] in ("end", "pass"):
                    return actions[i], "nothing more worth doing"
        return actions[best], reason_for(infos[best], self.posture)


def reason_for(info: dict, posture: Posture) -> str:
    """A short sentence saying why an action was chosen."""
    kind = info["kind"]
    if kind == "move":
        bits = []
        if info.get("advance", 0) > 0.2:
            bits.append("closer to the objective")
        if info.get("withdraw", 0) > 0.2:
            bits.append("back toward our edge")
        if info.get("cover", 0) > 0:
            bits.append("into cover")
        if info.get("objective"):
            bits.append("onto the objective")
        return f"{posture.name}: move " + (", ".join(bits) if bits else "to a better position")
    if kind in ("fire", "artillery"):
        harm, kill = info.get("harm", 0.0), info.get("kill", 0.0)
        target = info.get("target") or info.get("at")
        return f"{posture.name}: fire on {target} (expected harm {harm:.2f}, {kill:.0%} to knock it out)"
    if kind == "spot":
        return f"spot {info.get('target')} ({info.get('reveals', 0):.0%} to reveal it)"
    if kind == "chain":
        return f"the chain with the most dice ({info.get('dice')})"
    if kind == "group":
        return f"activate {', '.join(info.get('actors', ()))}"
    if kind == "rally":
        return "rally off Disruption"
    if kind == "barrage":
        return f"barrage the Blind {info.get('target')}"
    return f"{posture.name}: {kind}"

