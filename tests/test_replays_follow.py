"""Following a replay while a real match writes it, in process (trio) and as `judge replay -f`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import trio

from judge.models import BotSpec
from replays.export import record_line
from replays.reader import Record, ReplayReader, Result, Turn
from tests.conftest import ROOT, builtin, misbehaving
from tests.replay_matches import record

# The slow bot answers after 0.5 s every turn, so the match lasts a few seconds.
TURNS = 5


def slow_match_bots() -> list[BotSpec]:
    return [builtin("rps", "cycle"), misbehaving("slow", 1)]


def judge_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "judge.cli", *args]


@pytest.mark.parametrize("suffix", ["", ".gz", ".zst"])
async def test_async_follower_sees_turns_while_the_match_runs(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"live.replay{suffix}"
    seen: list[tuple[Record, bool]] = []
    running = True

    async def follow() -> None:
        async for rec in ReplayReader(path, follow=True, poll_interval=0.02):
            seen.append((rec, running))

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(follow)  # before the file exists: it waits for it
            await trio.sleep(0.1)
            result = await record(path, "rps", bots=slow_match_bots(), options={"turns": TURNS})
            running = False
    assert result.turns == TURNS and result.players[1].outcome == "ok"
    records = [rec for rec, _ in seen]
    assert [record_line(r) for r in records] == [record_line(r) for r in ReplayReader(path)]
    assert isinstance(records[-1], Result)
    early = [rec.number for rec, live in seen if isinstance(rec, Turn) and live]
    assert early and early[0] == 1, f"no turn arrived while the match ran: {seen}"


async def _follow_command(tmp_path: Path, suffix: str, *args: str) -> tuple[int, str, str, Path]:
    path = tmp_path / f"live.replay{suffix}"
    done: dict[str, subprocess.CompletedProcess[bytes]] = {}

    async def follower() -> None:
        done["proc"] = await trio.run_process(
            judge_argv("replay", str(path), "--follow", *args),
            capture_stdout=True,
            capture_stderr=True,
            check=False,
            cwd=ROOT,
        )

    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(follower)
            await trio.sleep(0.5)  # the follower is up and waiting for the file
            assert not path.exists()
            await record(path, "rps", bots=slow_match_bots(), options={"turns": TURNS})
    proc = done["proc"]
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode(), path


@pytest.mark.parametrize("suffix", ["", ".zst"])
async def test_follow_plain_prints_the_body_as_it_is_written(tmp_path: Path, suffix: str) -> None:
    code, out, err, path = await _follow_command(tmp_path, suffix, "--plain")
    assert code == 0, err
    body = [r.line for r in ReplayReader(path) if isinstance(r, Turn)]
    assert out.splitlines() == body and len(body) == TURNS


async def test_follow_verify_checks_a_running_match(tmp_path: Path) -> None:
    code, out, err, _ = await _follow_command(tmp_path, ".gz", "--verify")
    assert code == 0, err
    assert out.startswith(f"OK: {TURNS} turns")


async def test_follow_playback_stops_at_the_result(tmp_path: Path) -> None:
    code, out, err, _ = await _follow_command(tmp_path, "")
    assert code == 0, err
    assert "cycle" in out and "misbehave-slow" in out
    assert out.rstrip().splitlines()[-1] in ("Draw", "cycle wins", "misbehave-slow wins")


async def test_follow_gives_up_on_a_dead_match_after_the_idle_timeout(tmp_path: Path) -> None:
    path = tmp_path / "dead.replay"
    await record(path, "rps")
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:10]))  # the writer died after 9 turns
    proc = await trio.run_process(
        judge_argv("replay", str(path), "--follow", "--plain", "--idle-timeout", "0.5"),
        capture_stdout=True,
        capture_stderr=True,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0
    assert len(proc.stdout.decode().splitlines()) == 9
    assert "incomplete" in proc.stderr.decode() and "0.5 s" in proc.stderr.decode()
