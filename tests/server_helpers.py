"""Helpers for the server tests: bot sources, archives, and a real `judge serve` subprocess."""

from __future__ import annotations

import io
import os
import queue
import signal
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "bots" / "examples"

PY_BOT = (EXAMPLES / "python" / "rps_bot.py").read_text()
JS_BOT = (EXAMPLES / "js" / "rps.js").read_text()
C_BOT = (EXAMPLES / "c" / "rps_bot.c").read_text()

# Plays rock, slowly enough that a match of a few hundred turns lasts a few seconds.
SLOW_PY_BOT = """\
import sys, time
for line in sys.stdin:
    if line.startswith("END"):
        break
    if line.strip() == ".":
        time.sleep(0.01)
        sys.stdout.write("R\\n.\\n")
        sys.stdout.flush()
"""

CRASHING_PY_BOT = """\
import sys
sys.stderr.write("secret-traceback-of-the-owner: cannot start\\n")
sys.exit(7)
"""


def tar_gz(members: dict[str, bytes | str], *, mode: int = 0o755) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in members.items():
            data = content.encode() if isinstance(content, str) else content
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = mode
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def c_archive() -> bytes:
    """A C bot as an archive with a manifest whose build runs on the server."""
    return tar_gz(
        {
            "cbot/bot.toml": 'run = "./rps_bot"\nbuild = "cc -O2 -o rps_bot rps_bot.c"\n',
            "cbot/rps_bot.c": C_BOT,
        }
    )


@dataclass
class ServerProcess:
    proc: subprocess.Popen[str]
    url: str
    admin_token: str | None
    data: Path
    output: list[str] = field(default_factory=list)

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])


def _reader(stream: io.TextIOBase, lines: queue.Queue[str | None], keep: list[str]) -> None:
    for line in stream:
        keep.append(line)
        lines.put(line)
    lines.put(None)


def start_server(
    data: Path, *extra: str, builtins: bool = False, log_level: str = "warning"
) -> ServerProcess:
    # A generous deadline: the machine is shared, and a slow turn here is not what is tested.
    deadline = [] if "--deadline" in extra else ["--deadline", "5"]
    # Built-in bots on the ladders would play beside every test's own matches.
    if not builtins:
        deadline.append("--empty")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "judge.cli",
            "--log-level",
            log_level,
            "serve",
            "--port",
            "0",
            "--data",
            str(data),
            *deadline,
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    lines: queue.Queue[str | None] = queue.Queue()
    output: list[str] = []
    threading.Thread(target=_reader, args=(proc.stdout, lines, output), daemon=True).start()
    token = url = None
    deadline = time.monotonic() + 60
    while url is None:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            line = None
        if line is None:
            proc.kill()
            raise RuntimeError("judge serve did not start:\n" + "".join(output))
        if line.startswith("admin token"):
            token = line.split()[-1]
        elif line.startswith("listening on"):
            url = line.split()[-1]
    return ServerProcess(proc, url, token, data, output)


def stop_server(server: ServerProcess, sig: int = signal.SIGTERM) -> int:
    if server.proc.poll() is None:
        server.proc.send_signal(sig)
        try:
            server.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait()
    return server.proc.returncode


@contextmanager
def running_server(
    data: Path, *extra: str, builtins: bool = False, log_level: str = "warning"
) -> Iterator[ServerProcess]:
    server = start_server(data, *extra, builtins=builtins, log_level=log_level)
    try:
        yield server
    finally:
        stop_server(server)


def wait_for(check, timeout: float = 60.0, interval: float = 0.2):  # type: ignore[no-untyped-def]
    """Poll ``check()`` until it returns something truthy; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting after {timeout} s (last value: {value!r})")
        time.sleep(interval)


def upload(client: httpx.Client, name: str, game: str, filename: str, content: bytes | str) -> dict:
    data = content.encode() if isinstance(content, str) else content
    response = client.post(
        "/api/bots", data={"name": name, "game": game}, files={"file": (filename, data)}
    )
    assert response.status_code == 202, response.text
    return response.json()


def wait_checked(client: httpx.Client, bot_id: int, version: int, timeout: float = 90) -> dict:
    def check() -> dict | None:
        v = client.get(f"/api/bots/{bot_id}/versions/{version}").json()
        return v if v["state"] != "checking" else None

    return wait_for(check, timeout)


def wait_match(client: httpx.Client, match_id: str, timeout: float = 90) -> dict:
    def check() -> dict | None:
        m = client.get(f"/api/matches/{match_id}").json()
        return m if m["status"] not in ("queued", "running") else None

    return wait_for(check, timeout)
