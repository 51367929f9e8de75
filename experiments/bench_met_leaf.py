"""Benchmark: the MET leaf's speed-ups (2026-12-07) against the code before them, in one process.

A search spends most of its second valuing positions: cloning a state, moving an element,
redrawing its sight and reading every pair's hit chance (``features``). Seven changes made that
faster without changing a value: every pair's hit chance read in one pass
(``hooks.direct_threats``), clones without an OS-seeded generator or ``copy.copy`` of each
element, ``engine.sight.inside`` on prepared polygons for small questions with polygons checked
once while they live, the terrain cover's union kept by the table, the cover at every
listed move's start and end found in one call (``describe_actions``), and the sight picture
kept by the worlds a search draws (redrawn for the pieces they moved) and redrawn in part when
up to half of the pieces moved (a third before). ``step_before()`` patches
the code before them back in (as it was at commit 8bd7898), so both run in this process on the
same positions, alternating, and the figure is a ratio.

Positions are the decisions of seeded greedy games on the four MET maps (every ``--every``-th).
Two workloads: the AI's greedy ranking of a decision (every order weighed one step ahead, ring
destinations included) and a whole AI decision at ``--iterations`` simulations (untimed, seeded,
so it replays). Both versions must give the same rankings and the same orders; the script exits
with status 1 if they do not.

Run: ``.venv/bin/python experiments/bench_met_leaf.py --games 1 --every 4``
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "experiments"))

import engine.rulesets.met.game as met_game  # noqa: E402
import engine.sight as sight  # noqa: E402
from agent.maps import map_names  # noqa: E402
from agent.players import SearchPlayer  # noqa: E402
from agent.players.greedy import GreedyPolicy  # noqa: E402
from agent.search.destinations import RingMoves  # noqa: E402
from bench_destinations import decision_positions  # noqa: E402
from engine.rulesets.met import search_hooks  # noqa: E402
from engine.rulesets.met.elements import BlindMarker, Element  # noqa: E402
from engine.rulesets.met.hooks import exact_threat  # noqa: E402
from engine.rulesets.met.sightlines import cover_mask, path_cover_fraction  # noqa: E402


class _Forgetful(dict):
    """A polygon memory that never remembers: every call checks its polygons again."""

    def __setitem__(self, key, value):
        pass


def _odds_pair_by_pair(cls, state, shooter_side: str):
    """``_Odds.of`` before ``direct_threats``: one ``exact_threat`` call a pair."""
    targets = tuple(t for t in state.elements.values()
                    if t.side != shooter_side and t.on_table and t.alive and t.blind is None and not t.is_battery)
    reach = []
    for f in state.elements.values():
        if f.side == shooter_side and f.on_table and f.can_act:
            odds = tuple((j, p) for j, p in ((j, float(exact_threat(state, f.id, t.id))) for j, t in enumerate(targets))
                         if p > 0.0)
            if odds:
                reach.append(odds)
    return cls(targets, tuple(reach))


def _move_as_before(self, action):
    """``_Describer.move`` before the moves' cover was found in one call: one call a move."""
    state = self.state
    start, end = state.elements[action.element].position, action.point
    covered = cover_mask([start, end], state.table.cover, state.screens_now(), None, state.rules)
    self._covered = {start: bool(covered[0]), end: bool(covered[1])}
    return _MOVE(self, action)


def _describe_as_before(state, actions, detail: bool = True):
    describer = search_hooks._Describer(state, detail)
    return [describer.describe(a) for a in actions]


_MOVE = search_hooks._Describer.move
_RESAMPLE = search_hooks.resample_hidden


def _resample_as_before(state, side, rng):
    """``resample_hidden`` before its worlds kept the sight picture: each drew it whole."""
    world = _RESAMPLE(state, side, rng)
    world._picture_cache = None
    return world


def _generator_as_before(rng):
    np.random.default_rng(None)  # the clone's constructor seeded one from the OS, then dropped it
    return copy.deepcopy(rng)


@contextlib.contextmanager
def step_before(tables):
    """The code before the speed-ups, patched in; ``tables`` are the MET tables in play (their
    cover is united again at every move, as before)."""
    polygons = {id(t.cover_union): list(t.cover) for t in tables if t.cover_union is not None}

    def cover_as_before(start, end, union):
        return path_cover_fraction(start, end, polygons.get(id(union), []))

    patches = [
        (met_game, "copy_generator", _generator_as_before),
        (met_game, "path_cover_fraction", cover_as_before),
        (Element, "copy", copy.copy),
        (BlindMarker, "copy", copy.copy),
        (search_hooks._Odds, "of", classmethod(_odds_pair_by_pair)),
        (search_hooks._Describer, "move", _move_as_before),
        (search_hooks, "describe_actions", _describe_as_before),
        (search_hooks, "resample_hidden", _resample_as_before),
        (met_game, "_REDRAW_SHARE", 1 / 3),
        (sight, "_DENSE_INSIDE", 0),
        (sight, "_CHECKED", _Forgetful()),
    ]
    originals = [(owner, name, owner.__dict__[name]) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in originals:
            setattr(owner, name, value)


def ranking(state):
    return GreedyPolicy(np.random.default_rng(0), more=RingMoves()).ranked(state.clone())


def decision(state, iterations: int):
    return SearchPlayer(7, time_per_decision=None, iterations=iterations).act(state.clone())


def timed(work, states) -> tuple[float, list]:
    started = time.perf_counter()
    answers = [work(s) for s in states]
    return time.perf_counter() - started, answers


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1, help="greedy games a map")
    parser.add_argument("--every", type=int, default=4, help="keep every N-th decision")
    parser.add_argument("--iterations", type=int, default=16, help="simulations of an AI decision")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of each version")
    parser.add_argument("--maps", nargs="*", default=map_names("met"))
    args = parser.parse_args(argv)
    states = [s for name in args.maps for s in decision_positions(name, args.games, args.every)]
    tables = {id(s.table): s.table for s in states}.values()
    print(f"{len(states)} decisions on {', '.join(args.maps)} ({args.games} greedy games a map, one in {args.every})")
    workloads = {"greedy ranking": ranking, f"AI decision, {args.iterations} simulations":
                 lambda s: decision(s, args.iterations)}
    failed = False
    print("| workload | before s | now s | speed-up | same answers |")
    print("|---|---|---|---|---|")
    for label, work in workloads.items():
        timed(work, states)  # warm the caches both versions share (polygon parts, rules)
        before, now = [], []
        for _ in range(args.rounds):
            with step_before(tables):
                seconds, old = timed(work, states)
            before.append(seconds)
            seconds, new = timed(work, states)
            now.append(seconds)
            same = [str(a) for a in old] == [str(a) for a in new]
            failed |= not same
        b, n = statistics.median(before), statistics.median(now)
        print(f"| {label} | {b:.2f} | {n:.2f} | **{b / n:.2f}x** | {'yes' if same else 'NO'} |")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
