"""Faults of the machine under real `judge serve` processes: the disk of the data directory
fills up, PostgreSQL restarts under two servers, one of two servers is killed (-9) or frozen
(SIGSTOP) past its lease. After each, every queued match ends `finished` exactly once without
anyone restarting anything, within the lease plus a few seconds; the replays verify; and
`/api/health` said what was wrong while it lasted.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from replays.verify import verify_file
from tests.postgres_helpers import PostgresServer, missing_reason, postgres_server
from tests.server_helpers import (
    SLOW_PY_BOT,
    ServerProcess,
    start_server,
    stop_server,
    upload,
    wait_checked,
    wait_for,
)

LEASE = 3.0
# A match of the slow bot against a built-in: a few seconds, so faults meet running matches.
TURNS = 150


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    with postgres_server() as server:
        yield server


class HealthWatch:
    """Polls a server's /api/health in a thread; keeps every problem it reported."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.problems: list[str] = []
        self.not_ready = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        with httpx.Client(base_url=self.server.url, timeout=10) as client:
            while not self._stop.is_set():
                with contextlib.suppress(httpx.HTTPError):
                    health = client.get("/api/health").json()
                    self.problems += health["problems"]
                    ready = client.get("/api/health/ready")
                    if ready.status_code == 503:
                        self.not_ready += 1
                self._stop.wait(0.2)

    def __enter__(self) -> HealthWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def saw(self, needle: str) -> bool:
        return any(needle in problem for problem in self.problems)


def get_json(client: httpx.Client, path: str) -> Any:
    """A GET's JSON, or None while the server cannot answer it (503 during a fault)."""
    try:
        response = client.get(path)
    except httpx.HTTPError:
        return None
    return response.json() if response.status_code == 200 else None


def queue_matches(client: httpx.Client, n: int, turns: int = TURNS) -> list[str]:
    ids = []
    for _ in range(n):
        r = client.post(
            "/api/matches",
            json={"game": "rps", "bots": ["slow", "builtin:rock"], "options": {"turns": turns}},
        )
        assert r.status_code == 202, r.text
        ids.append(r.json()["id"])
    return ids


def all_ended(client: httpx.Client, ids: list[str], timeout: float) -> list[dict[str, Any]]:
    def check() -> list[dict[str, Any]] | None:
        matches = [get_json(client, f"/api/matches/{i}") for i in ids]
        if any(m is None or m["status"] in ("queued", "running") for m in matches):
            return None
        return matches  # type: ignore[return-value]

    return wait_for(check, timeout, interval=0.3)  # type: ignore[no-any-return]


def check_finished_once(
    client: httpx.Client, matches: list[dict[str, Any]], tmp_path: Path, turns: int = TURNS
) -> None:
    """Each match finished, its replay whole (one header, one result, every turn) and valid."""
    for match in matches:
        assert match["status"] == "finished", (match["status"], match["error"], match["attempts"])
        assert match["result"]["turns"] == turns, match
        text = client.get(f"/api/matches/{match['id']}/replay").text
        lines = text.splitlines()
        assert sum(ln.startswith("#judge-replay ") for ln in lines) == 1, match["id"]
        assert sum(ln.startswith("#result ") for ln in lines) == 1, match["id"]
        assert sum(not ln.startswith("#") for ln in lines) == turns, match["id"]
        path = tmp_path / f"{match['id']}.replay"
        path.write_text(text)
        report = verify_file(path)
        assert report.ok, (match["id"], report)


def ready_bot(client: httpx.Client) -> None:
    slow = upload(client, "slow", "rps", "slow.py", SLOW_PY_BOT)
    assert wait_checked(client, slow["bot"]["id"], 1)["state"] == "ready"


@contextlib.contextmanager
def small_disk(path: Path, megabytes: int = 24) -> Iterator[Path]:
    path.mkdir(parents=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(path)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(disk: Path) -> Path:
    """Write zeros into ``disk`` until it is full; the file that holds them."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (1 << 20, 4096, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    return filler


def test_a_full_disk_then_space_again(tmp_path: Path) -> None:
    """The data directory (SQLite database, replays) fills up while matches run: nothing is
    lost or stuck, writes answer 503 with the reason, health says "disk full", the log says
    what failed (JSON with the exception); once space is freed every match finishes."""
    with small_disk(tmp_path / "disk") as disk:
        server = start_server(
            disk / "data",
            "--no-ladder",
            "--concurrency",
            "2",
            "--lease",
            str(LEASE),
            "--log-format",
            "json",
        )
        try:
            with server.client(server.admin_token) as client:
                ready_bot(client)
                ids = queue_matches(client, 6)
                wait_for(lambda: client.get(f"/api/matches/{ids[0]}").json()["status"] != "queued")
                with HealthWatch(server) as watch:
                    filler = fill(disk)
                    # While full: health says so, and a write is refused with the reason.
                    wait_for(lambda: watch.saw("disk full"), 30)
                    refused = client.post(
                        "/api/matches", json={"game": "rps", "bots": ["slow", "builtin:rock"]}
                    )
                    assert refused.status_code == 503, refused.text
                    assert "full" in refused.json()["error"], refused.text
                    time.sleep(LEASE)
                    filler.unlink()
                    freed = time.monotonic()
                    matches = all_ended(client, ids, timeout=120)
                assert watch.not_ready > 0
                # Every match was still waiting or running at the fault; after it, each one
                # takes its seconds in turn (two at once), so the bound is the lease, a few
                # seconds and the matches' own time.
                elapsed = time.monotonic() - freed
                assert elapsed < LEASE + 10 + 6 * 4, elapsed
                check_finished_once(client, matches, tmp_path)
                ready = client.get("/api/health/ready")
                assert ready.status_code == 200, ready.text
        finally:
            stop_server(server)
        logged = [json.loads(ln) for ln in server.output if ln.startswith("{")]
        faults = [line for line in logged if line.get("error_type")]
        assert faults, "".join(server.output[-40:])
        assert any("full" in line.get("error", "") for line in faults), faults[:5]


def two_servers(tmp_path: Path, postgres: PostgresServer) -> tuple[ServerProcess, ServerProcess]:
    url = postgres.new_database()
    common = ("--db", url, "--no-ladder", "--concurrency", "2", "--lease", str(LEASE))
    first = start_server(tmp_path / "data", *common)
    second = start_server(tmp_path / "data", *common)
    return first, second


def test_postgres_restarts_under_two_servers(tmp_path: Path, postgres: PostgresServer) -> None:
    """The database goes away for a few seconds while matches are being played and recorded:
    results wait in memory and are written once it is back; health said it was unreachable."""
    first, second = two_servers(tmp_path, postgres)
    try:
        token = first.admin_token
        with first.client(token) as a, second.client(token) as b:
            ready_bot(a)
            ids = queue_matches(a, 4, turns=60) + queue_matches(b, 4, turns=60)
            wait_for(lambda: a.get(f"/api/matches/{ids[0]}").json()["status"] != "queued")
            with HealthWatch(first) as watch:
                postgres.stop()
                try:
                    wait_for(lambda: watch.saw("unreachable"), 30)
                    time.sleep(1)
                finally:
                    postgres.start()
                back = time.monotonic()
                matches = all_ended(a, ids, timeout=120)
            assert watch.not_ready > 0
            assert time.monotonic() - back < LEASE + 10 + 8 * 2
            check_finished_once(a, matches, tmp_path, turns=60)
            assert first.proc.poll() is None and second.proc.poll() is None
    finally:
        stop_server(first)
        stop_server(second)


def alive(pid: str) -> bool:
    """Running, not ended: an orphan that ended is a zombie until whoever adopted it reaps it
    (this pytest process, once it is a child subreaper: judge.sandbox.procs)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.mark.parametrize("fault", ["kill -9", "SIGSTOP"])
def test_one_of_two_servers_dies_or_freezes(
    tmp_path: Path, postgres: PostgresServer, fault: str
) -> None:
    """The other server takes the matches over once the lease has passed (a frozen one,
    on waking, records nothing of what it played); health on the survivor showed the
    matches nobody renewed while it waited."""
    first, second = two_servers(tmp_path, postgres)
    try:
        token = first.admin_token
        with first.client(token) as a, second.client(token) as b:
            ready_bot(a)
            ids = queue_matches(a, 6)

            def busy() -> tuple[ServerProcess, ServerProcess, httpx.Client] | None:
                # The victim is a server playing a match now (/api/health counts them).
                for victim, survivor, client in ((first, second, b), (second, first, a)):
                    with victim.client() as probe:
                        health = get_json(probe, "/api/health")
                    if health is not None and health["running"] > 0:
                        return victim, survivor, client
                return None

            victim, survivor, client = wait_for(busy, 60)
            with HealthWatch(survivor) as watch:
                if fault == "kill -9":
                    children = subprocess.run(
                        ["pgrep", "-P", str(victim.proc.pid)], capture_output=True, text=True
                    ).stdout.split()
                    assert children  # its judge processes, playing its matches
                    stop_server(victim, signal.SIGKILL)
                    # They end with it (before: they played on as orphans).
                    wait_for(lambda: not any(alive(pid) for pid in children))
                else:
                    victim.proc.send_signal(signal.SIGSTOP)
                    try:
                        wait_for(lambda: watch.saw("not renewed"), 30)
                        time.sleep(LEASE)
                    finally:
                        victim.proc.send_signal(signal.SIGCONT)
                matches = all_ended(client, ids, timeout=150)
            assert watch.saw("not renewed"), watch.problems[-5:]
            check_finished_once(client, matches, tmp_path)
            assert survivor.proc.poll() is None
    finally:
        stop_server(first)
        stop_server(second)


def test_metrics_and_probes_on_a_real_server(tmp_path: Path) -> None:
    """What an orchestrator and Prometheus ask a real server."""
    from prometheus_client.parser import text_string_to_metric_families

    server = start_server(tmp_path / "data", "--no-ladder", "--concurrency", "1")
    try:
        with server.client(server.admin_token) as client:
            assert client.get("/api/health/live").json() == {"live": True}
            assert client.get("/api/health/ready").status_code == 200
            r = client.post(
                "/api/matches",
                json={"game": "rps", "bots": ["builtin:rock", "builtin:paper"]},
            )
            match_id = r.json()["id"]
            all_ended(client, [match_id], 60)
            assert client.get("/api/nothing-here").status_code == 404
            text = client.get("/metrics").text
            samples = {
                (s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(text)
                for s in family.samples
            }
            assert samples[("judge_matches_finished_total", (("outcome", "win"),))] == 1
            assert samples[("judge_matches", (("status", "running"),))] == 0
            assert samples[("judge_match_duration_seconds_count", ())] == 1
            layer = client.get("/api/health").json()["sandbox"]
            started = (("layer", layer), ("result", "ok"))
            assert samples[("judge_sandbox_starts_total", started)] == 2
            assert samples[("judge_turn_latency_seconds_count", ())] >= 2
            assert samples[("judge_http_requests_total", (("status", "404"),))] == 1
            assert samples[("judge_http_requests_total", (("status", "202"),))] == 1
    finally:
        stop_server(server)


def test_slow_headers_and_slow_bodies_are_cut_off(tmp_path: Path) -> None:
    """A client that trickles its headers or its body cannot hold a connection open."""
    import socket

    server = start_server(tmp_path / "data", "--no-ladder")
    try:
        host, port = server.url.split("//")[1].split(":")

        def trickle(first: bytes) -> tuple[float, bytes]:
            began = time.monotonic()
            with socket.create_connection((host, int(port)), timeout=60) as sock:
                sock.sendall(first)
                answer = b""
                while True:
                    try:
                        sock.sendall(b"x")
                    except OSError:
                        break
                    sock.settimeout(1.0)
                    try:
                        data = sock.recv(4096)
                    except TimeoutError:
                        continue
                    except OSError:
                        break
                    if not data:
                        break
                    answer += data
                return time.monotonic() - began, answer

        token = f"Authorization: Bearer {server.admin_token}".encode()
        results: dict[str, tuple[float, bytes]] = {}
        threads = [
            threading.Thread(
                target=lambda: results.__setitem__(
                    "headers", trickle(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                )
            ),
            threading.Thread(
                target=lambda: results.__setitem__(
                    "body",
                    trickle(
                        b"POST /api/matches HTTP/1.1\r\nHost: x\r\n" + token + b"\r\n"
                        b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
                    ),
                )
            ),
            threading.Thread(
                target=lambda: results.__setitem__(
                    "anonymous body",
                    trickle(
                        b"POST /api/matches HTTP/1.1\r\nHost: x\r\n"
                        b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
                    ),
                )
            ),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(90)
        took, answer = results["body"]
        assert b" 408 " in answer.split(b"\r\n")[0], answer[:200]
        assert took < 40, took
        took, _ = results["headers"]
        assert took < 40, took
        # Without a token, the body is never waited for: 401 at once.
        took, answer = results["anonymous body"]
        assert b" 401 " in answer.split(b"\r\n")[0], answer[:200]
        assert server.proc.poll() is None
        with server.client() as client:
            assert client.get("/api/health/live").status_code == 200
    finally:
        stop_server(server)
