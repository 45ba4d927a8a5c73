"""A .py bot file is analysed once per content, in a bounded child (judge/analysis.py): a
source too deep, too large or too costly is a clear BotError, never an exception out of the
judge; the CLI caches what it decided. Real child processes and real `judge` commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from judge import adapters
from judge.analysis import SourceLimits, SourceRefused, analyse
from judge.bots import BotError, resolve
from tests.conftest import ROOT, TEST_BOTS

DEEP = {
    # Python's parser gives up on these: RecursionError ("during ast construction")...
    "a long sum": "x = " + "+".join(["1"] * 100_000) + "\n",
    "a long attribute chain": "x = a" + ".b" * 100_000 + "\n",
    # ... and MemoryError (its own stack is full)
    "nested unary minus": "x = " + "-" * 100_000 + "1\n",
}


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Analyses and translations in a cache of this test's own, empty at its start."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_a_deeply_nested_source_is_refused_with_its_reason(tmp_path: Path, shape: str) -> None:
    path = tmp_path / "deep.py"
    path.write_text(DEEP[shape])
    with pytest.raises(BotError) as refused:
        resolve(str(path), "rps")
    assert str(refused.value).startswith(
        "deep.py cannot be analysed: it is nested too deeply for Python to parse"
    )


def test_a_source_over_the_size_limit_is_refused_unparsed(tmp_path: Path) -> None:
    path = tmp_path / "huge.py"
    line = "x = 1\n"
    path.write_text(line * ((SourceLimits().source_bytes // len(line)) + 1))
    with pytest.raises(SourceRefused, match=r"huge\.py is larger than 1048576 bytes"):
        resolve(str(path), "rps")
    assert not list((tmp_path / "cache").rglob("*.json"))  # nothing analysed


def test_a_source_that_needs_more_cpu_than_allowed_is_refused(tmp_path: Path) -> None:
    # Python 2, so translated: lib2to3 needs seconds of CPU for this.
    path = tmp_path / "costly.py"
    path.write_text("".join(f"def f{i}(a):\n    print a, {i}\n" for i in range(5000)))
    with pytest.raises(SourceRefused) as refused:
        analyse(path, "rps", None, SourceLimits(cpu_seconds=1))
    assert str(refused.value) == (
        "costly.py cannot be analysed: it needs more than 1 s of CPU (or 2048 MiB of memory), "
        "the most the judge spends on a source"
    )


def test_a_source_that_needs_more_memory_than_allowed_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "wide.py"
    body = "".join(f"def f{i}(a, b):\n    return a + b * {i}\n\n" for i in range(24_000))
    path.write_text(body)
    assert len(body) < SourceLimits().source_bytes
    with pytest.raises(SourceRefused, match=r"^wide\.py cannot be analysed: .* 150 MiB"):
        analyse(path, "rps", None, SourceLimits(memory_bytes=150 << 20))


def test_a_missing_translation_is_made_again(tmp_path: Path) -> None:
    path = tmp_path / "p_py2_freq.py"
    path.write_bytes((TEST_BOTS / "py2" / "p_py2_freq.py").read_bytes())
    first = analyse(path, "liarsdice", None)
    assert first.analysis.python == 2 and first.translation is not None
    first.translation.unlink()
    argv = adapters.argv_for(path, "liarsdice", None)
    assert argv[-2] == "--python2" and Path(argv[-1]).is_file()


def judge_match(bot: Path, cache: Path) -> tuple[dict[str, object], list[str]]:
    """A real ``judge match`` of ``bot`` against rock: its JSON result and its log events."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "judge.cli",
            "--log-level",
            "info",
            "match",
            "rps",
            str(bot),
            "rock",
            "--turns",
            "20",
            "--seed",
            "3",
            "--sandbox",
            "none",
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "XDG_CACHE_HOME": str(cache)},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    events = []
    for line in proc.stderr.splitlines():
        try:
            events.append(str(json.loads(line)["event"]))
        except (ValueError, KeyError, TypeError):
            continue
    return json.loads(proc.stdout), events


def scores(result: dict[str, object]) -> list[tuple[object, object]]:
    players = result["players"]
    assert isinstance(players, list)
    return [(p["score"], p["outcome"]) for p in players]


def test_the_cli_analyses_each_content_once(tmp_path: Path, own_cache: Path) -> None:
    # A Python 2 rpscontest entry: detected, translated, and its translation found again.
    bot = tmp_path / "decay.py"
    source = (TEST_BOTS / "py2" / "rps_py2_decay.py").read_text()
    bot.write_text(source)
    first, first_events = judge_match(bot, own_cache)
    assert first_events.count("source analysed") == 1
    again, again_events = judge_match(bot, own_cache)
    assert "source analysed" not in again_events  # from the cache
    assert scores(again) == scores(first)  # and the same bot: the same moves
    bot.write_text(f"{source}\n# {uuid.uuid4()}\n")  # new content: analysed anew
    _, changed_events = judge_match(bot, own_cache)
    assert changed_events.count("source analysed") == 1
