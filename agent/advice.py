"""Advice for one side at one moment: the top plans of the planners that apply, ranked.

:func:`advise` reads a state as given (it never advances it) and asks the planners that apply now:

- the Initial Barrage planner (:func:`agent.fires.plan_barrage`) while ``side``'s barrage is ahead
  or under way (CHQ, before turn 1);
- the fire planner (:func:`agent.fires.plan_fires`, CP-SAT and greedy) when ``side`` is to move and
  may call artillery;
- the smoke planner (:func:`agent.smoke.planner.plan_smoke`, CP-SAT and greedy) when ``side`` is to
  move and may lay smoke.

While ``side`` is to decide, the AI's search adds its best whole-turn plans
(:mod:`agent.turn_plans`: movement postures, fire and smoke plans, greedy), with their routes.

Each planner's answer becomes an :class:`Advice` (actions in notation, expected value, odds, sight lines cut,
threat removed, risks, reasons); repeats (same actions) are dropped, the rest ranked by expected
value. When no planner applies, the list is empty and :attr:`AdviceReport.decision` says what the
game is waiting for. Expected values of different planners are in their own units (Disruption-
equivalents for fire and barrage, threat removed for smoke); they are ranked as given.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from shapely.geometry import Point

from .turn_plans import DEFAULT_ITERATIONS, TurnPlan, turn_plans

__all__ = ["Advice", "AdviceReport", "advise", "decision_text", "draw_advice"]


@dataclass
class Advice:
    source: str  # "barrage", "fires" or "smoke"
    method: str
    actions: list[str]
    expected_value: float
    odds: dict
    sight_lines_cut: list[list[str]]
    threat_removed: float
    risks: list[str]
    reasons: list[str]
    areas: list = field(default_factory=list, repr=False)  # (kind, polygon, density) to draw
    rank: int = 0

    def to_json(self) -> dict:
        return {
            "rank": self.rank,
            "source": self.source,
            "method": self.method,
            "actions": self.actions,
            "expected_value": self.expected_value,
            "odds": self.odds,
            "sight_lines_cut": self.sight_lines_cut,
            "threat_removed": self.threat_removed,
            "risks": self.risks,
            "reasons": self.reasons,
        }


@dataclass
class AdviceReport:
    scenario: str
    side: str
    decision: str
    plans: list[Advice]
    positions: dict = field(default_factory=dict, repr=False)  # known piece positions, for the picture
    turn_plans: list[TurnPlan] = field(default_factory=list)  # the AI's whole-scope plans, with routes

    def to_json(self) -> dict:
        return {"scenario": self.scenario, "side": self.side, "decision": self.decision,
                "plans": [p.to_json() for p in self.plans], "turn_plans": [p.to_json() for p in self.turn_plans]}


# ------------------------------------------------------------------------------ the moment
def _barrage_ahead(state, side: str) -> bool:
    """True while ``side``'s Initial Barrage is ahead or under way: the ruleset's fire-planning
    hook says so (a ruleset without an Initial Barrage has no ``barrage_ahead``)."""
    if not hasattr(state, "fire_planning") or state.is_terminal():
        return False
    planning = state.fire_planning()
    return bool(getattr(planning, "barrage_ahead", lambda _side: False)(side))


def _kinds(state, side: str) -> set[str]:
    if state.is_terminal() or state.is_chance_node() or state.current_player() != side:
        return set()
    if not hasattr(state, "describe_actions"):
        return set()
    return {info["kind"] for info in state.describe_actions(state.legal_actions(), detail=False)}


def decision_text(state) -> str:
    """What the game is waiting for, in a few words."""
    if state.is_terminal():
        return "the game is over"
    if state.is_chance_node():
        outcomes = [str(o) for o, _ in state.chance_outcomes()[:3]]
        return f"a roll of the dice (e.g. {', '.join(outcomes)})"
    player = state.current_player()
    scope = state.plan_scope(player) if hasattr(state, "plan_scope") else None
    what = f" ({' '.join(map(str, scope))})" if scope else ""
    return f"a decision of {player}{what}"


# ------------------------------------------------------------------------------ the planners
def _positions(state, side: str) -> dict:
    try:
        return {p["id"]: tuple(p["position"]) for p in state.known_pieces(side)}
    except Exception:  # a ruleset without known_pieces: no lines drawn
        return {}


def barrage_advice(plan) -> Advice:
    odds = {r.blind: {"p_real": r.p_real, "p_suppress": r.p_suppressed, "p_disperse": r.p_dispersed,
                      "disruption": r.disruption, "p_dummy_removed": r.p_dummy_removed}
            for r in plan.per_blind if r.round is not None}
    risks = [f"{r.blind} may be a dummy ({1 - r.p_real:.0%}): the fire on it then only removes the marker."
             for r in plan.per_blind if r.round is not None and r.p_real < 1]
    if plan.alternatives:
        risks.append("The number of rounds is not rolled yet: " + "; ".join(f"{r} round(s): {v:.2f}" for r, v in plan.alternatives) + ".")
    if plan.status != "OPTIMAL":
        risks.append(f"Not proven optimal ({plan.status}).")
    return Advice("barrage", plan.method, [str(a) for a in plan.actions()], float(plan.expected_value), odds,
                  [[e, v] for e, v, _ in plan.smoke_lines], float(sum(c for _, _, c in plan.smoke_lines)), risks,
                  plan.explain().splitlines())


def fires_advice(plan) -> Advice:
    odds, risks, areas = {}, [], []
    for e in plan.effects:
        if not e.own and e.p_touched > 0.005:
            odds[e.label] = {"p_affected": e.p_touched, "p_suppress": e.p_suppressed, "p_disperse": e.p_dispersed,
                             "disruption": e.disruption}
    for order in plan.orders:
        c = order.column
        if c.comms < 1:
            risks.append(f"{', '.join(order.batteries)}: Comms {c.comms:.0%}; else it lands late, in our Logistics Phase.")
        for e in c.effects:
            if e.own and e.p_touched > 0.0005:
                risks.append(f"{', '.join(order.batteries)} may deviate onto our {e.label} ({e.p_touched:.1%}).")
        for mission in c.missions:
            areas.append(("template", Point(mission.aim).buffer(max(mission.reach, 1e-6)), None))
    if plan.status not in ("OPTIMAL",):
        risks.append(f"Not proven optimal ({plan.status}).")
    return Advice("fires", plan.method, [str(a) for a in plan.actions()], float(plan.expected_value), odds, [],
                  float(sum(s.value for s in plan.smoke)), risks, plan.explain().splitlines(), areas)


def smoke_advice(plan) -> Advice:
    lines = sorted({(b.observer_id, b.target_id) for b in plan.blocked})
    odds = {b.label: {"p_blocked": b.probability, "p_full": b.full, "threat": b.threat} for b in plan.blocked}
    risks = [f"Cuts our own fire lane {b.observer_id} -> {b.target_id} (cost {b.threat:.2f})." for b in plan.own_cut]
    if plan.batteries_firing_smoke:
        risks.append(f"{', '.join(plan.batteries_firing_smoke)} fire smoke and nothing else this turn (fire given up {plan.fire_lost:.2f}).")
    if plan.status != "OPTIMAL":
        risks.append(f"Not proven optimal ({plan.status}).")
    areas = [("screen", screen.polygon, str(screen.densities[0]))
             for option in plan.options for screen in (option.screens[0] if option.screens else ())]
    return Advice("smoke", plan.method, [str(a) for a in plan.actions], float(plan.objective), odds,
                  [list(p) for p in lines], float(plan.threat_blocked), risks, plan.explain().splitlines(), areas)


def advise(state, side: str, *, top: int = 3, seed: int = 0, time_limit: float = 2.0, scenario: str = "",
           iterations: int = DEFAULT_ITERATIONS) -> AdviceReport:
    """The top ``top`` plans for ``side`` now, and its top whole-turn plans (the AI's search of
    ``iterations`` simulations; 0: none); ``state`` is read, never changed."""
    plans: list[Advice] = []
    kinds = _kinds(state, side)
    in_barrage = _barrage_ahead(state, side)
    if in_barrage:
        from agent.fires import plan_barrage

        plans.append(barrage_advice(plan_barrage(state, side, time_limit=time_limit, random_seed=seed)))
        alt = plan_barrage(state, side, time_limit=time_limit, random_seed=seed, max_smoke=0)
        plans.append(barrage_advice(alt))
        plans[-1].method += ", no smoke"
    else:
        if "artillery" in kinds and hasattr(state, "fire_planning"):
            from agent.fires import plan_fires

            for method in ("cpsat", "greedy"):
                plans.append(fires_advice(plan_fires(state, side, method=method, time_limit=time_limit, random_seed=seed)))
        if "smoke" in kinds and hasattr(state, "smoke_options"):
            from agent.smoke.planner import plan_smoke

            for method in ("cpsat", "greedy"):
                plans.append(smoke_advice(plan_smoke(state, side, method=method, time_limit=time_limit, seed=seed)))
    seen, unique = set(), []
    for plan in plans:
        key = (plan.source, tuple(plan.actions))
        if plan.actions and key not in seen:
            seen.add(key)
            unique.append(plan)
    unique.sort(key=lambda p: -p.expected_value)  # stable: CP-SAT before greedy on ties
    unique = unique[: max(0, top)]
    for rank, plan in enumerate(unique, 1):
        plan.rank = rank
    if in_barrage:
        decision = f"the Initial Barrage of {side}" + (f"; now {decision_text(state)}" if state.is_chance_node() else "")
    elif unique:
        decision = decision_text(state)
    else:
        decision = decision_text(state) + f"; no planner has anything for {side} at this moment"
    whole = turn_plans(state, side, top=top, seed=seed, iterations=iterations) if iterations > 0 else []
    return AdviceReport(scenario, side, decision, unique, _positions(state, side), whole)


#: Route colours of the turn plans' panels, and the most panels a picture holds.
ROUTE_COLOUR, MAX_PANELS = "#6a1b9a", 6


def draw_advice(state, side: str, report: AdviceReport, path):
    """The table as ``side`` knows it, a panel per plan: the planners' plans with their screens,
    templates and the lines they cut, then the whole-turn plans with their routes."""
    from dataclasses import replace

    from engine.view import AreaView, table_view

    from agent.render import render_panels

    view = table_view(state, side)
    positions = report.positions
    panels = []
    for plan in report.plans:
        extra = tuple(AreaView(kind, polygon, density, plan.source) for kind, polygon, density in plan.areas)
        sight = [(positions[o], positions[t], "blocked") for o, t in plan.sight_lines_cut if o in positions and t in positions]
        caption = f"#{plan.rank} {plan.source} ({plan.method}): expected value {plan.expected_value:.2f}"
        panels.append((replace(view, areas=tuple(view.areas) + extra, caption=caption), sight, ()))
    for plan in report.turn_plans:
        caption = f"turn plan {plan.rank}: {plan.label.split(':')[0]} ({plan.source}), mean {plan.value:+.2f} over {plan.simulations}"
        routes = [(points, ROUTE_COLOUR) for points in plan.routes.values() if len(points) > 1]
        panels.append((replace(view, caption=caption), (), routes))
    if not panels:
        panels.append((replace(view, caption=f"{view.caption} - no plan for {side} at this moment"), (), ()))
    return render_panels(panels[:MAX_PANELS], path)
