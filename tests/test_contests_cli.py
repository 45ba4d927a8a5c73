"""`judge contest` and `judge submit --contest` against a real `judge serve`: a contest made
from a TOML file that closes 45 s later, two entrants, the results, the archive verified."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.server_helpers import ROOT, ServerProcess, running_server, wait_for
from tests.test_contests import FIXED_BOT

WINDOW = 45.0  # seconds the contest is open: room for two uploads on a busy machine


def judge(server: ServerProcess, token: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JUDGE_SERVER": server.url}
    env.pop("JUDGE_TOKEN", None)
    if token:
        env["JUDGE_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    data = tmp_path_factory.mktemp("contest-cli") / "data"
    with running_server(data, "--concurrency", "2") as running:
        yield running


def stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_contest_commands(server: ServerProcess, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\ngame = "rps"\nopens = 2030-01-01T00:00:00Z\n')
    refused = judge(server, server.admin_token, "contest", "create", str(bad))
    assert refused.returncode == 2 and "closes: Field required" in refused.stderr

    now = time.time()
    definition = tmp_path / "contest.toml"
    definition.write_text(
        f"""name = "cli-class"
title = "CLI class"
game = "rps"
opens = {stamp(now - 5)}
closes = {stamp(now + WINDOW)}
submissions_per_day = 3
publish_files = true
rules = "Play **rps**."

[options]
turns = 20

[final]
games_per_pair = 2
"""
    )
    made = judge(server, server.admin_token, "contest", "create", str(definition))
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("created cli-class: open")
    listed = judge(server, None, "contest", "list")
    assert "cli-class" in listed.stdout and "open" in listed.stdout

    admin = server.client(server.admin_token)
    tokens = {
        u: admin.post("/api/users", json={"name": u}).json()["token"] for u in ("alice", "bob")
    }
    # bob: `judge contest submit`.
    rock = tmp_path / "rock.py"
    rock.write_text(FIXED_BOT.format(move="R"))
    submitted = judge(server, tokens["bob"], "contest", "submit", "cli-class", str(rock))
    assert submitted.returncode == 0, submitted.stderr
    assert "submitted bob-cli-class@1 to cli-class" in submitted.stdout
    # alice: a directory whose bot.toml names the contest, through `judge submit`.
    bot_dir = tmp_path / "alicebot"
    bot_dir.mkdir()
    (bot_dir / "bot.py").write_text(FIXED_BOT.format(move="P"))
    (bot_dir / "bot.toml").write_text('run = "python3 bot.py"\ncontest = "cli-class"\n')
    entered = judge(server, tokens["alice"], "submit", str(bot_dir))
    assert entered.returncode == 0, entered.stderr
    assert "entered into cli-class; 2 submissions left today" in entered.stdout
    assert "ready" in entered.stdout
    shown = judge(server, None, "contest", "show", "cli-class")
    assert shown.returncode == 0 and "board:" in shown.stdout

    client = server.client()
    wait_for(
        lambda: client.get("/api/contests/cli-class").json()["phase"] in ("finished", "error"),
        timeout=WINDOW + 240,
    )
    shown = judge(server, None, "contest", "show", "cli-class")
    assert "final round: 2/2 matches" in shown.stdout, shown.stdout
    assert "alice-cli-class@1" in shown.stdout and "[" in shown.stdout

    archive = tmp_path / "cli.tar.gz"
    fetched = judge(server, None, "contest", "archive", "cli-class", "-o", str(archive))
    assert fetched.returncode == 0 and archive.stat().st_size > 0, fetched.stderr
    checked = judge(
        server, None, "contest", "verify", str(archive), "--replay-matches", "1", "--json"
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert report["ok"] and report["replays_verified"] == 2 and report["replayed"] == 1
