"""The judge off Linux (docs/portability.md).

It is played here, on Linux, by a child Python that first hides what another system
lacks: the modules Windows has not (fcntl, termios, resource), the os functions only Linux
has (affinity, pidfd, pipe2, waitid before 3.13 on macOS...), the judge's Linux-only modules
(the launcher, cgroups, the namespaced sandbox), and says ``sys.platform`` is "darwin".
Its third-party libraries are imported first: they carry their own macOS support.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, TEST_BOTS

HIDDEN_MODULES = (
    "fcntl",
    "termios",
    "resource",
    "judge.sandbox.isolated",
    "judge.sandbox.cgroups",
    "judge.sandbox.forkserver",
    "judge.sandbox.launcher",
    "judge.sandbox.templates",
    "judge.sandbox.skeleton",
)
HIDDEN_OS = (
    "sched_setaffinity",
    "sched_getaffinity",
    "sched_setscheduler",
    "sched_getscheduler",
    "SCHED_BATCH",
    "pidfd_open",
    "pipe2",
    "waitid",
    "memfd_create",
    "eventfd",
    "splice",
    "setns",
    "unshare",
)

# Run as the child's main script (PYTHONPATH: the judge), ``judge ARGS...`` after it. The
# local executor's workers import it again as their main module: they are "not Linux" too.
NOT_LINUX = f"""
import importlib.abc, os, sys, sysconfig
sysconfig.get_config_vars()
import click, pydantic, rich.console, structlog, trio, urllib.request, zstandard  # noqa
HIDDEN = {HIDDEN_MODULES!r}
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in HIDDEN:
            raise ImportError(name + " is hidden (not on this system)", name=name)
        return None
for name in HIDDEN:
    sys.modules.pop(name, None)
sys.meta_path.insert(0, Hide())
for attr in {HIDDEN_OS!r}:
    if hasattr(os, attr):
        delattr(os, attr)
sys.platform = "darwin"
if __name__ == "__main__":
    from judge.cli import main
    try:
        main(sys.argv[1:])
    finally:
        print("hidden imports asked for:", sorted(set(HIDDEN) & set(sys.modules)), file=sys.stderr)
"""


def judge_not_linux(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "not_linux.py"
    script.write_text(NOT_LINUX)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("BOTJUDGE_SANDBOX", None)
    return subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_off_linux_a_match_plays_at_layer_none_with_the_warning(tmp_path: Path) -> None:
    done = judge_not_linux(
        tmp_path, "match", "rps", "rock", "predictor", "--seed", "7", "--replay", "m.replay"
    )
    assert done.returncode == 0, done.stderr
    assert "warning: sandbox layer 'none'" in done.stderr
    assert "hidden imports asked for: []" in done.stderr
    assert re.search(r"predictor wins \(\d+-\d+\)", done.stdout), done.stdout
    header = json.loads((tmp_path / "m.replay").read_text().splitlines()[0].split(" ", 1)[1])
    assert header["sandbox"] == "none"
    replayed = judge_not_linux(tmp_path, "replay", "m.replay", "--verify")
    assert replayed.returncode == 0, replayed.stderr
    assert "OK: 1000 turns" in replayed.stdout


def test_off_linux_a_starter_kit_plays_and_is_evaluated_on_local_workers(tmp_path: Path) -> None:
    made = judge_not_linux(tmp_path, "new", "rps", "python")
    assert made.returncode == 0, made.stderr
    evaluated = judge_not_linux(
        tmp_path,
        "evaluate",
        "rps",
        "./rps-python",
        "predictor",
        "--episodes",
        "4",
        "--turns",
        "200",
        "--executor",
        "local",
        "--json",
    )
    assert evaluated.returncode == 0, evaluated.stderr
    assert "hidden imports asked for: []" in evaluated.stderr
    summary = json.loads(evaluated.stdout)
    assert summary["episodes"] == 4


def test_off_linux_a_tourney_and_a_python2_file_play(tmp_path: Path) -> None:
    done = judge_not_linux(tmp_path, "tourney", "rps", "rock", "paper", "random", "--turns", "50")
    assert done.returncode == 0, done.stderr
    assert "3 matches" in done.stdout
    py2 = judge_not_linux(
        tmp_path, "match", "rps", str(TEST_BOTS / "py2" / "rps_py2_decay.py"), "rock", "--json"
    )
    assert py2.returncode == 0, py2.stderr
    result = json.loads(py2.stdout)
    assert [p["outcome"] for p in result["players"]] == ["ok", "ok"]
    assert "hidden imports asked for: []" in py2.stderr


def test_off_linux_the_probe_says_why_and_serve_refuses_unless_told(tmp_path: Path) -> None:
    probed = judge_not_linux(tmp_path, "sandbox")
    assert probed.returncode == 0, probed.stderr
    assert "needs Linux (this is darwin" in probed.stdout
    assert "strongest available: none" in probed.stdout
    served = judge_not_linux(tmp_path, "serve", "--port", "0", "--data", str(tmp_path / "d"))
    assert served.returncode == 2
    assert "refusing to serve with sandbox layer 'none'" in served.stderr
