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
