"""OpenSpiel adapter: each ruleset as a pyspiel game, and OpenSpiel's MCTSBot as a player.

``fireplan_chq`` and ``fireplan_met`` are registered python games (``pyspiel.load_game(
"fireplan_chq", {"map": "chq_saint_aubin"})``), with the facts apart from the state as
OpenSpiel's ``kuhn_poker.py`` keeps them:

- players 0 and 1 are the scenario's two sides in file order; dice are explicit chance nodes
  with the engine's exact probabilities (as floats);
- an action id is the index of the action in the engine's canonical ``legal_actions()`` list
  of the current state (chance outcomes likewise), so ``_legal_actions`` is ``0 .. n-1`` and
  ``num_distinct_actions`` (parameter ``max_actions``) is an upper bound, checked;
- ``returns`` are the engine's +1 / -1 / 0 at the end;
- observations come from ``state.observation(player)`` only: a string, and a small tensor of
  counts and morale (:class:`FireplanObserver`); there is no information-state tensor.

:class:`OpenSpielMCTSPlayer` plays any of our games with OpenSpiel's ``MCTSBot``
(UCT with random rollouts) under a time budget per decision, on a world drawn from its
observation (``resample_hidden``) so that, like our AI, it does not read hidden information.

Requires the ``openspiel`` extra (``pip install fireplan[openspiel]``).

Examples
--------
>>> import pyspiel
>>> game = pyspiel.load_game("fireplan_met", {"map": "met_calm_bocage"})
>>> state = game.new_initial_state()
>>> state.current_player(), len(state.legal_actions()) > 1
(0, True)
"""

from __future__ import annotations

import time
from typing import Hashable

import numpy as np

try:
    import pyspiel
    from open_spiel.python.algorithms import mcts
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError("the OpenSpiel adapter needs open_spiel: pip install 'fireplan[openspiel]'") from error

from engine.game import CHANCE, TERMINAL, GameState
from engine.scenario import load_scenario

from .maps import map_path
from .players.base import Player

__all__ = [
    "GAME_NAMES",
    "FireplanGame",
    "FireplanState",
    "FireplanObserver",
    "game_for",
    "map_path",
    "OpenSpielMCTSPlayer",
    "TimedMCTSBot",
]

GAME_NAMES = {"chq": "fireplan_chq", "met": "fireplan_met"}
_DEFAULT_MAP = {"chq": "chq_saint_aubin", "met": "met_le_mesnil"}
_MAX_ACTIONS = 20_000
_MAX_CHANCE = 5_000
_MAX_LENGTH = 100_000
_TENSOR = 8


def _game_type(ruleset: str) -> "pyspiel.GameType":
    return pyspiel.GameType(
        short_name=GAME_NAMES[ruleset],
        long_name=f"fireplan {ruleset.upper()} (WWII tabletop battle)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"map": _DEFAULT_MAP[ruleset], "seed": 0, "max_actions": _MAX_ACTIONS},
    )


class _Box:
    """Holds the engine state; pyspiel deep-copies a python state's attributes on ``clone()``,
    and this makes that copy the engine's cheap ``clone()``."""

    __slots__ = ("state", "actions", "version")

    def __init__(self, state: GameState):
        self.state = state
        self.actions: list | None = None
        self.version = 0

    def __deepcopy__(self, memo) -> "_Box":
        return _Box(self.state.clone())

    def legal(self) -> list:
        if self.actions is None:
            self.actions = self.state.legal_actions()
        return self.actions


class FireplanGame(pyspiel.Game):
    """One scenario as a pyspiel game (``ruleset`` is "chq" or "met")."""

    ruleset = "chq"

    def __init__(self, params=None, *, scenario=None):
        params = dict(params or {})
        name = str(params.get("map", _DEFAULT_MAP[self.ruleset]))
        self.scenario = scenario if scenario is not None else load_scenario(map_path(name))
        if self.scenario.ruleset.name != self.ruleset:
            raise ValueError(f"{name} is a {self.scenario.ruleset.name} scenario, not {self.ruleset}")
        self.seed = int(params.get("seed", 0))
        self.max_actions = int(params.get("max_actions", _MAX_ACTIONS))
        self.sides = tuple(side.id for side in self.scenario.sides)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.max_actions,
            max_chance_outcomes=_MAX_CHANCE,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=_MAX_LENGTH,
        )
        super().__init__(_game_type(self.ruleset), info, {"map": name, "seed": self.seed, "max_actions": self.max_actions})

    def new_initial_state(self) -> "FireplanState":
        return FireplanState(self, self.scenario.new_game(seed=self.seed))

    def state_from(self, engine_state: GameState) -> "FireplanState":
        """A pyspiel state wrapping (a clone of) an engine state of this scenario."""
        return FireplanState(self, engine_state.clone())

    def make_py_observer(self, iig_obs_type=None, params=None) -> "FireplanObserver":
        return FireplanObserver(self, iig_obs_type, params)


class ChqGame(FireplanGame):
    ruleset = "chq"


class MetGame(FireplanGame):
    ruleset = "met"


class FireplanState(pyspiel.State):
    """A pyspiel view of one engine state."""

    def __init__(self, game: FireplanGame, engine_state: GameState):
        super().__init__(game)
        self._box = _Box(engine_state)

    @property
    def engine(self) -> GameState:
        """The engine state (do not change it behind this object's back)."""
        return self._box.state

    def _sides(self) -> tuple[str, str]:
        return self.get_game().sides

    def current_player(self) -> int:
        mover = self._box.state.current_player()
        if mover == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if mover == CHANCE:
            return pyspiel.PlayerId.CHANCE
        return self._sides().index(mover)

    def _legal_actions(self, player) -> list[int]:
        n = len(self._box.legal())
        if n > self.get_game().max_actions:
            raise ValueError(f"{n} legal actions exceed max_actions={self.get_game().max_actions}: raise the parameter")
        return list(range(n))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        outcomes = self._box.state.chance_outcomes()
        legal = self._box.legal()
        if len(outcomes) > _MAX_CHANCE:
            raise ValueError(f"{len(outcomes)} chance outcomes exceed {_MAX_CHANCE}")
        index = {o: i for i, o in enumerate(legal)}
        total = float(sum(p for _, p in outcomes))
        return [(index[o], float(p) / total) for o, p in outcomes]

    def _apply_action(self, action: int) -> None:
        engine_action = self._box.legal()[action]
        self._box.state.apply_action(engine_action)
        self._box.actions = None
        self._box.version += 1

    def _action_to_string(self, player, action) -> str:
        legal = self._box.legal()
        return str(legal[action]) if 0 <= action < len(legal) else f"action {action}"

    def is_terminal(self) -> bool:
        return self._box.state.is_terminal()

    def returns(self) -> list[float]:
        values = self._box.state.returns()
        return [float(values[s]) for s in self._sides()]

    def engine_action(self, action: int) -> Hashable:
        """The engine action an id stands for in this state."""
        return self._box.legal()[action]

    def __str__(self) -> str:
        state = self._box.state
        return f"{state.current_player()} to move; score {state.score()}"


class FireplanObserver:
    """Observation of one side: ``string_from`` prints ``observation(side)``; the tensor holds
    [own morale, enemy morale, own pieces, enemy units seen, enemy Blinds, own move, chance,
    terminal], all read from the observation."""

    def __init__(self, game: FireplanGame, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            raise ValueError("fireplan games offer no perfect-recall (information state) observation")
        self.game = game
        self.tensor = np.zeros(_TENSOR, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: FireplanState, player: int) -> None:
        engine = state.engine
        side = self.game.sides[player]
        seen = engine.observation(side)
        morale = dict(getattr(seen, "morale", ()))
        pieces = engine.known_pieces(side) if hasattr(engine, "known_pieces") else ()
        enemy = self.game.sides[1 - player]
        self.tensor[:] = (
            morale.get(side, 0),
            morale.get(enemy, 0),
            sum(1 for p in pieces if p["side"] == side),
            sum(1 for p in pieces if p["side"] == enemy and p["kind"] == "unit"),
            sum(1 for p in pieces if p["side"] == enemy and p["kind"] == "blind"),
            float(engine.current_player() == side),
            float(engine.is_chance_node()),
            float(engine.is_terminal()),
        )

    def string_from(self, state: FireplanState, player: int) -> str:
        return repr(state.engine.observation(self.game.sides[player]))


_GAME_CLASSES = {"chq": ChqGame, "met": MetGame}
for _ruleset, _cls in _GAME_CLASSES.items():
    pyspiel.register_game(_game_type(_ruleset), _cls)

_GAMES: dict[int, FireplanGame] = {}


def game_for(scenario) -> FireplanGame:
    """The pyspiel game of a scenario object (built once per scenario)."""
    game = _GAMES.get(id(scenario))
    if game is None or game.scenario is not scenario:
        game = _GAMES[id(scenario)] = _GAME_CLASSES[scenario.ruleset.name]({"map": scenario.name}, scenario=scenario)
    return game


class TimedMCTSBot(mcts.MCTSBot):
    """OpenSpiel's MCTSBot with a time limit: it simulates until ``seconds`` have passed (at
    least one simulation) or ``max_simulations`` are done, whichever comes first. The loop is
    ``MCTSBot.mcts_search``'s, with the time check added."""

    def __init__(self, game, uct_c, max_simulations, evaluator, *, seconds: float | None = 1.0, **kwargs):
        super().__init__(game, uct_c, max_simulations, evaluator, **kwargs)
        self.seconds = seconds
        self.simulations = 0

    def mcts_search(self, state):
        root = mcts.SearchNode(None, state.current_player(), 1)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        self.simulations = 0
        for _ in range(self.max_simulations):
            if deadline is not None and self.simulations and time.perf_counter() >= deadline:
                break
            visit_path, working_state = self._apply_tree_policy(root, state)
            if working_state.is_terminal():
                returns = working_state.returns()
                visit_path[-1].outcome = returns
                solved = self.solve
            else:
                returns = self.evaluator.evaluate(working_state)
                solved = False
            while visit_path:
                decision_node_idx = -1
                while visit_path[decision_node_idx].player == pyspiel.PlayerId.CHANCE:
                    decision_node_idx -= 1
                target_return = returns[visit_path[decision_node_idx].player]
                node = visit_path.pop()
                node.total_reward += target_return
                node.explore_count += 1
                if solved and node.children:
                    player = node.children[0].player
                    if player == pyspiel.PlayerId.CHANCE:
                        outcome = node.children[0].outcome
                        if outcome is not None and all(np.array_equal(c.outcome, outcome) for c in node.children):
                            node.outcome = outcome
                        else:
                            solved = False
                    else:
                        best = None
                        all_solved = True
                        for child in node.children:
                            if child.outcome is None:
                                all_solved = False
                            elif best is None or child.outcome[player] > best.outcome[player]:
                                best = child
                        if best is not None and (all_solved or best.outcome[player] == self.max_utility):
                            node.outcome = best.outcome
                        else:
                            solved = False
            self.simulations += 1
            if root.outcome is not None:
                break
        return root


class OpenSpielMCTSPlayer(Player):
    """OpenSpiel's MCTSBot (UCT, random rollouts to the end) as one of our players.

    Each decision it draws a world from its observation (``resample_hidden``; the enemy's
    hidden declaration, in MET, is replayed at random), wraps it as a pyspiel state and runs
    :class:`TimedMCTSBot` for ``time_per_decision`` seconds (or ``max_simulations``). With
    ``determinize=False`` it searches the true state, as MCTSBot would if handed it (it then
    reads hidden information: use only for comparison).
    """

    name = "openspiel-mcts"

    def __init__(self, seed: int = 0, time_per_decision: float | None = 1.0, max_simulations: int | None = None,
                 uct_c: float = 2.0, rollouts: int = 1, determinize: bool = True):
        if time_per_decision is None and max_simulations is None:
            raise ValueError("give MCTSBot a budget: time_per_decision, max_simulations or both")
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.random_state = np.random.RandomState(seed)
        self.time_per_decision = time_per_decision
        self.max_simulations = max_simulations or 10**9
        self.uct_c = uct_c
        self.rollouts = rollouts
        self.determinize = determinize
        self.searches: list[float] = []
        self.simulations: list[int] = []

    def __repr__(self) -> str:
        return f"OpenSpielMCTSPlayer(seed={self.seed}, time={self.time_per_decision}s)"

    def act(self, state: GameState) -> Hashable:
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]
        start = time.perf_counter()
        side = state.current_player()
        world = state.resample_hidden(side, self.rng) if self.determinize else state.clone()
        while not world.is_terminal() and world.current_player() != side:  # a MET hidden declaration
            options = world.legal_actions()
            if world.is_chance_node():
                world.apply_action(world.sample_chance())
            else:
                world.apply_action(options[int(self.rng.integers(len(options)))])
        game = game_for(state.scenario)
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, self.random_state)
        bot = TimedMCTSBot(game, self.uct_c, self.max_simulations, evaluator,
                           seconds=self.time_per_decision, random_state=self.random_state, solve=False)
        spiel_state = game.state_from(world)
        action_id = bot.step(spiel_state)
        action = spiel_state.engine_action(action_id)
        self.searches.append(time.perf_counter() - start)
        self.simulations.append(bot.simulations)
        return action if state.is_legal(action) else actions[-1]
