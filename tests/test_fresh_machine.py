"""Issue 11 §1: on a machine without bubblewrap the README's set-up still isolates bots.

The judge runs as a real `judge match` process in a mount namespace where /usr/bin/bwrap
is an empty file and with no bwrap on its PATH, the way a fresh Debian machine with only
Python looks to it. A hostile directory bot must not reach a TCP listener on 127.0.0.1,
read a file outside its box, or leave a process behind the match.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "bots" / "hostile"
JUDGE = [sys.executable, "-m", "judge.cli"]


def without_bubblewrap(tmp_path: Path, argv: list[str]) -> list[str]:
    """argv run where no bwrap can be found: hidden by a private mount if one is installed."""
    if not Path("/usr/bin/bwrap").exists() and shutil.which("bwrap") is None:
        return argv
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("hiding the installed /usr/bin/bwrap needs root and unshare(1)")
    empty = tmp_path / "no-bwrap"
    empty.write_text("")
    script = f'/bin/mount --bind {empty} /usr/bin/bwrap && exec "$@"'
    unshare, sh = shutil.which("unshare"), shutil.which("sh")
    assert unshare is not None and sh is not None
    return [unshare, "--mount", "--propagation", "private", sh, "-c", script, "sh", *argv]


def clean_path() -> str:
    """The judge's PATH without any directory that holds a bwrap."""
    dirs = [
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and not (Path(d) / "bwrap").exists() and d not in ("/usr/bin", "/bin")
    ]
    return os.pathsep.join([str(Path(sys.executable).parent), *dirs])


def marked_processes(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_hostile_bot_is_contained_without_bubblewrap(tmp_path: Path) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    accepted: list[object] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[1])
            except OSError:
                continue

    threading.Thread(target=accept, daemon=True).start()
    secret = tmp_path / "judge-data" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("the-judges-secret\n")
    box = tmp_path / "escape"
    box.mkdir()
    shutil.copy(HOSTILE / "escape.py", box / "bot.py")
    marker = f"botjudge-escape-{os.getpid()}-{time.monotonic_ns()}"
    (box / "target.txt").write_text(f"{listener.getsockname()[1]} {secret} {marker}\n")
    (box / "bot.toml").write_text('run = "python3 bot.py"\n')
    for path in (tmp_path, box, *box.iterdir()):
        path.chmod(0o755)
    argv = [*JUDGE, "match", "rps", str(box), "rock", "--turns", "5", "--seed", "7", "--json"]
    env = {**os.environ, "PATH": clean_path()}
    env.pop("BOTJUDGE_SANDBOX", None)
    try:
        proc = subprocess.run(
            without_bubblewrap(tmp_path, argv),
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            env=env,
        )
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout)
        time.sleep(0.5)  # a daemon that escaped would still be sleeping now
        survivors = marked_processes(marker)
    finally:
        stop.set()
        for pid in marked_processes(marker):
            os.kill(pid, 9)
        listener.close()
    assert result["sandbox"] in ("namespaces", "cgroups"), result["sandbox"]
    assert "warning:" not in proc.stderr
    hostile = result["players"][0]
    assert hostile["outcome"] == "ok", hostile
    report = hostile["stderr"]
    assert "daemon: started" in report
    assert "tcp: connected" not in report and accepted == [], report
    assert "secret: No such file or directory" in report, report
    assert survivors == [], "a process of the bot outlived its match"


def test_below_namespaces_the_cli_warns_and_shows_the_layer() -> None:
    proc = subprocess.run(
        [*JUDGE, "match", "rps", "rock", "paper", "--turns", "2", "--sandbox", "base"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "120"},
    )
    assert proc.returncode == 0, proc.stderr
    warning = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1 and "'base'" in warning[0] and "network" in warning[0], proc.stderr
    assert "sandbox: base" in proc.stdout
    proc = subprocess.run(
        [*JUDGE, "match", "rps", "rock", "paper", "--turns", "2"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert "warning:" not in proc.stderr


def test_serve_refuses_below_namespaces_unless_told(tmp_path: Path) -> None:
    from tests.server_helpers import running_server

    env = {**os.environ, "BOTJUDGE_SANDBOX": "base"}
    refused = subprocess.run(
        [*JUDGE, "serve", "--port", "0", "--data", str(tmp_path / "a")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=env,
    )
    assert refused.returncode == 2
    assert "refusing to serve" in refused.stderr and "--sandbox base" in refused.stderr
    with running_server(tmp_path / "b", "--sandbox", "base") as server:
        assert any("warning: sandbox layer 'base'" in line for line in server.output)
