"""Stress-testing a scenario: many seeded games, locally or on a Dask cluster, and what they show.

:mod:`.spec` says what a run is (and derives every game's seeds), :mod:`.game` plays one game
into a row, :mod:`.results` keeps the rows on disk as they arrive, :mod:`.runner` plays the
games here, in local processes or on Dask, and :mod:`.report` sums them up in tables and plots.
"""

from .game import play_one, row_columns
from .report import Summary, print_summary, summarise, wilson, write_plots
from .results import ResultsDir
from .runner import WorkerDied, run_dask, run_here, run_local
from .spec import StressRun, Vary, check_vary, game_parameters, game_seed, parse_vary, scenario_for

__all__ = ["StressRun", "Vary", "parse_vary", "check_vary", "game_seed", "game_parameters", "scenario_for", "play_one",
           "row_columns", "ResultsDir", "run_here", "run_local", "run_dask", "WorkerDied", "Summary", "summarise",
           "print_summary", "wilson", "write_plots"]
