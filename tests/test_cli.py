"""The judge command, run as a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT


def judge(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_match_json_result_and_replay(tmp_path: Path) -> None:
    replay = tmp_path / "out.replay"
    proc = judge(
        "match",
        "rps",
        "rock",
        "paper",
        "--turns",
        "50",
        "--seed",
        "7",
        "--replay",
        str(replay),
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["game"] == "rps" and result["seed"] == 7 and result["turns"] == 50
    assert [p["name"] for p in result["players"]] == ["rock", "paper"]
    assert [p["score"] for p in result["players"]] == [0, 50]
    assert [p["outcome"] for p in result["players"]] == ["ok", "ok"]
    assert result["winner"] == 1 and result["draw"] is False
    assert result["players"][0]["response"]["count"] == 50
    assert result["replay"] == str(replay)
    lines = replay.read_text().splitlines()
    assert lines[0].startswith("#judge-replay ")
    assert lines[1] == "0 1 R P" and lines[50] == "0 50 R P"
    assert lines[-1].startswith("#result ")


def test_replay_plain_is_the_seed_format(tmp_path: Path) -> None:
    replay = tmp_path / "m.replay"
    played = judge("match", "rps", "cycle", "rock", "--turns", "4", "--replay", str(replay))
    assert played.returncode == 0
    proc = judge("replay", str(replay), "--plain")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["0 0 R R", "1 0 P R", "1 1 S R", "1 1 R R"]


def test_match_between_languages() -> None:
    proc = judge(
        "match",
        "rps",
        "./bots/examples/c/rps_bot",
        "node bots/examples/js/rps.js",
        "--turns",
        "30",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert [p["outcome"] for p in result["players"]] == ["ok", "ok"]
    assert sum(p["score"] for p in result["players"]) <= 30


def test_human_readable_output_names_the_winner() -> None:
    proc = judge("match", "rps", "rock", "paper", "--turns", "5")
    assert proc.returncode == 0, proc.stderr
    assert "paper wins" in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "chess", "rock", "paper"], "unknown game 'chess'"),
        (["match", "rps", "rock", "./no/such/bot"], "neither a file"),
        (["match", "rps", "rock", "README.md"], "neither an executable"),
        (["match", "rps", "rock", "paper", "--turns", "0"], "--turns"),
        (["match", "rps", "rock", "paper", "--turns", "many"], "many"),
        (["match", "rps", "rock"], "takes 2 bots"),
        (["match", "rps", "rock", "paper", "--deadline", "0"], "--deadline"),
        (["match", "rps", "rock", "nosuchprogram --flag"], "not a program"),
        (["match", "rps", "rock", "paper", "-o", "turns"], "KEY=VALUE"),
        (["match", "rps", "rock", "paper", "-o", "colour=red"], "colour"),
    ],
)
def test_bad_usage_is_one_clear_error_and_exit_2(args: list[str], message: str) -> None:
    proc = judge(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bots_lists_builtins() -> None:
    proc = judge("bots", "rps")
    assert proc.returncode == 0
    for name in ("rock", "paper", "scissors", "cycle", "random", "predictor"):
        assert name in proc.stdout


def test_help_everywhere() -> None:
    for args in (["--help"], ["match", "--help"], ["bots", "--help"], ["replay", "--help"]):
        proc = judge(*args)
        assert proc.returncode == 0 and "Usage" in proc.stdout


def test_match_with_more_bots_than_seats_plays_every_pair(tmp_path: Path) -> None:
    js = ROOT / "bots/examples/js/rps.js"
    bots = [str(ROOT / "bots/examples/c/rps_bot"), f"node {js}", "rock"]
    proc = judge("match", "rps", *bots, "--turns", "40", "--seed", "3", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert len(result["matches"]) == 3
    assert {s["name"] for s in result["standings"]} == {"rps_bot", "rps", "rock"}
    rock = next(s for s in result["standings"] if s["name"] == "rock")
    assert rock["rank"] == 3  # both others counter a constant bot
    assert "every pair" in proc.stderr
    assert judge("match", "rps", *bots, "--replay", "x.replay", cwd=tmp_path).returncode == 2


def test_watching_an_unreachable_server_fails_instead_of_retrying_forever() -> None:
    proc = judge("remote", "watch", "m1", "--server", "http://127.0.0.1:1")
    assert proc.returncode == 1
    assert "cannot reach http://127.0.0.1:1" in proc.stderr
    assert "Traceback" not in proc.stderr
