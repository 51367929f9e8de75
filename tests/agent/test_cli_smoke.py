"""``fireplan smoke met``: the screen of the engine, period by period; bad arguments are one line and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import shapely
from shapely.geometry import shape

from agent.cli import main
from engine.rulesets.met.smoke import artillery_smoke

BASE = ["smoke", "met", "--poa", "500,500", "--line-of-fire", "0", "--wind-from", "270"]


def run(argv):
    try:
        return main(argv)
    except SystemExit as exit:
        return exit.code


def report(capsys, *argv):
    assert run([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def areas(period):
    return sorted((s["density"], round(shape(s["polygon"]).area)) for s in period["screens"])


def test_met_3_cli_json_normal_wind(capsys):
    data = report(capsys, *BASE, "--wind-kts", "10")
    assert data["laid"] is True and "reason" not in data
    assert data["wind_band"] == "normal" and data["rule"] == "MET-4"
    assert [p["period"] for p in data["periods"]] == [1, 2, 3, 4, 5]
    assert [areas(p) for p in data["periods"]] == [
        [("partial", 40_000)],
        [("full", 30_000), ("partial", 10_000)],
        [("full", 30_000), ("partial", 10_000)],
        [("partial", 40_000)],
        [],
    ]
    whole = shape(data["periods"][0]["screens"][0]["polygon"])
    assert whole.bounds == pytest.approx((400, 450, 800, 550))  # long axis east-west, downwind of the POA
    full = shape(next(s for s in data["periods"][1]["screens"] if s["density"] == "full")["polygon"])
    assert full.bounds == pytest.approx((500, 450, 800, 550))
    polygon = data["periods"][0]["screens"][0]["polygon"]
    assert polygon["type"] == "Polygon" and polygon["coordinates"][0][0] == polygon["coordinates"][0][-1]


def test_met_3_cli_matches_the_engine(capsys):
    data = report(capsys, *BASE[:-1], "33", "--wind-kts", "12", "--rain", "--type", "WP", "--beaten-zone", "150x120",
                  "--line-of-fire", "80")
    laying = artillery_smoke((500, 500), 80, (150, 120), 33, 12, True, "WP")
    periods = laying.by_period()
    assert len(data["periods"]) == len(periods) + 1
    for entry, screens in zip(data["periods"], periods):
        assert [s["density"] for s in entry["screens"]] == [d.value for d, _ in screens]
        for s, (_, polygon) in zip(entry["screens"], screens):
            assert shape(s["polygon"]).symmetric_difference(polygon).area < 1e-3
    assert data["inputs"]["type"] == "WP" and data["inputs"]["rain"] is True


def test_met_6_cli_rain_full_in_the_period_of_laying(capsys):
    data = report(capsys, *BASE, "--wind-kts", "10", "--rain")
    assert areas(data["periods"][0]) == [("full", 30_000), ("partial", 10_000)]


def test_met_5_cli_calm(capsys):
    data = report(capsys, *BASE, "--wind-kts", "3")
    assert data["wind_band"] == "calm"
    assert [areas(p) for p in data["periods"]] == [[("partial", 20_000)]] * 5 + [[]]
    zone = shape(data["periods"][0]["screens"][0]["polygon"])
    assert zone.bounds == pytest.approx((400, 450, 600, 550))  # the beaten zone itself, on the line of fire


def test_met_5_cli_strong(capsys):
    data = report(capsys, *BASE, "--wind-kts", "22")
    assert data["wind_band"] == "strong"
    assert [areas(p) for p in data["periods"]] == [
        [("full", 20_000), ("partial", 20_000)],
        [("partial", 40_000)],
        [],
    ]


@pytest.mark.parametrize("knots", ["31", "45.5"])
def test_met_5_cli_too_strong_cannot_be_laid(capsys, knots):
    data = report(capsys, *BASE, "--wind-kts", knots)
    assert data["laid"] is False and data["periods"] == []
    assert "cannot be laid" in data["reason"] and "MET-5" in data["reason"]


def test_met_4_cli_readable_table(capsys):
    assert run([*BASE, "--wind-kts", "10"]) == 0
    out = capsys.readouterr().out
    assert "40,000" in out and "30,000" in out and "10,000" in out
    assert "gone" in out and "normal" in out and "90°" in out
    assert run([*BASE, "--wind-kts", "31"]) == 0
    assert "cannot be laid" in capsys.readouterr().out


def test_met_4_cli_png(tmp_path, capsys):
    path = tmp_path / "screen.png"
    assert run([*BASE, "--wind-kts", "10", "--png", str(path)]) == 0
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    assert f"wrote {path}" in capsys.readouterr().out
    calm = tmp_path / "calm.png"
    assert run([*BASE, "--wind-kts", "31", "--png", str(calm), "--json"]) == 0
    assert calm.read_bytes()[:4] == b"\x89PNG"
    assert json.loads(capsys.readouterr().out)["laid"] is False


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--poa", "500"], "expected a point X,Y"),
        (["--poa", "a,b"], "expected a point X,Y"),
        (["--wind-kts", "-3"], "wind speed from 0 to 200"),
        (["--wind-kts", "nan"], "finite"),
        (["--wind-from", "400"], "bearing from 0 to 360"),
        (["--line-of-fire", "north"], "bearing in degrees"),
        (["--beaten-zone", "0x100"], "positive metres"),
        (["--beaten-zone", "200"], "WIDTHxDEPTH"),
        (["--type", "HE"], "BE or WP"),
    ],
)
def test_met_cli_bad_arguments_are_one_line_and_exit_2(capsys, extra, words):
    argv = ["smoke", "met", "--poa", "500,500", "--line-of-fire", "0", "--wind-from", "270", "--wind-kts", "10"]
    for i in range(0, len(extra), 2):
        flag = extra[i]
        if flag in argv:
            argv[argv.index(flag) + 1] = extra[i + 1]
        else:
            argv += extra[i : i + 2]
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert words in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--png", "/no/such/folder/x.png"], "does not exist"),
        (["--png", "screen.jpg"], "ending in .png"),
    ],
)
def test_met_cli_bad_png_path(capsys, extra, words):
    assert run([*BASE, "--wind-kts", "10", *extra]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


CLI = [sys.executable, "-c", "import sys; from agent.cli import main; sys.exit(main())"]


def test_met_cli_missing_arguments_and_no_traceback():
    result = subprocess.run([*CLI, "smoke", "met", "--poa", "1,2"], capture_output=True, text=True)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "required" in result.stderr
    result = subprocess.run(
        [*CLI, "smoke", "met", "--poa", "1,2", "--line-of-fire", "0", "--wind-from", "0",
         "--wind-kts", "10", "--png", "/proc/forbidden.png"],
        capture_output=True, text=True,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_met_cli_geojson_is_valid_shapely():
    import io
    from contextlib import redirect_stdout

    buffer = io.StringIO()
    with redirect_stdout(buffer):
        assert main([*BASE, "--wind-kts", "8", "--line-of-fire", "0", "--json"]) == 0
    for period in json.loads(buffer.getvalue())["periods"]:
        for screen in period["screens"]:
            assert shapely.is_valid(shape(screen["polygon"]))


@pytest.mark.parametrize("argv", [["smoke"], ["smoke", "chq", "--poa", "1,1"]])
def test_met_cli_ruleset_missing_or_unknown_is_one_line(capsys, argv):
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "RULESET" in err
