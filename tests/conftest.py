from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from judge.bots import resolve
from judge.models import BotSpec, MatchSpec

ROOT = Path(__file__).resolve().parent.parent
TEST_BOTS = Path(__file__).resolve().parent / "bots"


def processes_running(marker: str) -> list[str]:
    """Command lines of live processes (zombies excluded) that mention ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(f"{entry}: {cmdline}")
    return found


def misbehaving(mode: str, turn: int = 1) -> BotSpec:
    script = TEST_BOTS / "misbehave.py"
    return BotSpec(name=f"misbehave-{mode}", argv=(sys.executable, str(script), mode, str(turn)))


def builtin(game: str, name: str) -> BotSpec:
    return resolve(name, game)


def rps_spec(*bots: BotSpec, turns: int = 20, seed: int = 1, **kw: object) -> MatchSpec:
    return MatchSpec(game="rps", bots=list(bots), seed=seed, options={"turns": turns}, **kw)


@pytest.fixture
def no_leftovers():
    """Fails the test if any misbehaving bot process outlives it."""
    yield
    leftovers = processes_running(str(TEST_BOTS / "misbehave.py"))
    assert not leftovers, f"bot processes left alive: {leftovers}"


# For scripts run inside a sandbox: attempt(what, action) prints "what ok" or "what <errno>".
ATTEMPT = (
    "def attempt(what, action):\n"
    "    try:\n"
    "        action()\n"
    "        print(what, 'ok')\n"
    "    except OSError as exc:\n"
    "        print(what, exc.errno)\n"
)
