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


# What each test module needs and costs, so a developer can run a part:
#   uv run pytest -m "not slow"      the fast suite (pure code and single quick matches)
#   uv run pytest -m browser         the Chromium page tests
# Slow modules start servers, browsers, clusters, hostile bots or many matches.
MODULE_MARKERS: dict[str, tuple[str, ...]] = {
    "test_bench": ("slow",),
    "test_bot_python": ("slow",),
    "test_cli": ("slow",),
    "test_cli_rough_edges": ("slow",),
    "test_collusion": ("slow",),
    "test_contests": ("slow",),
    "test_contests_browser": ("slow", "browser"),
    "test_contests_cli": ("slow",),
    "test_contests_postgres": ("slow", "postgres"),
    "test_container": ("slow", "container"),
    "test_corpus_rpscontest": ("slow",),
    "test_evaluate": ("slow",),
    "test_executors": ("slow", "dask"),
    "test_cluster_access": ("slow", "dask"),
    "test_fresh_machine": ("slow",),
    "test_hostile": ("slow",),
    "test_kaggle_oracle": ("slow",),
    "test_kits_compiled": ("slow",),
    "test_not_linux": ("slow",),
    "test_launcher_arm64": ("slow",),
    "test_new_user_cli": ("slow",),
    "test_new_user_pages": ("slow", "browser"),
    "test_new_user_server_pages": ("slow", "browser"),
    "test_parallel": ("slow",),
    "test_play": ("slow",),
    "test_replays_browser": ("slow", "browser"),
    "test_replays_cli": ("slow",),
    "test_replays_follow": ("slow",),
    "test_runner": ("slow",),
    "test_sandbox": ("slow",),
    "test_server_abuse": ("slow",),
    "test_server_api": ("slow",),
    "test_server_browser": ("slow", "browser"),
    "test_server_charts": ("slow", "browser"),
    "test_server_e2e": ("slow",),
    "test_server_executor": ("slow", "dask"),
    "test_server_faults": ("slow", "postgres"),
    "test_server_pages_ux": ("slow", "browser"),
    "test_server_postgres": ("slow", "postgres"),
    "test_server_security": ("slow",),
    "test_server_source": ("slow",),
    "test_server_storage": ("slow",),
    "test_timing": ("slow",),
    "test_tournament": ("slow",),
    "test_viewer_games": ("slow", "browser"),
    "test_wheel": ("slow",),
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for name in MODULE_MARKERS.get(item.path.stem, ()):
            item.add_marker(name)
