"""Hostile files: every command that reads a scenario refuses each with one sentence and exit code 2, quickly."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.cli import main
from tests.conftest import MAPS

BAD = Path(__file__).resolve().parent.parent / "data" / "bad"
BAD_FILES = sorted(BAD.glob("*.json"))

#: Every command that reads a scenario file, as argv with ``{file}`` and ``{tmp}`` to fill in.
FILE_COMMANDS = {
    "check": ["check", "{file}"],
    "render": ["render", "{file}", "-o", "{tmp}/out.png"],
    "demo": ["demo", "--scenario", "{file}", "--out", "{tmp}/demo"],
    "play": ["play", "{file}", "--human", "us", "--save", "{tmp}/g.save.json"],
    "play --load": ["play", "--load", "{file}", "--save", "{tmp}/g.save.json"],
    "advise": ["advise", "{file}", "--side", "us"],
    "stress": ["stress", "{file}", "--games", "1", "--out", "{tmp}/stress", "--quiet"],
}


def _argv(template, file, tmp):
    return [part.format(file=file, tmp=tmp) for part in template]


def test_corpus_has_at_least_forty_files():
    assert len(BAD_FILES) >= 40


@pytest.mark.parametrize("command", sorted(FILE_COMMANDS))
@pytest.mark.parametrize("path", BAD_FILES, ids=[p.stem for p in BAD_FILES])
def test_hostile_file_is_refused_in_one_sentence(path, command, tmp_path, capsys):
    started = time.perf_counter()
    assert main(_argv(FILE_COMMANDS[command], path, tmp_path)) == 2
    assert time.perf_counter() - started < 10, "a hostile file must be refused in bounded time"
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert str(path) in err and "Traceback" not in err
    assert not (tmp_path / "out.png").exists()


def _write_large(tmp_path: Path, units: int) -> Path:
    data = json.loads((MAPS / "chq_saint_aubin.json").read_text())
    data["units"] = [{"id": f"u{i}", "card": "x", "side": "us"} for i in range(units)]
    path = tmp_path / f"units-{units}.json"
    path.write_text(json.dumps(data, separators=(",", ":")))
    return path


@pytest.mark.parametrize("units, words", [(100_000, "at most 2000 items"), (300_000, "at most 5 MB")])
def test_enormous_files_are_refused_quickly(tmp_path, capsys, units, words):
    path = _write_large(tmp_path, units)
    started = time.perf_counter()
    assert main(["check", str(path)]) == 2
    assert time.perf_counter() - started < 10
    assert words in capsys.readouterr().err


@pytest.mark.parametrize("units", [100_000, 300_000])
def test_enormous_files_are_refused_in_bounded_memory(tmp_path, units):
    """The refusal happens before the file is turned into objects: the process stays small."""
    path = _write_large(tmp_path, units)
    script = (
        "import sys\n"
        "from agent.cli import main\n"
        f"code = main(['check', {str(path)!r}])\n"
        "print(next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM')))\n"
        "sys.exit(code)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    peak_mb = int(result.stdout.split()[-1]) / 1024  # this process's peak resident memory, KiB (not the forking parent's)
    assert peak_mb < 400, f"refusing a {path.stat().st_size / 1e6:.1f} MB file peaked at {peak_mb:.0f} MB"


def test_the_installed_command_prints_no_traceback(tmp_path):
    for name in ("deeply-nested-arrays.json", "binary.json", "nan-literal.json"):
        result = subprocess.run(
            [sys.executable, "-m", "agent.cli", "check", str(BAD / name)], capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 2
        assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1


# ---------------------------------------------------------------------------- hostile saves
BAD_SAVES = sorted((BAD / "saves").glob("*.json"))

#: Every command that reads a save file.
SAVE_COMMANDS = {
    "play --load": ["play", "--load", "{file}"],
    "render": ["render", "{file}", "-o", "{tmp}/out.png"],
    "advise": ["advise", "{file}", "--side", "gb"],
}


@pytest.mark.parametrize("command", sorted(SAVE_COMMANDS))
@pytest.mark.parametrize("path", BAD_SAVES, ids=[p.stem for p in BAD_SAVES])
def test_hostile_save_is_refused_in_one_sentence_and_left_intact(path, command, tmp_path, capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("end\n"))
    before = path.read_bytes()
    assert main(_argv(SAVE_COMMANDS[command], path, tmp_path)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and "Traceback" not in err, err
    assert path.read_bytes() == before
    assert not (tmp_path / "out.png").exists()


def _good_save(tmp_path, monkeypatch, capsys):
    import io

    save = tmp_path / "good.save.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("hold gb-section-1\n"))
    assert main(["play", str(MAPS / "met_calm_bocage.json"), "--human", "gb", "--ai", "random", "--save", str(save)]) == 0
    capsys.readouterr()
    return save


def test_a_truncated_save_is_refused_and_the_previous_save_stays(tmp_path, monkeypatch, capsys):
    good = _good_save(tmp_path, monkeypatch, capsys)
    before = good.read_bytes()
    cut = tmp_path / "cut.save.json"
    cut.write_bytes(before[: len(before) // 2])
    assert main(["play", "--load", str(cut), "--save", str(good)]) == 2
    err = capsys.readouterr().err
    assert "is the file truncated?" in err and str(cut) in err and err.count("\n") == 1
    assert good.read_bytes() == before and cut.read_bytes() == before[: len(before) // 2]


def test_a_save_of_another_scenario_is_refused(tmp_path, monkeypatch, capsys):
    good = _good_save(tmp_path, monkeypatch, capsys)
    before = good.read_bytes()
    other = MAPS / "met_le_mesnil.json"
    assert main(["play", str(other), "--load", str(good)]) == 2
    err = capsys.readouterr().err
    assert f"is a save of {MAPS / 'met_calm_bocage.json'}, not of {other}" in err and err.count("\n") == 1
    assert good.read_bytes() == before


def test_a_scenario_given_as_a_save_is_refused(tmp_path, capsys):
    path = MAPS / "met_calm_bocage.json"
    assert main(["play", "--load", str(path), "--save", str(tmp_path / "g.save.json")]) == 2
    assert "a scenario file, not a save" in capsys.readouterr().err
    assert not (tmp_path / "g.save.json").exists()
