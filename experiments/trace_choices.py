"""Trace choices: along one tournament game, what would other players have ordered?

A tournament says which games the AI lost; this says which of its orders other players would
have given otherwise. It plays one game of ``experiments/tournament.py`` exactly as the
tournament does (game g's seed ``1000 g + 1``, the traced player seeded ``2 seed + 1`` as the
tournament's first player, the opponent ``2 seed + 2``), and at each of the traced player's decisions with a
choice asks every reference player, made fresh and seeded by the decision, for its order in
the same position. The game goes on with the traced player's own order, so the references
are asked along the game that was played.

It prints the decisions where the traced order differs from an order the references agree
on (with two or more references, noise in one of them is not a disagreement), with the plan
the traced search played, its simulations and the candidates its deadline cut short, and a
summary: how often each reference agreed, and the differing orders by kind. Every decision
goes to ``choices.csv`` in ``--out``.

This is how the 1 s AI's silent German mortars were found (README, "Every figure"): along its
own games, the untimed AI with two seeds agreed with itself and called the mortars where the
1 s AI, its greedy plan cut short, ordered ``end``.

Run: ``python experiments/trace_choices.py --map met_le_mesnil --game 12 --side de --references ai@32 ai@32``
(``ai@N``: the AI untimed at N simulations; ``greedy``, ``greedy-rings``, ``random``).
"""

from __future__ import annotations

import argparse
import collections
import csv
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "experiments"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from agent.maps import map_names, map_path  # noqa: E402
from agent.match import play_game  # noqa: E402
from agent.narrate import turn_number  # noqa: E402
from agent.search.settings import search_options  # noqa: E402
from engine.scenario import load_scenario  # noqa: E402
from tournament import make_player  # noqa: E402

REFERENCE_SEED = 7919  # a reference's seed: REFERENCE_SEED x (its number + 1) + the decision's number


@dataclass(frozen=True)
class Choice:
    """One decision of the traced player, and what each reference would have ordered."""

    decision: int
    period: str
    kind: str  # the kind of the traced order (move, fire, artillery, ...)
    traced: str
    plan: str  # the source of the plan the traced search played ("" when it did not search)
    simulations: int
    cut_short: str  # the sources of the candidates its deadline cut short
    references: tuple[str, ...]
    reference_plans: tuple[str, ...] = ()  # the source of each reference search's plan ("" for other players)

    @property
    def consensus(self) -> str | None:
        """The references' order when they agree (all of them, at least one), else None."""
        return self.references[0] if self.references and len(set(self.references)) == 1 else None

    @property
    def differs(self) -> bool:
        return self.consensus is not None and self.consensus != self.traced


def reference_player(spec: str, number: int, decision: int, search=()):
    """``spec``'s player (``ai@N``: the AI untimed at N simulations), seeded by the decision."""
    seed = REFERENCE_SEED * (number + 1) + decision
    name, _, iterations = spec.partition("@")
    if name == "ai" and not iterations:
        raise ValueError(f"reference {spec!r}: the AI needs a budget of simulations, e.g. ai@32")
    return make_player(name, seed, 1.0, search=search, iterations=int(iterations) if iterations else None)


def trace(map_name: str, game: int, side: str, traced: str = "ai", opponent: str = "greedy",
          references=("ai@32", "ai@32"), time_per_decision: float = 1.0, iterations: int | None = None,
          search=(), max_decisions: int | None = None, progress=None):
    """Play the tournament's game and ask the references at each of the traced player's
    decisions; returns (choices, the traced side's result or None when stopped early)."""
    scenario = load_scenario(map_path(map_name))
    sides = [s.id for s in scenario.sides]
    if side not in sides:
        raise ValueError(f"--side {side!r}: {map_name} has sides {', '.join(sides)}")
    seed = 1000 * game + 1
    mine = make_player(traced, seed * 2 + 1, time_per_decision, search=search, iterations=iterations)
    theirs = make_player(opponent, seed * 2 + 2, time_per_decision, search=search)
    choices: list[Choice] = []

    class Traced:
        def act(self, state):
            if max_decisions is not None and len(choices) >= max_decisions:
                raise _Stop
            searches = len(getattr(mine, "searches", ()))
            action = mine.act(state)
            if len(state.legal_actions()) > 1:
                choices.append(_choice(state, action, mine, searches, references, search, len(choices)))
                if progress is not None:
                    progress(choices[-1])
            return action

    state = scenario.new_game(seed=seed)
    try:
        record = play_game(state, {side: Traced(), next(s for s in sides if s != side): theirs})
    except _Stop:
        return choices, None
    return choices, float(record.returns[side])


class _Stop(Exception):
    """Raised to stop the game after ``max_decisions`` traced decisions."""


def _choice(state, action, player, searches_before: int, references, search, number: int) -> Choice:
    searched = len(getattr(player, "searches", ())) > searches_before
    result = player.last if searched else None
    plan = result.plan.source if result is not None and result.plan is not None else ""
    cut = sorted({p.source for p, _, _ in result.candidates if "(cut short)" in p.label}) if result is not None else []
    answers, plans = [], []
    for k, spec in enumerate(references):
        reference = reference_player(spec, k, number, search)
        answers.append(str(reference.act(state.clone())))
        last = getattr(reference, "last", None)
        plans.append(last.plan.source if getattr(last, "plan", None) is not None else "")
    return Choice(number, _period(state), state.action_kind(action), str(action), plan,
                  result.iterations if result is not None else 0, " ".join(cut), tuple(answers), tuple(plans))


def _period(state) -> str:
    """``turn 3 <phase>`` or ``period 2 <phase>``: where in the game the decision fell."""
    number = turn_number(state)
    if number is None:
        return ""
    unit = "turn" if isinstance(getattr(state, "turn", None), int) else "period"
    return f"{unit} {number} {getattr(state, 'phase', '')}".strip()


def summary(choices: list[Choice], references) -> list[str]:
    """Lines: how often each reference agreed with the traced order, and the differing kinds."""
    lines = [f"{len(choices)} decisions with a choice; the references agree among themselves at "
             f"{sum(c.consensus is not None for c in choices)}"]
    for k, spec in enumerate(references):
        agreed = sum(c.references[k] == c.traced for c in choices)
        lines.append(f"  reference {k + 1} ({spec}) ordered the same at {agreed} of {len(choices)}")
    differing = collections.Counter(c.kind for c in choices if c.differs)
    lines.append(f"  the traced order differs from the references' agreed one at {sum(differing.values())}"
                 + (": " + ", ".join(f"{kind} {n}" for kind, n in differing.most_common()) if differing else ""))
    return lines


def write_choices(path: Path, choices: list[Choice], references) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["decision", "period", "kind", "traced", "plan", "simulations", "cut_short",
                         *[f"reference_{k + 1}" for k in range(len(references))],
                         *[f"reference_{k + 1}_plan" for k in range(len(references))], "differs"])
        for c in choices:
            writer.writerow([c.decision, c.period, c.kind, c.traced, c.plan, c.simulations, c.cut_short,
                             *c.references, *c.reference_plans, int(c.differs)])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--map", required=True, choices=map_names())
    parser.add_argument("--game", type=int, required=True, help="the tournament's game number (seed 1000 x N + 1)")
    parser.add_argument("--side", required=True, help="the side the traced player commands")
    parser.add_argument("--traced", default="ai", help="the player traced (default ai)")
    parser.add_argument("--opponent", default="greedy", help="its opponent (default greedy)")
    parser.add_argument("--references", nargs="+", default=["ai@32", "ai@32"],
                        help="players asked at each decision: ai@N (untimed, N simulations), greedy, ...")
    parser.add_argument("--time-per-decision", type=float, default=1.0, help="the traced AI's budget")
    parser.add_argument("--iterations", type=int, default=None, help="the traced AI untimed at N simulations instead")
    parser.add_argument("--search", nargs="*", default=[], metavar="FIELD=VALUE",
                        help="the AI's search settings changed from the defaults (traced and references)")
    parser.add_argument("--max-decisions", type=int, default=None, help="stop after this many traced decisions")
    parser.add_argument("--out", type=Path, default=ROOT / "experiments" / "results" / "trace_choices")
    args = parser.parse_args(argv)
    try:
        search = search_options(args.search)
        for spec in args.references:
            reference_player(spec, 0, 0, search)
    except ValueError as error:
        parser.error(str(error))

    def show(choice: Choice) -> None:
        if choice.differs:
            print(f"  #{choice.decision} {choice.period}: {choice.traced} [{choice.plan or 'no search'}, "
                  f"{choice.simulations} simulations{', cut short: ' + choice.cut_short if choice.cut_short else ''}]"
                  f" | references: {choice.consensus} [{', '.join(p or '-' for p in choice.reference_plans)}]", flush=True)

    try:
        choices, result = trace(args.map, args.game, args.side, args.traced, args.opponent, tuple(args.references),
                                args.time_per_decision, args.iterations, search, args.max_decisions, show)
    except ValueError as error:
        parser.error(str(error))
    args.out.mkdir(parents=True, exist_ok=True)
    write_choices(args.out / "choices.csv", choices, args.references)
    ending = "stopped early" if result is None else f"result {result:+.0f} for {args.side}"
    print(f"{args.map} game {args.game}, {args.traced} as {args.side} v {args.opponent}: {ending}")
    for line in summary(choices, args.references):
        print(line)
    print(f"written to {args.out / 'choices.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
