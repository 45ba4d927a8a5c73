"""``judge time``: a bot's response times next to a reference built-in, as real processes."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT, TEST_BOTS


def judge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_time_a_builtin_against_the_roshambolo_reference() -> None:
    proc = judge("time", "counter", "--seed", "3", "-o", "rounds=2", "-o", "race_to=20")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "roshambolo (race_to=20, rounds=2), seed 3, seats: random, rock, BOT"
    assert lines[1].lstrip().startswith("random (reference)")
    assert lines[2].lstrip().startswith("counter ")
    # Which is faster varies from run to run; the sentence says which, never "0.8x slower".
    assert re.search(r"(\dx (slower|faster) than|about as fast as) random \(median", lines[3])


def test_time_an_rpscontest_program_as_json() -> None:
    program = TEST_BOTS / "original" / "rpscontest" / "freq.py"
    proc = judge("time", str(program), "--game", "rps", "--seed", "1", "-o", "turns=200", "--json")
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    assert figures["game"] == "rps" and figures["options"] == {"turns": 200}
    assert figures["reference"]["name"] == "random" and figures["bot"]["name"] == "freq"
    assert figures["reference"]["response"]["count"] == 200
    assert figures["bot"]["response"]["count"] == 200 and figures["bot"]["outcome"] == "ok"
    bot_median = figures["bot"]["response"]["median_ms"]
    reference_median = figures["reference"]["response"]["median_ms"]
    assert figures["ratio_median"] == round(bot_median / reference_median, 3)


def test_short_games_are_timed_over_several_matches() -> None:
    proc = judge("time", "robot", "--game", "liarsdice", "--seed", "4", "--matches", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    assert figures["matches"] == 2 and figures["seed"] == 4
    assert figures["reference"]["name"] == "computer" and figures["bot"]["name"] == "robot"
    assert figures["bot"]["response"]["count"] >= 2  # at least one liar call per match
    text = judge("time", "robot", "--game", "liarsdice", "--seed", "4", "--matches", "2")
    assert "2 matches per side, seeds 4..5, seats: BOT, computer, computer" in text.stdout


def test_a_disqualified_bot_fails_the_command() -> None:
    program = TEST_BOTS / "original" / "rpscontest" / "bad_output.py"
    proc = judge("time", str(program), "--game", "rps", "-o", "turns=50")
    assert proc.returncode == 1
    assert "bad_output was disqualified (invalid_order" in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["time", "rock", "--game", "chess"], "unknown game 'chess'"),
        (["time", "./no/such/bot"], "neither a file"),
        (["time", "rock", "-o", "race_to=0"], "race-to"),
        (["time", "rock", "--deadline", "0"], "--deadline"),
    ],
)
def test_bad_usage_is_one_clear_error(args: list[str], message: str) -> None:
    proc = judge(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
