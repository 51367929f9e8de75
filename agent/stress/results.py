"""A run's results on disk: ``run.json`` (what the run is) and ``games.csv`` (a row a game).

Rows are appended and flushed to disk as each game's result arrives, so a worker, a machine
or the whole run dying loses no finished game; a rerun with the same ``--out`` reads what is
there and plays only the games missing. A last line cut off mid-write is dropped (that game is
played again). A directory holding another run's results is refused rather than mixed.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

from engine.errors import FireplanError

from .spec import StressRun

__all__ = ["ResultsDir"]


class ResultsDir:
    """The ``--out`` directory of one run."""

    def __init__(self, path: str | Path, run: StressRun, columns: list[str]):
        self.path = Path(path)
        self.run = run
        self.columns = columns
        self.games = self.path / "games.csv"
        self.meta = self.path / "run.json"

    # ------------------------------------------------------------------ opening
    def open(self) -> dict[int, dict]:
        """Create or reopen the directory; return the rows already there, by game index."""
        if self.path.exists() and not self.path.is_dir():
            raise FireplanError(f"--out {self.path}: exists and is not a directory")
        self.path.mkdir(parents=True, exist_ok=True)
        if self.meta.exists():
            try:
                saved = json.loads(self.meta.read_text(encoding="utf-8"))
            except (OSError, ValueError, UnicodeDecodeError):
                raise FireplanError(f"{self.meta}: not a fireplan stress run file (unreadable JSON)") from None
            if not isinstance(saved, dict) or not self.run.same_games(saved):
                raise FireplanError(f"--out {self.path}: holds another run ({_differences(saved, self.run.describe())}); "
                                    "give another --out or the same options to resume it")
        else:
            self.meta.write_text(json.dumps(self.run.describe(), indent=2) + "\n", encoding="utf-8")
        rows = self._read()
        self._rewrite(rows)  # drop a line cut off mid-write, keep the header right
        return rows

    def _read(self) -> dict[int, dict]:
        if not self.games.exists():
            return {}
        text = self.games.read_text(encoding="utf-8", errors="replace")
        if not text.endswith("\n"):
            text = text[: text.rfind("\n") + 1]  # the last line was cut off mid-write
        reader = csv.DictReader(io.StringIO(text))
        if reader.fieldnames and list(reader.fieldnames) != self.columns:
            raise FireplanError(f"{self.games}: its columns are not this run's; give another --out")
        rows = {}
        for row in reader:
            try:
                rows[int(row["index"])] = row
            except (KeyError, TypeError, ValueError):
                raise FireplanError(f"{self.games}: line {reader.line_num}: expected a game index, got {row.get('index')!r}") from None
        return rows

    def _rewrite(self, rows: dict[int, dict]) -> None:
        temporary = self.games.with_suffix(".csv.tmp")
        with temporary.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, self.columns)
            writer.writeheader()
            for index in sorted(rows):
                writer.writerow(rows[index])
        os.replace(temporary, self.games)

    # ------------------------------------------------------------------ appending
    def append(self, rows: list[dict]) -> None:
        """Write finished games at once, to disk (flushed and synced)."""
        with self.games.open("a", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, self.columns)
            for row in rows:
                writer.writerow(row)
            handle.flush()
            os.fsync(handle.fileno())


def _differences(saved, mine: dict) -> str:
    if not isinstance(saved, dict):
        return "unreadable"
    changed = [f"{key} {saved.get(key)!r} there, {mine[key]!r} now" for key in mine if key != "games" and saved.get(key) != mine[key]]
    return "; ".join(changed) or "unreadable"
