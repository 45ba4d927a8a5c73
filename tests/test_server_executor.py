"""`judge serve --executor dask://HOST:PORT`: the server's matches run on the workers of a
real `dask scheduler`, with the live stream, the replay and the smoke check as on one
machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server_helpers import (
    ROOT,
    SLOW_PY_BOT,
    running_server,
    upload,
    wait_checked,
    wait_for,
    wait_match,
)
from tests.test_executors import Cluster
from tests.test_server_e2e import new_user, sse_events


@pytest.mark.timeout(300)
def test_a_server_on_a_dask_cluster_plays_streams_and_records(tmp_path: Path) -> None:
    cluster = Cluster(tmp_path / "cluster")
    try:
        play_on(cluster, tmp_path)
    finally:
        cluster.stop()


def play_on(cluster: Cluster, tmp_path: Path) -> None:
    extra = ("--no-ladder", "--executor", f"dask://127.0.0.1:{cluster.port}", "--insecure-cluster")
    with running_server(tmp_path / "data", *extra) as server:
        wait_for(lambda: any(line.startswith("executor: dask") for line in server.output))
        admin = server.client(server.admin_token)
        health = admin.get("/api/health").json()
        # Without --concurrency: twice the cluster's slots (2 worker processes, 1 match each).
        assert health["executor"].startswith("dask") and health["concurrency"] == 4
        client = server.client(new_user(admin, "alice"))
        bot = upload(client, "slowbot", "rps", "slowbot.py", SLOW_PY_BOT)
        # The smoke check is a match too: it ran on a worker, from the uploaded box.
        checked = wait_checked(client, bot["bot"]["id"], 1)
        assert checked["state"] == "ready", checked

        r = client.post(
            "/api/matches",
            json={"game": "rps", "bots": ["slowbot", "builtin:rock"], "options": {"turns": 300}},
        )
        assert r.status_code == 202, r.text
        match_id = r.json()["id"]
        status_at_first_turn: list[str] = []
        events = sse_events(
            client,
            f"/api/matches/{match_id}/live",
            lambda: status_at_first_turn.append(
                client.get(f"/api/matches/{match_id}").json()["status"]
            ),
        )
        # Lines came from the worker while the match was still running there.
        assert status_at_first_turn == ["running"]
        end = json.loads(events[-1][1])
        assert end["status"] == "finished" and end["result"]["turns"] == 300
        streamed = [data for kind, data in events if kind == "line"]
        replay = client.get(f"/api/matches/{match_id}/replay")
        assert replay.text.splitlines() == streamed
        saved = tmp_path / "m.replay"
        saved.write_text(replay.text)
        verified = subprocess.run(
            [sys.executable, "-m", "judge.cli", "replay", str(saved), "--verify"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert wait_match(client, match_id)["status"] == "finished"
