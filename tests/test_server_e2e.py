"""A real `judge serve` process on 127.0.0.1: bots in C, Python and JavaScript, matches,
a tournament, the live stream, replay verification and a crash in the middle of the queue."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.server_helpers import (
    C_BOT,
    JS_BOT,
    PY_BOT,
    ROOT,
    SLOW_PY_BOT,
    running_server,
    start_server,
    stop_server,
    upload,
    wait_checked,
    wait_for,
    wait_match,
)


def judge(
    *args: str, token: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    if token:
        env["JUDGE_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=timeout,
    )


def new_user(client: httpx.Client, name: str) -> str:
    r = client.post("/api/users", json={"name": name})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def sse_events(client: httpx.Client, path: str, on_first_turn=None) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    events: list[tuple[str, str]] = []
    with client.stream("GET", path, timeout=120) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        kind, data = "message", []
        for line in response.iter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
            elif line == "" and data:
                events.append((kind, "\n".join(data)))
                if kind == "line" and not data[0].startswith("#") and on_first_turn:
                    on_first_turn()
                    on_first_turn = None
                if kind == "end":
                    break
                kind, data = "message", []
    return events


@pytest.mark.timeout(300)
def test_bots_in_three_languages_matches_tournament_live_and_verified_replay(
    tmp_path: Path,
) -> None:
    cbot = tmp_path / "cbot"
    cbot.mkdir()
    (cbot / "bot.toml").write_text('run = "./rps_bot"\nbuild = "cc -O2 -o rps_bot rps_bot.c"\n')
    (cbot / "rps_bot.c").write_text(C_BOT)
    (tmp_path / "pybot.py").write_text(PY_BOT)
    (tmp_path / "jsbot.js").write_text(JS_BOT)
    (tmp_path / "slowbot.py").write_text(SLOW_PY_BOT)
    with running_server(tmp_path / "data", "--no-ladder", "--concurrency", "2") as server:
        admin = server.client(server.admin_token)
        token = new_user(admin, "alice")
        url = server.url
        # Upload with the CLI client: a C directory (built on the server), Python, JavaScript.
        for path in ("cbot", "pybot.py", "jsbot.js", "slowbot.py"):
            done = judge(
                "submit", str(tmp_path / path), "--server", url, "--game", "rps", token=token
            )
            assert done.returncode == 0, done.stdout + done.stderr
            assert "ready: passed its check" in done.stdout
        client = server.client(token)
        bots = {b["name"]: b for b in client.get("/api/bots").json()}
        assert set(bots) == {"cbot", "pybot", "jsbot", "slowbot"}
        assert all(b["latest_version"] == 1 for b in bots.values())

        # A match from the CLI, watched live to the end.
        done = judge(
            "remote",
            "match",
            "rps",
            "cbot",
            "jsbot",
            "--server",
            url,
            "-o",
            "turns=50",
            "--watch",
            token=token,
        )
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        # Drawn as `judge replay` draws it: a title, a line per turn, the result.
        assert lines[0].startswith("rps · turns=") and "cbot@1 vs jsbot@1" in lines[0]
        assert len([ln for ln in lines if ln.strip()[:1].isdigit() and "→" in ln]) == 50
        assert "result after 50 turns" in done.stdout
        assert "#judge-replay" not in done.stdout
        assert "cbot@1: score" in done.stdout

        # The live stream: the first turn arrives while the match is still running.
        r = client.post(
            "/api/matches",
            json={"game": "rps", "bots": ["slowbot", "pybot"], "options": {"turns": 600}},
        )
        match_id = r.json()["id"]
        status_at_first_turn: list[str] = []
        events = sse_events(
            client,
            f"/api/matches/{match_id}/live",
            lambda: status_at_first_turn.append(
                client.get(f"/api/matches/{match_id}").json()["status"]
            ),
        )
        assert status_at_first_turn == ["running"]
        kinds = [k for k, _ in events]
        assert kinds[-1] == "end" and set(kinds[:-1]) == {"line"}
        end = json.loads(events[-1][1])
        assert end["status"] == "finished" and end["result"]["turns"] == 600
        streamed = [data for kind, data in events if kind == "line"]
        replay = client.get(f"/api/matches/{match_id}/replay")
        assert replay.status_code == 200
        assert replay.text.splitlines() == streamed
        replay_file = tmp_path / "match.replay"
        replay_file.write_text(replay.text)
        verified = judge("replay", str(replay_file), "--verify")
        assert verified.returncode == 0, verified.stdout + verified.stderr
        # A corrupted copy does not verify.
        corrupt = tmp_path / "corrupt.replay"
        body = replay.text.splitlines()
        body[5] = body[5][:-1] + ("P" if body[5][-1] != "P" else "S")
        corrupt.write_text("\n".join(body) + "\n")
        assert judge("replay", str(corrupt), "--verify").returncode == 1

        # `judge remote watch` on a finished match draws the whole match; --raw prints
        # the replay lines as they are.
        watched = judge("remote", "watch", match_id, "--server", url, "--raw")
        assert watched.returncode == 0
        assert watched.stdout.splitlines() == streamed
        drawn = judge("remote", "watch", match_id, "--server", url)
        assert drawn.returncode == 0, drawn.stderr
        drawn_lines = drawn.stdout.splitlines()
        assert (
            drawn_lines[0].startswith("rps · turns=") and "slowbot@1 vs pybot@1" in drawn_lines[0]
        )
        assert "  600 " in drawn.stdout and "result after 600 turns" in drawn.stdout
        assert "#judge-replay" not in drawn.stdout and "#result" not in drawn.stdout

        # A small tournament of the three languages.
        r = client.post(
            "/api/tournaments",
            json={"game": "rps", "bots": ["cbot", "pybot", "jsbot"], "options": {"turns": 100}},
        )
        assert r.status_code == 202, r.text
        tid = r.json()["id"]
        tournament = wait_for(
            lambda: (
                (t := client.get(f"/api/tournaments/{tid}").json())["status"] != "running" and t
            ),
            timeout=120,
        )
        assert tournament["status"] == "finished"
        table = tournament["standings"]["table"]
        assert sorted(row["name"] for row in table) == ["cbot@1", "jsbot@1", "pybot@1"]
        assert all(row["played"] == 2 and row["disqualified"] == 0 for row in table)
        assert sum(row["points"] for row in table) == 3


@pytest.mark.timeout(300)
def test_a_crash_in_the_middle_of_the_queue_loses_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = start_server(data, "--no-ladder", "--concurrency", "1")
    try:
        admin = server.client(server.admin_token)
        token = new_user(admin, "alice")
        client = server.client(token)
        up = upload(client, "slow", "rps", "slow.py", SLOW_PY_BOT)
        assert wait_checked(client, up["bot"]["id"], 1)["state"] == "ready"
        ids = [
            client.post(
                "/api/matches",
                json={"game": "rps", "bots": ["slow", "builtin:paper"], "options": {"turns": 250}},
            ).json()["id"]
            for _ in range(3)
        ]
        wait_for(lambda: client.get(f"/api/matches/{ids[0]}").json()["status"] == "running")
    finally:
        assert stop_server(server, signal.SIGKILL) == -signal.SIGKILL
    with running_server(data, "--no-ladder", "--concurrency", "2") as again:
        assert again.admin_token is None  # the first start's admin stays the admin
        client = again.client()
        results = [wait_match(client, match_id, timeout=120) for match_id in ids]
        assert [m["status"] for m in results] == ["finished"] * 3
        assert results[0]["attempts"] == 2 and results[1]["attempts"] == 1
        for match in results:
            assert match["result"]["turns"] == 250
            replay = client.get(f"/api/matches/{match['id']}/replay").text.splitlines()
            assert len([ln for ln in replay if not ln.startswith("#")]) == 250
            assert sum(ln.startswith("#judge-replay") for ln in replay) == 1


def test_a_graceful_stop_during_a_match_reruns_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = start_server(data, "--no-ladder", "--concurrency", "1")
    try:
        token = new_user(server.client(server.admin_token), "alice")
        client = server.client(token)
        up = upload(client, "slow", "rps", "slow.py", SLOW_PY_BOT)
        wait_checked(client, up["bot"]["id"], 1)
        match_id = client.post(
            "/api/matches",
            json={
                "game": "rps",
                "bots": ["slow", "builtin:rock"],
                "options": {"turns": 400},
            },
        ).json()["id"]
        wait_for(lambda: client.get(f"/api/matches/{match_id}").json()["status"] == "running")
        # A watcher is connected while the server stops: its stream ends, it does not hold
        # the shutdown up.
        seen: list[str] = []

        def watch() -> None:
            try:
                with server.client().stream("GET", f"/api/matches/{match_id}/live") as response:
                    for line in response.iter_lines():
                        seen.append(line)
            except httpx.HTTPError as exc:
                seen.append(f"closed: {exc}")

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        wait_for(lambda: any(line.startswith("data:") for line in seen))
    finally:
        started = time.monotonic()
        assert stop_server(server, signal.SIGTERM) == 0
        assert time.monotonic() - started < 20
    watcher.join(timeout=10)
    assert not watcher.is_alive()
    with running_server(data, "--no-ladder") as again:
        match = wait_match(again.client(), match_id, timeout=120)
        assert match["status"] == "finished" and match["attempts"] == 2


@pytest.mark.timeout(300)
def test_the_ladder_plays_by_itself(tmp_path: Path) -> None:
    with running_server(tmp_path / "data", "--concurrency", "2") as server:
        token = new_user(server.client(server.admin_token), "alice")
        client = server.client(token)
        for name, filename, source in [
            ("py", "py.py", PY_BOT),
            ("js", "js.js", JS_BOT),
            ("py2", "py2.py", PY_BOT),
        ]:
            up = upload(client, name, "rps", filename, source)
            assert wait_checked(client, up["bot"]["id"], 1)["state"] == "ready"
        board = wait_for(
            lambda: (
                (rows := client.get("/api/leaderboard/rps").json())
                and all(r["games"] >= 2 for r in rows)
                and rows
            ),
            timeout=150,
        )
        assert [r["rank"] for r in board] == [1, 2, 3]
        assert [r["score"] for r in board] == sorted((r["score"] for r in board), reverse=True)
        ladder = client.get("/api/matches?kind=ladder&status=finished").json()
        assert ladder and all(m["rated"] for m in ladder)


@pytest.mark.timeout(300)
def test_a_fresh_server_has_the_built_in_bots_on_its_ladders(tmp_path: Path) -> None:
    from judge.bots import builtin_bots

    data = tmp_path / "data"
    with running_server(data, "--concurrency", "2", builtins=True) as server:
        client = server.client(server.admin_token)
        listed = {b["name"] for b in client.get("/api/bots").json()}
        expected = {
            f"{game}-{name}" for game in ("rps", "counting", "tron") for name in builtin_bots(game)
        }
        assert expected <= listed, expected - listed
        # They play rated ladder matches at once, with no one having uploaded anything.
        board = wait_for(
            lambda: (
                (rows := client.get("/api/leaderboard/rps").json())
                and sum(r["games"] > 0 for r in rows) >= 4
                and rows
            ),
            timeout=200,
        )
        assert {r["owner"] for r in board} == {"builtin"}
        ladder = client.get("/api/matches?kind=ladder&status=finished").json()
        assert ladder and all(m["rated"] for m in ladder)
        # The account is the server's own: nobody can take its name.
        taken = client.post("/api/users", json={"name": "builtin"})
        assert taken.status_code == 409, taken.text
    # A restart adds nothing twice.
    with running_server(data, "--no-ladder", builtins=True) as again:
        names = [b["name"] for b in again.client().get("/api/bots").json()]
        assert len(names) == len(set(names)) and expected <= set(names)
    # --empty: a server with nothing on its ladders.
    with running_server(tmp_path / "empty", "--no-ladder", builtins=False) as empty:
        assert empty.client().get("/api/bots").json() == []


def test_serve_usage_errors_and_a_new_admin_token(tmp_path: Path) -> None:
    bad = judge("serve", "--sandbox", "nonsense", "--data", str(tmp_path / "x"))
    assert bad.returncode == 2 and "nonsense" in bad.stderr and "Traceback" not in bad.stderr
    missing = judge("admin-token", "--data", str(tmp_path / "nothing"))
    assert missing.returncode == 2 and "no judge server data" in missing.stderr
    data = tmp_path / "data"
    with running_server(data, "--no-ladder") as first:
        busy = judge("serve", "--port", str(first.port), "--data", str(tmp_path / "other"))
        assert busy.returncode == 1 and "Traceback" not in busy.stderr
        assert f"127.0.0.1:{first.port}" in busy.stderr
    issued = judge("admin-token", "--data", str(data))
    assert issued.returncode == 0
    token = issued.stdout.strip()
    with running_server(data, "--no-ladder") as again:
        me = again.client(token).get("/api/me").json()
        assert me["name"] == "admin" and me["is_admin"] is True
