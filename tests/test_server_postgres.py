"""Two `judge serve` processes on one PostgreSQL database (started by the test itself)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.postgres_helpers import PostgresServer, missing_reason, postgres_server
from tests.server_helpers import (
    PY_BOT,
    SLOW_PY_BOT,
    start_server,
    stop_server,
    upload,
    wait_checked,
    wait_for,
    wait_match,
)


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    with postgres_server() as server:
        yield server


def test_two_servers_share_the_queue_and_take_over_from_a_dead_one(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    url = postgres.new_database()
    data = tmp_path / "data"
    common = ("--db", url, "--no-ladder", "--concurrency", "1", "--lease", "3")
    first = start_server(data, *common)
    second = start_server(data, *common)
    try:
        assert first.admin_token and second.admin_token is None  # one admin, made once
        token = first.admin_token
        with first.client(token) as a, second.client(token) as b:
            fast = upload(a, "fast", "rps", "rps_bot.py", PY_BOT)
            slow = upload(b, "slow", "rps", "slow.py", SLOW_PY_BOT)
            assert wait_checked(b, fast["bot"]["id"], 1)["state"] == "ready"
            assert wait_checked(a, slow["bot"]["id"], 1)["state"] == "ready"
            ids = []
            for i in range(8):
                client = (a, b)[i % 2]
                r = client.post(
                    "/api/matches",
                    json={"game": "rps", "bots": ["slow", "fast"], "options": {"turns": 60}},
                )
                assert r.status_code == 202, r.text
                ids.append(r.json()["id"])
            done = [wait_match(a, i, timeout=180) for i in ids]
            # Every match ran exactly once, each by one of the two servers.
            assert [(m["status"], m["attempts"]) for m in done] == [("finished", 1)] * 8
            with psycopg.connect(url) as conn:
                owners = {
                    row[0]
                    for row in conn.execute("SELECT claimed_by FROM matches WHERE kind = 'manual'")
                }
            assert len(owners) == 2, owners
            # Either server streams any match, whichever ran it, line by line or in batches.
            for match_id in ids[:4]:
                lines = a.get(f"/api/matches/{match_id}/replay").text.splitlines()
                for client in (a, b):
                    stream = client.get(f"/api/matches/{match_id}/live").text
                    data = [ln[6:] for ln in stream.splitlines() if ln.startswith("data: ")]
                    assert data[: len(lines)] == lines and "event: end" in stream
                    batched = client.get(f"/api/matches/{match_id}/live?batch=true").text
                    assert "event: lines" in batched and "event: end" in batched

            # kill -9 the server running a long match: the other one runs it again.
            r = a.post(
                "/api/matches",
                json={"game": "rps", "bots": ["slow", "fast"], "options": {"turns": 400}},
            )
            long_id = r.json()["id"]

            def running_on() -> str | None:
                with psycopg.connect(url) as conn:
                    row = conn.execute(
                        "SELECT status, claimed_by FROM matches WHERE id = %s", (long_id,)
                    ).fetchone()
                return row[1] if row and row[0] == "running" else None

            owner = wait_for(running_on, 60)
            victim, survivor, client = (
                (first, second, b)
                if owner.split("-")[1] == str(first.proc.pid)
                else (second, first, a)
            )
            stop_server(victim, signal.SIGKILL)
            final = wait_match(client, long_id, timeout=180)
            assert final["status"] == "finished" and final["attempts"] == 2, final
            assert final["result"]["turns"] == 400
            assert survivor.proc.poll() is None
    finally:
        stop_server(first)
        stop_server(second)


def test_a_server_that_stalls_past_its_lease_records_nothing(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    """A server frozen longer than its lease (SIGSTOP: a long GC pause, a swapped-out VM)
    wakes up to find its match taken over: what it played is dropped, and the match is
    recorded once, by the server that ran it again (before: the frozen server, well ahead,
    finished first and its result was recorded beside the other run's replay)."""
    url = postgres.new_database()
    data = tmp_path / "data"
    common = ("--db", url, "--no-ladder", "--concurrency", "1", "--lease", "3")
    first = start_server(data, *common)
    second = start_server(data, *common)
    try:
        token = first.admin_token
        with first.client(token) as a, second.client(token) as b:
            fast = upload(a, "fast", "rps", "rps_bot.py", PY_BOT)
            slow = upload(b, "slow", "rps", "slow.py", SLOW_PY_BOT)
            assert wait_checked(b, fast["bot"]["id"], 1)["state"] == "ready"
            assert wait_checked(a, slow["bot"]["id"], 1)["state"] == "ready"
            r = a.post(
                "/api/matches",
                json={"game": "rps", "bots": ["slow", "fast"], "options": {"turns": 1000}},
            )
            match_id = r.json()["id"]

            def claim() -> tuple[str, str] | None:
                with psycopg.connect(url) as conn:
                    row = conn.execute(
                        "SELECT status, claimed_by FROM matches WHERE id = %s", (match_id,)
                    ).fetchone()
                return (row[0], row[1]) if row and row[0] == "running" else None

            _, owner = wait_for(claim, 60)

            def played() -> int:
                replay = a.get(f"/api/matches/{match_id}/replay")
                return sum(not line.startswith("#") for line in replay.text.splitlines())

            # Well into the match, so the stalled server would finish it first on waking.
            wait_for(lambda: played() >= 300, 60)
            stalled, other, client = (
                (first, second, b)
                if owner.split("-")[1] == str(first.proc.pid)
                else (second, first, a)
            )
            stalled.proc.send_signal(signal.SIGSTOP)
            try:
                # The other server takes the match over once the lease has run out.
                wait_for(lambda: ((c := claim()) is not None and c[1] != owner) or None, 60)
            finally:
                stalled.proc.send_signal(signal.SIGCONT)
            final = wait_match(client, match_id, timeout=180)
            assert final["status"] == "finished" and final["attempts"] == 2, final
            assert final["result"]["turns"] == 1000
            assert [p["outcome"] for p in final["result"]["players"]] == ["ok", "ok"], final
            with psycopg.connect(url) as conn:
                row = conn.execute(
                    "SELECT claimed_by FROM matches WHERE id = %s", (match_id,)
                ).fetchone()
            assert row is not None and row[0] != owner
            # The replay is the one of the run that was recorded: whole, and it verifies.
            lines = a.get(f"/api/matches/{match_id}/replay").text.splitlines()
            assert sum(not line.startswith("#") for line in lines) == 1000
            assert stalled.proc.poll() is None and other.proc.poll() is None
    finally:
        stop_server(first)
        stop_server(second)
