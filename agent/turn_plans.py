"""Whole-turn plans for ``advise``: the AI's candidate plans for the side's scope, with routes.

The planners answer "where should the smoke go" and "which battery fires where"; a commander
also asks "what should the whole command do now". The AI's search
(:class:`agent.search.MacroSearch`) weighs whole-scope plans (movement postures, fire and smoke
plans, greedy) by simulating the game on worlds drawn from the side's observation; its
candidates, ranked by the mean result of their simulations (+1 a win, -1 a loss), are the turn
plans. Each plan's routes are read by playing its orders on a copy of the game: every move
order adds its end point to the route of the units it moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["TurnPlan", "turn_plans", "DEFAULT_ITERATIONS"]

#: Simulations of the search behind the turn plans (an iteration budget: the same plans anywhere).
DEFAULT_ITERATIONS = 16


@dataclass
class TurnPlan:
    label: str
    source: str
    value: float  # mean result of its simulations, -1 (loss) to +1 (win)
    simulations: int
    actions: list[str]
    reasons: list[str]
    routes: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    rank: int = 0

    def to_json(self) -> dict:
        return {"rank": self.rank, "label": self.label, "source": self.source, "value": self.value,
                "simulations": self.simulations, "actions": self.actions, "reasons": self.reasons,
                "routes": {unit: [list(p) for p in points] for unit, points in self.routes.items()}}


def _routes(state, side: str, plan) -> dict[str, list[tuple[float, float]]]:
    """Where the plan's move orders take our units, played on a copy of ``state`` (chance drawn
    from its generator) for as long as its orders stay legal."""
    known = {p["id"]: tuple(map(float, p["position"])) for p in state.known_pieces(side)
             if p["side"] == side and p.get("position") is not None}
    routes: dict[str, list[tuple[float, float]]] = {}
    world = state.clone()
    for step in plan.steps:
        while world.is_chance_node():
            world.apply_action(world.sample_chance())
        if world.is_terminal() or world.current_player() != side or not world.is_legal(step.action):
            break
        info = world.describe_actions([step.action], detail=False)[0]
        end = info.get("end")
        actors = [a for a in info.get("actors", ()) if a in known]
        if info["kind"] == "move" and end is not None and actors:
            lead = routes.get(actors[0], [known[actors[0]]])[-1]
            for actor in actors:  # a group keeps its shape: each unit moves as its leader does
                here = routes.get(actor, [known[actor]])[-1]
                routes.setdefault(actor, [here]).append((here[0] + end[0] - lead[0], here[1] + end[1] - lead[1]))
        world.apply_action(step.action)
    return routes


def turn_plans(state, side: str, *, top: int = 3, seed: int = 0, iterations: int = DEFAULT_ITERATIONS) -> list[TurnPlan]:
    """The ``top`` whole-scope plans of ``side`` now, best first; empty unless ``side`` is to decide."""
    from agent.search import MacroSearch

    if state.is_terminal() or state.is_chance_node() or state.current_player() != side:
        return []
    result = MacroSearch(side, np.random.default_rng(seed)).run(state, iterations=iterations, seconds=None)
    ranked = sorted(result.candidates, key=lambda c: (-c[2], -c[1]))
    plans, seen = [], set()
    for plan, visits, mean in ranked:
        actions = [str(a) for a in plan.actions]
        if tuple(actions) in seen or not actions:
            continue
        seen.add(tuple(actions))
        reasons = [step.reason for step in plan.steps if step.reason]
        plans.append(TurnPlan(plan.label, plan.source, round(float(mean), 4), int(visits), actions, reasons[:6],
                              _routes(state, side, plan)))
        if len(plans) >= top:
            break
    for rank, plan in enumerate(plans, 1):
        plan.rank = rank
    return plans
