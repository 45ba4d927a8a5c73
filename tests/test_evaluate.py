"""`judge evaluate`: one pairing over many matches, seats alternated, seeds varied."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.evaluate import wilson_interval
from tests.test_cli import judge


def test_wilson_interval_matches_the_textbook_figures() -> None:
    low, high = wilson_interval(7, 10)
    assert (round(low, 3), round(high, 3)) == (0.397, 0.892)
    assert wilson_interval(0, 5)[0] == 0.0 and wilson_interval(5, 5)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_evaluate_alternates_seats_varies_seeds_and_counts_for_each_side(tmp_path: Path) -> None:
    proc = judge(
        "evaluate",
        "rps",
        "paper",
        "rock",
        "-n",
        "6",
        "--turns",
        "10",
        "--seed",
        "4",
        "--replays",
        str(tmp_path / "r"),
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["episodes"] == 6
    assert [m["seat_of_a"] for m in result["matches"]] == [0, 1, 0, 1, 0, 1]
    assert len({m["seed"] for m in result["matches"]}) == 6
    a, b = result["a"], result["b"]
    assert (a["name"], a["wins"], a["draws"], a["losses"]) == ("paper", 6, 0, 0)
    assert (b["name"], b["wins"], b["losses"]) == ("rock", 0, 6)
    assert a["win_rate"] == 1.0 and a["win_rate_ci95"][0] > 0.5
    assert a["mean_score"] == 10 and b["mean_score"] == 0
    assert a["response"]["count"] == 60
    assert len(list((tmp_path / "r").glob("*.replay"))) == 6
    # The replays really have A in alternating seats.
    first = (tmp_path / "r" / "0002.replay").read_text().splitlines()[0]
    assert '"seat":0,"label":"1","name":"rock"' in first


def test_evaluate_prints_a_table_and_a_verdict() -> None:
    proc = judge("evaluate", "rps", "paper", "rock", "-n", "4", "--turns", "5")
    assert proc.returncode == 0, proc.stderr
    assert "4-0-0" in proc.stdout and "0-0-4" in proc.stdout
    assert "A (paper) is the stronger bot" in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["rps", "paper", "nosuch"], "neither a file"),
        (["rps", "paper", "rock", "-n", "0"], "--episodes"),
        (["rps", "paper", "rock", "--executor", "warp"], "unknown executor"),
    ],
)
def test_evaluate_bad_usage(args: list[str], message: str) -> None:
    proc = judge("evaluate", *args)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
