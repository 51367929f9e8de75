"""Macro-actions: a whole pulse or phase of orders for one side, and how they are played.

A :class:`Plan` is the orders of one *scope* (``state.plan_scope(side)``: a CHQ pulse from
its chain to its ``end``, a MET side's part of a phase, a barrage round, ...) in order, each
with its reason, plus the posture that completes it when the table turns out differently.
Plans are recorded by playing a policy through the scope in a sampled world
(:func:`record_plan`), and played in other worlds (:func:`play_plan`) *closed-loop*: the
plan's forced orders (its smoke, its fire missions) are played as soon as each is legal, and
every other decision is its posture's in the position reached, so that a plan answers the
dice instead of repeating orders made for other dice. Otherwise (``closed_loop=False``, and
always for a greedy plan: the greedy choice looks ahead at every order, too slow for every
decision of every simulation) the recorded orders are replayed, each if it is still legal,
and the posture finishes the scope. The enemy's decisions inside the scope (CHQ opportunity
fire) and everything outside it are played by the enemy's policy; chance nodes by a
:class:`~agent.search.chance.ChanceResolver`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Hashable, Sequence

from engine.game import GameState

from ..players.base import PlannedAction
from .chance import ChanceResolver
from .policy import BALANCED, Posture, PosturePolicy

__all__ = ["Plan", "OutOfTime", "Replay", "Simulator"]


class OutOfTime(Exception):
    """Raised inside a simulation when the decision's deadline has passed."""


@dataclass(frozen=True, slots=True)
class Plan:
    """One macro-action: the orders of a scope with reasons, its posture, where it came from."""

    steps: tuple[PlannedAction, ...]
    label: str
    source: str
    posture: Posture = BALANCED
    forced: tuple[Hashable, ...] = field(default=(), compare=False)
    follow: str = "posture"  # who decides what ``forced`` leaves open: "posture" or "greedy"

    @property
    def actions(self) -> tuple[Hashable, ...]:
        return tuple(step.action for step in self.steps)

    def describe(self) -> str:
        return f"{self.label} [{self.source}]: " + "; ".join(str(a) for a in self.actions)


Chooser = Callable[[GameState], tuple[Hashable, str]]


class Replay:
    """Plays recorded orders in turn, each if it is still legal, then ``posture`` finishes the
    scope; ``follow`` is who decides a plan recorded with it after the orders run out."""

    def __init__(self, steps: Sequence[PlannedAction], posture: Posture = BALANCED, follow: str = "posture"):
        self.steps = list(steps)
        self.posture = posture
        self.follow = follow
        self._cursor = 0
        self._completion = PosturePolicy(posture)

    def choose(self, world: GameState) -> tuple[Hashable, str]:
        while self._cursor < len(self.steps):
            step = self.steps[self._cursor]
            self._cursor += 1
            if world.is_legal(step.action):
                return step.action, step.reason
        return self._completion.choose(world)


class Simulator:
    """Plays scopes in worlds for one search: chance, the enemy's replies, deadlines.

    ``deadline`` is a ``time.perf_counter()`` value (None: no limit); past it, any step raises
    :class:`OutOfTime` so that a search stops within its budget.
    """

    def __init__(self, side: str, chance: ChanceResolver, enemy_policy: PosturePolicy, own_policy: PosturePolicy,
                 deadline: float | None = None, max_steps: int = 4000, closed_loop: bool = True):
        self.side = side
        self.closed_loop = closed_loop
        self.chance = chance
        self.enemy_policy = enemy_policy
        self.own_policy = own_policy
        self.deadline = deadline
        self.max_steps = max_steps
        self.partials: list[Plan] = []  # plans cut short by the deadline while being recorded
        self.rollout_choice: Chooser | None = None  # who plays the rollouts (None: both sides' default policies)

    def check(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfTime

    def default_choice(self, state: GameState) -> tuple[Hashable, str]:
        mover = state.current_player()
        return (self.own_policy if mover == self.side else self.enemy_policy).choose(state)

    def to_decision(self, state: GameState, stream: int | None = None, visit: int = 0) -> None:
        """Resolve chance nodes until a decision (or the end)."""
        j = 0
        while state.is_chance_node():
            self.check()
            self.chance.resolve(state, None if stream is None else stream * 131 + j, visit)
            j += 1

    def to_own_decision(self, state: GameState) -> None:
        """Play on (chance, the enemy's policy) until ``side`` decides, e.g. after a MET world was
        put back at the enemy's hidden declaration."""
        for _ in range(self.max_steps):
            self.to_decision(state)
            if state.is_terminal() or state.current_player() == self.side:
                return
            self.check()
            state.apply_action(self.enemy_policy.choose(state)[0])
        raise RuntimeError("the enemy's policy did not hand the decision back")

    def play_scope(self, state: GameState, owner: str, choose: Chooser, *, forced: Sequence[Hashable] = (),
                   stream: int | None = None, visit: int = 0, record: bool = False,
                   into: list | None = None) -> list[PlannedAction]:
        """Play ``owner``'s current scope to its end with ``choose`` (forced orders first, as soon
        as each is legal); others' decisions inside it by their default policy. With ``record``
        the orders played are returned (and appended to ``into`` as they are played)."""
        scope = state.plan_scope(owner)
        pending = list(forced)
        out: list[PlannedAction] = [] if into is None else into
        j = 0
        for _ in range(self.max_steps):
            self.check()
            if state.is_terminal() or scope is None:
                break
            if state.is_chance_node():
                self.chance.resolve(state, None if stream is None else stream * 131 + j, visit)
                j += 1
                continue
            if state.plan_scope(owner) != scope:
                break
            mover = state.current_player()
            if mover != owner:
                state.apply_action(self.default_choice(state)[0])
                continue
            action, reason = None, ""
            for k, candidate in enumerate(pending):
                if state.is_legal(candidate):
                    action, reason = candidate, "planned"
                    del pending[k]
                    break
            if action is None:
                action, reason = choose(state)
            if record:
                out.append(PlannedAction(action, reason))
            state.apply_action(action)
        return out

    def play_plan(self, state: GameState, owner: str, plan: Plan, *, stream: int | None = None, visit: int = 0) -> None:
        """Play ``plan`` in ``state`` (a world it may not have been made in)."""
        if self.closed_loop and plan.follow == "posture":
            self.play_scope(state, owner, PosturePolicy(plan.posture).choose, forced=plan.forced, stream=stream,
                            visit=visit)
            return
        self.play_scope(state, owner, Replay(plan.steps, plan.posture).choose, stream=stream, visit=visit)

    def record_plan(self, world: GameState, owner: str, policy: PosturePolicy, *, forced: Sequence[Hashable] = (),
                    label: str = "", source: str = "") -> Plan:
        """Play ``policy`` (with ``forced`` orders) through ``owner``'s scope in a clone of ``world``
        and keep the orders as a plan."""
        steps: list[PlannedAction] = []
        follow = getattr(policy, "follow", "posture")
        try:
            self.play_scope(world.clone(), owner, policy.choose, forced=forced, record=True, into=steps)
        except OutOfTime:
            if steps or follow == "greedy":  # what was planned in time; the plan's policy finishes it when played
                self.partials.append(Plan(tuple(steps), (label or policy.posture.reason) + " (cut short)", source,
                                          policy.posture, tuple(forced), follow))
            raise
        return Plan(tuple(steps), label or policy.posture.reason, source, policy.posture, tuple(forced), follow)

    def rollout(self, state: GameState, scopes: int) -> None:
        """Both sides play ``rollout_choice`` (by default their default policies) for ``scopes``
        more scopes (or to the end)."""
        choose = self.rollout_choice or self.default_choice
        for _ in range(scopes):
            self.to_decision(state)
            if state.is_terminal():
                return
            mover = state.current_player()
            if state.plan_scope(mover) is None:
                state.apply_action(choose(state)[0])
                continue
            self.play_scope(state, mover, choose)
