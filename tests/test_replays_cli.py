"""`judge replay` as a real process: playback, step mode on a terminal, plain, summary,
verify, export, and bad input (one clear line, the documented exit code, no traceback)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, builtin, misbehaving
from tests.replay_matches import record_sync
from tests.test_cli import judge


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "m.replay"
    record_sync(path, "rps", seed=3)
    return path


@pytest.fixture(scope="module")
def dq_replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "dq.replay.gz"
    record_sync(path, "rps", bots=[builtin("rps", "cycle"), misbehaving("illegal", 7)])
    return path


def body(path: Path) -> list[str]:
    return [ln for ln in path.read_text().splitlines() if not ln.startswith("#")]


def assert_clean_failure(proc: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr + proc.stdout
    message = proc.stderr.strip()
    for word in words:
        assert word in message, message


def test_playback_off_a_terminal_prints_every_turn_plainly(replay: Path) -> None:
    proc = judge("replay", str(replay))
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" not in proc.stdout  # no terminal codes into a pipe
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("rps · turns=") and "random vs predictor" in lines[0]
    turns = [
        ln
        for ln in lines
        if ln.strip()[:1].isdigit() and ("rock" in ln or "paper" in ln or "scissors" in ln)
    ]
    assert len(turns) == 60
    assert lines[-1].endswith(("wins", "Draw"))


def test_from_starts_at_the_given_turn(replay: Path) -> None:
    proc = judge("replay", str(replay), "--from", "58")
    assert proc.returncode == 0, proc.stderr
    numbered = [
        ln.split()[0]
        for ln in proc.stdout.splitlines()[1:]
        if ln.split() and ln.split()[0].isdigit()
    ]
    assert numbered[:3] == ["58", "59", "60"]


def test_plain_is_the_seed_body(replay: Path, dq_replay: Path) -> None:
    proc = judge("replay", str(replay), "--plain")
    assert proc.returncode == 0 and proc.stdout.splitlines() == body(replay)
    # compressed: the same body as reading it decompressed
    import gzip

    text = gzip.decompress(dq_replay.read_bytes()).decode()
    proc = judge("replay", str(dq_replay), "--plain")
    expected = [ln for ln in text.splitlines() if not ln.startswith("#")]
    assert proc.returncode == 0 and proc.stdout.splitlines() == expected and len(expected) == 6


def test_summary_shows_players_outcomes_and_versions(dq_replay: Path) -> None:
    proc = judge("replay", str(dq_replay), "--summary")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for words in (
        "cycle",
        "misbehave-illegal",
        "invalid_order",
        "(turn 7)",
        "response times",
        "seed",
        "sandbox",
        "judge version",
        "format version",
        "compression        gzip",
        "checksum           ok",
        "turns              6",
    ):
        assert words in out, words
    proc = judge("replay", str(dq_replay), "--summary", "--json")
    data = json.loads(proc.stdout)
    assert data["complete"] and data["turns"] == 6 and data["checksum"] is True
    assert data["disqualifications"] == [
        {
            "seat": 1,
            "turn": 7,
            "code": "invalid_order",
            "reason": data["result"]["players"][1]["reason"],
        }
    ]
    assert data["result"]["players"][0]["response"]["count"] == 7


def test_verify_exit_codes(replay: Path, tmp_path: Path) -> None:
    proc = judge("replay", str(replay), "--verify")
    assert proc.returncode == 0 and proc.stdout.startswith("OK: 60 turns")
    lines = replay.read_text().splitlines(keepends=True)
    a, b, x, y = lines[20].split()
    lines[20] = f"{b} {a} {x} {y}\n" if a != b else f"{int(a) + 1} {b} {x} {y}\n"
    bad = tmp_path / "bad.replay"
    bad.write_text("".join(lines))
    proc = judge("replay", str(bad), "--verify")
    assert proc.returncode == 1 and proc.stdout.startswith("MISMATCH at turn 20 (line 21)")
    proc = judge("replay", str(bad), "--verify", "--json")
    data = json.loads(proc.stdout)
    assert proc.returncode == 1 and data["difference"]["turn"] == 20 and not data["ok"]
    cut = tmp_path / "cut.replay"
    cut.write_text("".join(lines[:15]))
    proc = judge("replay", str(cut), "--verify")
    assert proc.returncode == 1 and proc.stdout.startswith("INCOMPLETE")


def test_a_truncated_replay_plays_back_as_incomplete(replay: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.replay"
    cut.write_bytes(replay.read_bytes()[:800])
    proc = judge("replay", str(cut))
    assert proc.returncode == 0, proc.stderr
    assert "incomplete: no final result" in proc.stdout


def test_export_writes_a_self_contained_page(replay: Path, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    proc = judge("replay", str(replay), "--export", "html", "--output", str(out))
    assert proc.returncode == 0 and f"wrote {out} (60 turns)" in proc.stdout
    page = out.read_text()
    assert "http://" not in page and "https://" not in page and " src=" not in page
    assert all(json.dumps(line) in page for line in body(replay))
    default = replay.with_name("m.html")
    proc = judge("replay", str(replay), "--export", "html")
    assert proc.returncode == 0 and default.exists()


BAD_EDITS = [
    (lambda t: t.replace('"game":"rps"', '"game":"chess"', 1), ["line 1", "unknown game 'chess'"]),
    (lambda t: t.replace('"version":2', '"version":7', 1), ["line 1", "version 7", "newer"]),
    (
        lambda t: t.replace("\n", "\n#oops {}\n", 3).replace("#oops {}\n", "", 2),
        ["line 4", "unknown line kind"],
    ),
    (lambda t: "\n".join(t.split("\n")[:5]) + "\n#result {broken\n", ["line 6", "invalid JSON"]),
    (lambda t: "garbage\n" + t, ["line 1", "not a judge replay"]),
]


def _bad(replay: Path, tmp_path: Path, edit: Callable[[str], str]) -> Path:
    bad = tmp_path / "bad.replay"
    bad.write_text(edit(replay.read_text()))
    return bad


@pytest.mark.parametrize(("edit", "words"), BAD_EDITS)
def test_bad_replays_get_one_clear_line_and_exit_1(
    replay: Path, tmp_path: Path, edit: Callable[[str], str], words: list[str]
) -> None:
    bad = _bad(replay, tmp_path, edit)
    proc = judge("replay", str(bad))
    assert_clean_failure(proc, 1, str(bad), *words)
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "mode", [["--plain"], ["--summary"], ["--verify"], ["--export", "html"], ["--follow"]]
)
def test_every_mode_refuses_an_unknown_game(replay: Path, tmp_path: Path, mode: list[str]) -> None:
    edit, words = BAD_EDITS[0]
    bad = _bad(replay, tmp_path, edit)
    proc = judge("replay", str(bad), *mode)
    assert_clean_failure(proc, 1, str(bad), *words)
    assert len(proc.stderr.strip().splitlines()) == 1


def test_an_altered_metadata_line_fails_its_checksum(replay: Path, tmp_path: Path) -> None:
    bad = tmp_path / "altered.replay"
    bad.write_text(replay.read_text().replace('"started":"', '"started":"x', 1))
    assert_clean_failure(judge("replay", str(bad), "--verify"), 1)
    proc = judge("replay", str(bad))
    assert_clean_failure(proc, 1, "checksum does not match")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["replay", "/no/such.replay"], ["does not exist"]),
        (["replay", "{dir}"], ["is a directory"]),
        (["replay", "{file}", "--verify", "--plain"], ["cannot be combined"]),
        (["replay", "{file}", "--json"], ["--json goes with"]),
        (["replay", "{file}", "--speed", "-1"], ["--speed"]),
        (["replay", "{file}", "--from", "0"], ["--from"]),
        (["replay", "{file}", "--export", "pdf"], ["pdf"]),
        (["replay", "{file}", "--output", "x.html"], ["--output goes with"]),
        (["replay", "{file}", "--idle-timeout", "1"], ["--follow"]),
    ],
)
def test_usage_errors_exit_2(
    replay: Path, tmp_path: Path, args: list[str], words: list[str]
) -> None:
    argv = [a.format(dir=tmp_path, file=replay) for a in args]
    assert_clean_failure(judge(*argv), 2, *words)


def _read_until(fd: int, needle: bytes, timeout: float = 20.0) -> bytes:
    seen = b""
    end = time.monotonic() + timeout
    while needle not in seen:
        left = end - time.monotonic()
        assert left > 0, f"never saw {needle!r} in {seen!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


def _drain(fd: int) -> bytes:
    data = b""
    while select.select([fd], [], [], 0.05)[0]:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    return data


def test_step_mode_on_a_terminal(replay: Path) -> None:
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "judge.cli", "replay", str(replay), "--step", "--from", "3"],
        stdin=child,
        stdout=child,
        stderr=child,
        cwd=ROOT,
        close_fds=True,
        env={**os.environ, "COLUMNS": "120", "TERM": "xterm"},
    )
    os.close(child)
    try:
        seen = _read_until(main, b"q: quit")
        seen += _read_until(main, b"     3 ")
        time.sleep(0.5)  # turn 3 is shown; without a key nothing more comes
        seen += _drain(main)
        assert b"     4 " not in seen and b"     2 " not in seen
        os.write(main, b" ")
        seen += _read_until(main, b"     4 ")
        # Keys typed faster than turns are drawn all count, none is lost or echoed.
        os.write(main, b"\r ")
        seen += _read_until(main, b"     6 ")
        time.sleep(0.3)
        seen += _drain(main)
        assert b"     7 " not in seen
        assert b"\r\n\r\n" not in seen  # no echo of the Enter key
        os.write(main, b"q")
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(main)
