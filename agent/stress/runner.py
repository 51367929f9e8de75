"""Where a run's games are played: this process, local worker processes, or a Dask cluster.

Each backend takes the games still to play in batches (:func:`agent.stress.game.play_many`)
and calls ``on_rows`` with each batch as it finishes, in whatever order they finish; the
results do not depend on the backend because every game is a pure function of the run and
its index. A local worker that dies stops the run with one clear message (the games finished
are already on disk); on Dask the scheduler plays a lost worker's games elsewhere.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable

from engine.errors import FireplanError

from .game import play_many
from .spec import StressRun

__all__ = ["batches", "run_here", "run_local", "run_dask", "WorkerDied"]

OnRows = Callable[[list[dict]], None]


class WorkerDied(RuntimeError):
    """A local worker process died (killed, out of memory): not the user's mistake, so not a
    ``FireplanError``; the games finished are saved."""


def batches(indices: list[int], size: int) -> list[list[int]]:
    return [indices[i:i + size] for i in range(0, len(indices), size)]


def run_here(run: StressRun, indices: list[int], limit: int, on_rows: OnRows, batch: int = 1) -> None:
    for chunk in batches(indices, batch):
        on_rows(play_many(run, chunk, limit))


def run_local(run: StressRun, indices: list[int], limit: int, on_rows: OnRows, *, workers: int, batch: int = 1) -> None:
    """Games in ``workers`` fresh processes (spawned: no state shared with this one)."""
    chunks = batches(indices, batch)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        pending = {pool.submit(play_many, run, chunk, limit) for chunk in chunks}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                if future.exception() is None:  # save every finished batch before reporting a death
                    on_rows(future.result())
            broken = [f for f in done if isinstance(f.exception(), BrokenProcessPool)]
            if broken:
                for future in pending:
                    future.cancel()
                raise WorkerDied("a worker process died; the games finished are saved: run the same command again "
                                 "to play the rest")
            for future in done:
                future.result()  # any other error in a game is a bug: let it show


def run_dask(run: StressRun, indices: list[int], limit: int, on_rows: OnRows, *, scheduler: str, batch: int = 1) -> None:
    """Games on the Dask cluster whose scheduler is at ``scheduler`` (e.g. ``tcp://host:8786``)."""
    try:
        from distributed import Client, as_completed
    except ImportError:  # pragma: no cover - distributed is a dependency
        raise FireplanError("--scheduler needs dask.distributed: pip install distributed") from None
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as error:
        raise FireplanError(f"--scheduler {scheduler}: cannot reach a Dask scheduler there ({error})") from None
    try:
        futures = [client.submit(play_many, run, chunk, limit, pure=False) for chunk in batches(indices, batch)]
        for future in as_completed(futures):
            on_rows(future.result())
    finally:
        client.close()
