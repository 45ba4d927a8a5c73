"""The server's API in process: the real service, storage, scheduler and bot processes."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from judge.server.app import build_app
from judge.server.config import ServerConfig
from judge.server.records import Seat
from judge.server.service import Service
from judge.server.sqlite import SQLiteStorage
from tests.server_helpers import (
    C_BOT,
    CRASHING_PY_BOT,
    JS_BOT,
    PY_BOT,
    ROOT,
    SLOW_PY_BOT,
    c_archive,
)


@dataclass
class Api:
    service: Service
    http: httpx.AsyncClient
    admin: str

    def auth(self, token: str | None) -> dict[str, str]:
        return {"authorization": f"Bearer {token}"} if token else {}

    async def user(self, name: str) -> str:
        r = await self.http.post("/api/users", json={"name": name}, headers=self.auth(self.admin))
        assert r.status_code == 201, r.text
        return str(r.json()["token"])

    async def upload(
        self, token: str, name: str, filename: str, content: str | bytes, game: str = "rps"
    ) -> dict[str, Any]:
        data = content.encode() if isinstance(content, str) else content
        r = await self.http.post(
            "/api/bots",
            data={"name": name, "game": game},
            files={"file": (filename, data)},
            headers=self.auth(token),
        )
        assert r.status_code == 202, r.text
        return dict(r.json())

    async def checked(self, bot_id: int, version: int, token: str | None = None) -> dict[str, Any]:
        with trio.fail_after(60):
            while True:
                r = await self.http.get(
                    f"/api/bots/{bot_id}/versions/{version}", headers=self.auth(token)
                )
                if r.json()["state"] != "checking":
                    return dict(r.json())
                await trio.sleep(0.1)

    async def finished(self, match_id: str, token: str | None = None) -> dict[str, Any]:
        with trio.fail_after(60):
            while True:
                r = await self.http.get(f"/api/matches/{match_id}", headers=self.auth(token))
                if r.json()["status"] not in ("queued", "running"):
                    return dict(r.json())
                await trio.sleep(0.1)


async def open_api(data: Path, nursery: trio.Nursery, **config: Any) -> Api:
    defaults = {"ladder": False, "builtin_bots": False, "concurrency": 2, "turn_deadline": 5.0}
    service = Service(
        ServerConfig(data=data, **{**defaults, **config}), SQLiteStorage(data / "judge.sqlite3")
    )
    await service.open()
    await nursery.start(service.run)
    http = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=build_app(service)), base_url="http://judge.test"
    )
    return Api(service, http, service.admin_token or "")


@pytest.fixture
async def api(tmp_path: Path, nursery: trio.Nursery) -> AsyncIterator[Api]:
    opened = await open_api(tmp_path / "data", nursery)
    yield opened
    await opened.http.aclose()
    await opened.service.close()


async def test_public_reads_and_documents(api: Api) -> None:
    health = (await api.http.get("/api/health")).json()
    assert health["ok"] is True
    games = {g["name"]: g for g in (await api.http.get("/api/games")).json()}
    assert "rock" in games["rps"]["builtins"]
    doc = (await api.http.get("/openapi.json")).json()
    assert doc["openapi"].startswith("3.")
    assert "post" in doc["paths"]["/api/bots"]
    assert doc["paths"]["/api/bots"]["post"]["security"] == [{"token": []}]
    assert "security" not in doc["paths"]["/api/leaderboard/{game}"]["get"]
    docs_page = await api.http.get("/docs")
    assert docs_page.status_code == 200 and "text/html" in docs_page.headers["content-type"]
    for page in ("/", "/bots", "/matches", "/upload", "/tournaments", "/account"):
        assert (await api.http.get(page)).status_code == 200, page


async def test_admin_token_is_hashed_at_rest(api: Api, tmp_path: Path) -> None:
    assert api.admin.startswith("jt_")
    me = (await api.http.get("/api/me", headers=api.auth(api.admin))).json()
    assert me["name"] == "admin" and me["is_admin"] is True
    raw = (tmp_path / "data" / "judge.sqlite3").read_bytes()
    wal = tmp_path / "data" / "judge.sqlite3-wal"
    raw += wal.read_bytes() if wal.exists() else b""
    assert api.admin.encode() not in raw


async def test_writes_need_a_valid_token(api: Api) -> None:
    cases = [
        ("POST", "/api/matches", {"json": {"game": "rps", "bots": ["builtin:rock"] * 2}}),
        ("POST", "/api/bots", {"files": {"file": ("a.py", b"x")}}),
        ("POST", "/api/tokens", {"json": {}}),
        ("POST", "/api/users", {"json": {"name": "mallory"}}),
    ]
    for method, path, kw in cases:
        for headers in ({}, {"authorization": "Bearer jt_forged"}, {"authorization": "Basic abc"}):
            r = await api.http.request(method, path, headers=headers, **kw)
            assert r.status_code == 401, (method, path, headers, r.text)
            assert "error" in r.json()


async def test_accounts_only_by_the_admin(api: Api) -> None:
    alice = await api.user("alice")
    r = await api.http.post("/api/users", json={"name": "bob"}, headers=api.auth(alice))
    assert r.status_code == 403
    r = await api.http.post("/api/users", json={"name": "alice"}, headers=api.auth(api.admin))
    assert r.status_code == 409
    r = await api.http.post("/api/users", json={"name": "../x"}, headers=api.auth(api.admin))
    assert r.status_code == 400
    r = await api.http.post("/api/users", content=b"{not json", headers=api.auth(api.admin))
    assert r.status_code == 400
    # A second token works; a revoked one does not.
    r = await api.http.post("/api/tokens", json={"label": "laptop"}, headers=api.auth(alice))
    second = r.json()
    assert (await api.http.get("/api/me", headers=api.auth(second["token"]))).status_code == 200
    r = await api.http.delete(f"/api/tokens/{second['id']}", headers=api.auth(alice))
    assert r.status_code == 200
    assert (await api.http.get("/api/me", headers=api.auth(second["token"]))).status_code == 401


async def test_upload_is_checked_then_listed(api: Api) -> None:
    alice = await api.user("alice")
    up = await api.upload(alice, "pybot", "rps_bot.py", PY_BOT)
    assert up["version"]["state"] == "checking" and up["version"]["version"] == 1
    version = await api.checked(up["bot"]["id"], 1)
    assert version["state"] == "ready", version
    smoke = (await api.http.get(f"/api/matches/{version['smoke_match']}")).json()
    assert smoke["kind"] == "smoke" and smoke["status"] == "finished"
    assert smoke["seats"][1]["builtin"] == "rock"
    board = (await api.http.get("/api/leaderboard/rps")).json()
    assert [row["bot"] for row in board] == ["pybot"]
    assert board[0]["score"] == pytest.approx(board[0]["mu"] - 3 * board[0]["sigma"], abs=0.01)
    # A second upload is a new immutable version; the first stays as it was.
    r = await api.http.post(
        "/api/bots/pybot/versions",
        files={"file": ("rps.js", JS_BOT.encode())},
        headers=api.auth(alice),
    )
    assert r.status_code == 202 and r.json()["version"]["version"] == 2
    await api.checked(up["bot"]["id"], 2)
    versions = (await api.http.get("/api/bots/pybot")).json()["versions"]
    assert [(v["version"], v["filename"]) for v in versions] == [(2, "rps.js"), (1, "rps_bot.py")]
    box1 = api.service.config.version_dir(up["bot"]["id"], 1) / "box"
    assert (box1 / "rps_bot.py").read_text() == PY_BOT


async def test_python2_original_entry_is_accepted_as_uploaded(api: Api) -> None:
    """An rpscontest entry in Python 2, uploaded as it is, passes its check and plays."""
    alice = await api.user("alice")
    source = (ROOT / "tests" / "bots" / "py2" / "rps_py2_decay.py").read_text()
    up = await api.upload(alice, "oldtimer", "rps_py2_decay.py", source)
    version = await api.checked(up["bot"]["id"], 1, alice)
    assert version["state"] == "ready", version
    smoke = (await api.http.get(f"/api/matches/{version['smoke_match']}")).json()
    assert smoke["status"] == "finished"
    assert [p["outcome"] for p in smoke["result"]["players"]] == ["ok", "ok"], smoke["result"]
    box = api.service.config.version_dir(up["bot"]["id"], 1) / "box"
    assert (box / "rps_py2_decay.py").read_text() == source  # kept as uploaded


async def test_c_bots_are_built_in_the_sandbox(api: Api) -> None:
    alice = await api.user("alice")
    archive = await api.upload(alice, "carchive", "cbot.tar.gz", c_archive())
    single = await api.upload(alice, "csingle", "rps_bot.c", C_BOT)
    broken = await api.upload(alice, "cbroken", "broken.c", "int main( { syntax error")
    for up, binary in [(archive, "rps_bot"), (single, "rps_bot")]:
        version = await api.checked(up["bot"]["id"], 1, alice)
        assert version["state"] == "ready", version
        box = api.service.config.version_dir(up["bot"]["id"], 1) / "box"
        assert (box / binary).read_bytes()[:4] == b"\x7fELF"
        assert version["built"] is True
    failed = await api.checked(broken["bot"]["id"], 1, alice)
    assert failed["state"] == "failed"
    assert "build failed" in failed["message"] and "error" in failed["message"]


async def test_failed_check_shows_stderr_to_its_owner_only(api: Api) -> None:
    alice = await api.user("alice")
    bob = await api.user("bob")
    up = await api.upload(alice, "crasher", "crash.py", CRASHING_PY_BOT)
    version = await api.checked(up["bot"]["id"], 1, alice)
    assert version["state"] == "failed"
    assert "secret-traceback-of-the-owner" in version["message"]
    assert version["message"].startswith("failed its check: ")
    for viewer in (bob, None):
        seen = (
            await api.http.get(f"/api/bots/{up['bot']['id']}/versions/1", headers=api.auth(viewer))
        ).json()
        assert seen["state"] == "failed" and seen["message"] == ""
        match = (
            await api.http.get(f"/api/matches/{version['smoke_match']}", headers=api.auth(viewer))
        ).json()
        assert "stderr" not in match["result"]["players"][0]
    owner_view = (
        await api.http.get(f"/api/matches/{version['smoke_match']}", headers=api.auth(alice))
    ).json()
    assert "secret-traceback-of-the-owner" in owner_view["result"]["players"][0]["stderr"]
    # Not listed, so it cannot be asked for in a match.
    assert (await api.http.get("/api/leaderboard/rps")).json() == []
    body = {"game": "rps", "bots": ["crasher", "builtin:rock"]}
    r = await api.http.post("/api/matches", json=body, headers=api.auth(alice))
    assert r.status_code == 400 and "no version that passed" in r.json()["error"]


async def test_only_owners_change_their_bots(api: Api) -> None:
    alice = await api.user("alice")
    bob = await api.user("bob")
    up = await api.upload(alice, "alicebot", "rps_bot.py", PY_BOT)
    await api.checked(up["bot"]["id"], 1)
    bot = up["bot"]["id"]
    refused = [
        await api.http.post(
            f"/api/bots/{bot}/versions",
            files={"file": ("x.py", b"print(1)")},
            headers=api.auth(bob),
        ),
        await api.http.patch(f"/api/bots/{bot}", json={"enabled": False}, headers=api.auth(bob)),
        await api.http.delete(f"/api/bots/{bot}", headers=api.auth(bob)),
    ]
    assert [r.status_code for r in refused] == [403, 403, 403]
    assert len((await api.http.get(f"/api/bots/{bot}")).json()["versions"]) == 1
    r = await api.http.patch(f"/api/bots/{bot}", json={"enabled": False}, headers=api.auth(alice))
    assert r.status_code == 200 and r.json()["enabled"] is False
    body = {"game": "rps", "bots": ["alicebot", "builtin:rock"]}
    r = await api.http.post("/api/matches", json=body, headers=api.auth(alice))
    assert r.status_code == 400 and "disabled" in r.json()["error"]
    # The admin may act on any bot.
    r = await api.http.delete(f"/api/bots/{bot}", headers=api.auth(api.admin))
    assert r.status_code == 200
    assert (await api.http.get(f"/api/bots/{bot}")).status_code == 404
    assert not (api.service.config.bots_dir / str(bot)).exists()


async def test_match_request_result_and_replay(api: Api) -> None:
    alice = await api.user("alice")
    up = await api.upload(alice, "pybot", "rps_bot.py", PY_BOT)
    await api.checked(up["bot"]["id"], 1)
    r = await api.http.post(
        "/api/matches",
        json={
            "game": "rps",
            "bots": ["pybot", "builtin:cycle"],
            "options": {"turns": 30},
            "seed": 5,
        },
        headers=api.auth(alice),
    )
    assert r.status_code == 202, r.text
    match = await api.finished(r.json()["id"])
    assert match["status"] == "finished"
    result = match["result"]
    assert result["turns"] == 30 and result["seed"] == 5
    replay = await api.http.get(f"/api/matches/{match['id']}/replay")
    lines = replay.text.splitlines()
    assert lines[0].startswith("#judge-replay ")
    turns = [ln for ln in lines if not ln.startswith("#")]
    assert len(turns) == 30
    assert turns[-1].split()[:2] == [
        f"{result['players'][0]['score']:g}",
        f"{result['players'][1]['score']:g}",
    ]
    assert lines[-1].startswith("#result ")
    # Public data carries no server paths: the result line names no replay file.
    data_dir = str(api.service.config.data)
    assert data_dir not in replay.text and '"replay"' not in lines[-1], lines[-1]
    # The live stream of a finished match replays every line, then the end event.
    stream = await api.http.get(f"/api/matches/{match['id']}/live")
    data = [ln[6:] for ln in stream.text.splitlines() if ln.startswith("data: ")]
    assert data[: len(lines)] == lines
    assert '"status": "finished"' in data[-1]
    # Bad requests say what is wrong.
    for body, needle in [
        ({"game": "chess", "bots": ["a", "b"]}, "unknown game"),
        ({"game": "rps", "bots": ["pybot"]}, "rps takes 2 bots, got 1"),
        ({"game": "rps", "bots": ["pybot", "nobody"]}, "no bot"),
        ({"game": "rps", "bots": ["pybot", "builtin:zzz"]}, "no built-in bot"),
        ({"game": "rps", "bots": ["pybot", "pybot"], "options": {"turns": -1}}, "turns"),
        ({"game": "rps", "bots": ["pybot", "pybot"], "options": {"colour": 1}}, "colour"),
    ]:
        r = await api.http.post("/api/matches", json=body, headers=api.auth(alice))
        assert r.status_code in (400, 404), (body, r.text)
        assert needle in r.json()["error"], (body, r.json())


async def test_ladder_rates_bots_and_ignores_judge_failures(api: Api) -> None:
    alice = await api.user("alice")
    ids = {}
    for name, filename, source in [
        ("py1", "rps_bot.py", PY_BOT),
        ("js1", "rps.js", JS_BOT),
        ("py2", "rps_bot.py", PY_BOT),
    ]:
        up = await api.upload(alice, name, filename, source)
        ids[name] = up["bot"]["id"]
        assert (await api.checked(up["bot"]["id"], 1))["state"] == "ready"
    service = api.service
    service.config.ladder_backlog = 3
    queued = await service.ladder.round()
    assert len(queued) == 3
    # Every bot is picked about equally often.
    counts = await service.ctx.storage.ladder_counts("rps")
    assert sorted(counts.values())[-1] - sorted(counts.values())[0] <= 2
    for match in queued:
        assert (await api.finished(match.id))["status"] == "finished"
    board = (await api.http.get("/api/leaderboard/rps")).json()
    assert sum(row["games"] for row in board) == 6
    assert [row["score"] for row in board] == sorted((row["score"] for row in board), reverse=True)
    before = {row["bot"]: (row["mu"], row["games"]) for row in board}
    # The judge loses a bot's files (a judge failure): the match is not held against anyone.
    shutil.rmtree(service.config.version_dir(ids["py2"], 1) / "box")
    seats = await service.catalog.seats_from_refs("rps", ["py2", "py1"])
    match = await service.scheduler.enqueue(
        game="rps", kind="ladder", options={"turns": 10}, rated=True, seats=seats
    )
    done = await api.finished(match.id)
    assert done["status"] in ("cancelled", "error") and done["error"]
    after = {
        row["bot"]: (row["mu"], row["games"])
        for row in (await api.http.get("/api/leaderboard/rps")).json()
    }
    assert after == before


async def wait_tournament(api: Api, tid: str) -> dict[str, Any]:
    with trio.fail_after(90):
        while True:
            t = (await api.http.get(f"/api/tournaments/{tid}")).json()
            if t["status"] != "running":
                return dict(t)
            await trio.sleep(0.2)


async def test_tournament_round_robin(api: Api) -> None:
    alice = await api.user("alice")
    for name, filename, source in [("py1", "rps_bot.py", PY_BOT), ("js1", "rps.js", JS_BOT)]:
        up = await api.upload(alice, name, filename, source)
        await api.checked(up["bot"]["id"], 1)
    r = await api.http.post(
        "/api/tournaments",
        json={
            "game": "rps",
            "bots": ["py1", "js1", "builtin:rock"],
            "options": {"turns": 20},
            "seed": 7,
        },
        headers=api.auth(alice),
    )
    assert r.status_code == 202, r.text
    tid = r.json()["id"]
    t = await wait_tournament(api, tid)
    assert t["status"] == "finished"
    standings = t["standings"]
    assert standings["format"].startswith("round robin")
    assert standings["matches"] == 3 and standings["finished"] == 3
    table = {row["name"]: row for row in standings["table"]}
    assert set(table) == {"py1@1", "js1@1", "builtin:rock"}
    assert all(row["played"] == 2 for row in table.values())
    assert table["builtin:rock"]["rank"] == 3  # rock loses to both adaptive bots
    assert sum(row["points"] for row in table.values()) == 3
    matches = (await api.http.get(f"/api/matches?tournament={tid}")).json()
    assert len(matches) == 3 and {m["kind"] for m in matches} == {"tournament"}
    # The seeds are judge.tournament's: the same spec gives the same matches.
    from judge.tournament import match_seed

    assert sorted(m["seed"] for m in matches) == sorted(
        match_seed(7, k, bits=63) for k in (1, 2, 3)
    )


async def test_tournament_counting_arena_boards(api: Api) -> None:
    alice = await api.user("alice")
    r = await api.http.post(
        "/api/tournaments",
        json={
            "game": "counting",
            "bots": ["builtin:crab", "builtin:zoidberg", "builtin:dedicated"],
            "options": {"rounds": 10},
            "runs": 3,
            "concurrency": 2,
            "seed": 1,
        },
        headers=api.auth(alice),
    )
    assert r.status_code == 202, r.text
    t = await wait_tournament(api, r.json()["id"])
    assert t["status"] == "finished"
    standings = t["standings"]
    # Two arena matches of every bot, the three runs shared out 2 + 1.
    assert standings["matches"] == standings["finished"] == 2
    boards = {
        b["name"]: [(row["name"], row["value"]) for row in b["rows"]] for b in standings["boards"]
    }
    # Per run: zoidberg takes 96 a round from the counter, crab 2 a round from both.
    assert boards["score"] == [
        ("builtin:zoidberg", 2880),
        ("builtin:crab", 120),
        ("builtin:dedicated", 0),
    ]
    assert boards["wins"] == [
        ("builtin:crab", 6),
        ("builtin:zoidberg", 3),
        ("builtin:dedicated", 0),
    ]
    table = {row["name"]: row for row in standings["table"]}
    assert all(row["played"] == 6 for row in table.values())


async def test_tournament_free_for_all_and_refusals(api: Api) -> None:
    alice = await api.user("alice")
    r = await api.http.post(
        "/api/tournaments",
        json={
            "game": "liarsdice",
            "bots": ["builtin:computer", "builtin:robot", "builtin:computer"],
            "games": 2,
        },
        headers=api.auth(alice),
    )
    assert r.status_code == 202, r.text
    t = await wait_tournament(api, r.json()["id"])
    assert t["standings"]["matches"] == 2 and t["standings"]["finished"] == 2
    assert [row["played"] for row in t["standings"]["table"]] == [2, 2, 2]
    assert sum(row["games_won"] for row in t["standings"]["table"]) == 2
    r = await api.http.post(
        "/api/tournaments",
        json={"game": "liarsdice", "bots": ["builtin:computer"] * 2, "settings": {"games": 3}},
        headers=api.auth(alice),
    )
    assert r.status_code == 202, r.text
    assert r.json()["spec"]["settings"]["settings"] == {"games": 3}
    assert len(r.json()["spec"]["plan"]) == 3
    assert (await wait_tournament(api, r.json()["id"]))["status"] == "finished"
    # The request's old form still works, where a format does not take it too (as before).
    for body in (
        {"game": "liarsdice", "bots": ["builtin:computer"] * 2, "games": 2},
        {"game": "rps", "bots": ["builtin:rock", "builtin:paper"], "games": 2},
    ):
        r = await api.http.post("/api/tournaments", json=body, headers=api.auth(alice))
        assert r.status_code == 202, (body, r.text)
        assert (await wait_tournament(api, r.json()["id"]))["status"] == "finished"
    for body, needle in [
        ({"game": "rps", "bots": ["builtin:rock"]}, "bots"),
        ({"game": "rps", "bots": ["builtin:rock", "builtin:paper"], "games": 0}, "games"),
        ({"game": "rps", "bots": ["builtin:rock", "builtin:nope"]}, "no built-in bot"),
        (
            {"game": "rps", "bots": ["builtin:rock", "builtin:paper"], "options": {"turns": 0}},
            "turns",
        ),
        # Settings are the format's: rps's round robin has none, liar's dice's games are bounded.
        (
            {"game": "rps", "bots": ["builtin:rock", "builtin:paper"], "settings": {"games": 2}},
            "settings.games",
        ),
        (
            {"game": "liarsdice", "bots": ["builtin:computer"] * 2, "settings": {"games": 0}},
            "settings.games",
        ),
    ]:
        r = await api.http.post("/api/tournaments", json=body, headers=api.auth(alice))
        assert r.status_code == 400, (body, r.text)
        assert needle in r.json()["error"], (body, r.json())


async def test_queue_survives_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "data"
    async with trio.open_nursery() as nursery:
        first = await open_api(data, nursery, concurrency=1)
        alice = await first.user("alice")
        up = await first.upload(alice, "slow", "slow.py", SLOW_PY_BOT)
        await first.checked(up["bot"]["id"], 1)
        ids = []
        for _ in range(3):
            r = await first.http.post(
                "/api/matches",
                json={
                    "game": "rps",
                    "bots": ["slow", "builtin:paper"],
                    "options": {"turns": 200},
                },
                headers=first.auth(alice),
            )
            ids.append(r.json()["id"])
        with trio.fail_after(30):
            while True:
                if (await first.http.get(f"/api/matches/{ids[0]}")).json()["status"] == "running":
                    break
                await trio.sleep(0.05)
        nursery.cancel_scope.cancel()  # the server stops in the middle of a match
    await first.http.aclose()
    await first.service.close()
    async with trio.open_nursery() as nursery:
        second = await open_api(data, nursery, concurrency=2)
        assert second.admin == ""  # no new admin token on a restart
        results = [await second.finished(i) for i in ids]
        assert [m["status"] for m in results] == ["finished"] * 3
        assert results[0]["attempts"] == 2
        assert all(m["result"]["turns"] == 200 for m in results)
        nursery.cancel_scope.cancel()
    await second.http.aclose()
    await second.service.close()


async def test_cancel_a_queued_match(tmp_path: Path, nursery: trio.Nursery) -> None:
    api = await open_api(tmp_path / "data", nursery, concurrency=1)
    alice = await api.user("alice")
    bob = await api.user("bob")
    up = await api.upload(alice, "slow", "slow.py", SLOW_PY_BOT)
    await api.checked(up["bot"]["id"], 1)
    body = {"game": "rps", "bots": ["slow", "builtin:rock"], "options": {"turns": 300}}
    first = (await api.http.post("/api/matches", json=body, headers=api.auth(alice))).json()
    second = (await api.http.post("/api/matches", json=body, headers=api.auth(alice))).json()
    r = await api.http.delete(f"/api/matches/{second['id']}", headers=api.auth(bob))
    assert r.status_code == 403
    r = await api.http.delete(f"/api/matches/{second['id']}", headers=api.auth(alice))
    assert r.status_code == 200 and r.json()["status"] == "cancelled"
    assert (await api.finished(first["id"]))["status"] == "finished"
    assert (await api.http.get(f"/api/matches/{second['id']}")).json()["status"] == "cancelled"
    await api.http.aclose()
    await api.service.close()


async def stuck_match(api: Api) -> str:
    """A match a server that is gone left running: claimed by it, not renewed for ages."""
    admin = await api.service.accounts.user_from_header(f"Bearer {api.admin}", required=True)
    assert admin is not None
    rock = Seat(builtin="rock", name="builtin:rock")
    match = await api.service.scheduler.enqueue(
        game="rps",
        kind="manual",
        seats=[rock, rock.model_copy()],
        options={"turns": 20},
        requested_by=admin.id,
        held=True,  # (so this server does not claim it first)
    )
    storage = api.service.ctx.storage
    assert isinstance(storage, SQLiteStorage)
    await storage._tx(
        lambda c: c.execute(
            "UPDATE matches SET status = 'running', held = 0, claimed_by = 'gone-1-x', "
            "heartbeat = 1, attempts = 1 WHERE id = ?",
            (match.id,),
        )
    )
    return match.id


async def test_the_admin_cancels_a_stuck_match_at_once(
    tmp_path: Path, nursery: trio.Nursery
) -> None:
    """Before: the cancel was left for the stuck match's server to see, waited 30 s and
    answered with the match still running."""
    api = await open_api(tmp_path / "data", nursery, lease=60.0)
    match_id = await stuck_match(api)
    health = (await api.http.get("/api/health")).json()
    assert health["ok"] is False and health["stuck_matches"] == [match_id], health
    with trio.fail_after(10):
        r = await api.http.delete(f"/api/matches/{match_id}", headers=api.auth(api.admin))
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "cancelled" and "cancelled by admin" in r.json()["error"]
    r = await api.http.delete(f"/api/matches/{match_id}", headers=api.auth(api.admin))
    assert r.status_code == 400 and "cancelled already" in r.json()["error"]
    await api.http.aclose()
    await api.service.close()


async def test_a_match_nobody_renews_runs_again_on_sqlite(
    tmp_path: Path, nursery: trio.Nursery
) -> None:
    """Alone on SQLite, a server takes back a running match whose lease lapsed (before: only
    a restart did, so a match whose result could not be recorded stayed running)."""
    api = await open_api(tmp_path / "data", nursery, lease=1.0)
    match_id = await stuck_match(api)
    match = await api.finished(match_id)
    assert match["status"] == "finished" and match["attempts"] == 2, match
    assert (await api.http.get("/api/health")).json()["stuck_matches"] == []
    await api.http.aclose()
    await api.service.close()


async def test_bodies_over_the_limit_are_refused(api: Api) -> None:
    alice = await api.user("alice")
    big = b'{"label": "' + b"x" * (2 << 20) + b'"}'
    r = await api.http.post("/api/tokens", content=big, headers=api.auth(alice))
    assert r.status_code == 413
    api.service.config.limits = type(api.service.config.limits)(upload_bytes=1000)
    r = await api.http.post(
        "/api/bots",
        data={"name": "big", "game": "rps"},
        files={"file": ("big.py", b"#" * 100_000)},
        headers=api.auth(alice),
    )
    assert r.status_code == 413
    assert (await api.http.get("/api/bots")).json() == []


async def test_a_running_match_replay_and_a_late_watcher(api: Api) -> None:
    alice = await api.user("alice")
    up = await api.upload(alice, "slow", "slow.py", SLOW_PY_BOT)
    await api.checked(up["bot"]["id"], 1)
    r = await api.http.post(
        "/api/matches",
        json={
            "game": "rps",
            "bots": ["slow", "builtin:paper"],
            "options": {"turns": 300},
        },
        headers=api.auth(alice),
    )
    match_id = r.json()["id"]
    with trio.fail_after(60):
        while True:
            partial = await api.http.get(f"/api/matches/{match_id}/replay")
            if partial.status_code == 200 and partial.text.count("\n") > 20:
                break
            await trio.sleep(0.05)
    assert partial.headers["x-match-status"] == "running"
    assert partial.text.endswith("\n")
    so_far = partial.text.splitlines()
    assert so_far[0].startswith("#judge-replay ") and 20 < len(so_far) < 300
    # A watcher joining now gets the file so far, then the live lines: each line once, in order.
    stream = await api.http.get(f"/api/matches/{match_id}/live")
    ids = [int(ln[4:]) for ln in stream.text.splitlines() if ln.startswith("id: ")]
    data = [ln[6:] for ln in stream.text.splitlines() if ln.startswith("data: ")]
    assert ids == list(range(302))  # header, 300 turns, result
    full = (await api.http.get(f"/api/matches/{match_id}/replay")).text.splitlines()
    assert data[:302] == full
    assert full[: len(so_far)] == so_far
    # Resuming after a line index gives only what follows it.
    resumed = await api.http.get(f"/api/matches/{match_id}/live", headers={"last-event-id": "299"})
    assert [int(ln[4:]) for ln in resumed.text.splitlines() if ln.startswith("id: ")] == [300, 301]


@pytest.mark.parametrize(
    "manifest",
    [
        'run = "./bot {data}/judge.sqlite3"',
        'run = "{data}/bots/1/versions/1/box/bot"',
        'run = "./bot"\nbuild = "cp -R {data} ."',
        'run = "./bot ../../../judge.sqlite3"',
    ],
)
async def test_upload_naming_a_host_path_is_refused(api: Api, manifest: str) -> None:
    """Issue 11 §2: a bot.toml may name programs on PATH and files in its box, nothing else."""
    from tests.server_helpers import tar_gz

    alice = await api.user("alice")
    text = manifest.format(data=api.service.config.data)
    archive = tar_gz({"bot.toml": text + "\n", "bot": "#!/bin/sh\nexit 0\n"})
    r = await api.http.post(
        "/api/bots",
        data={"name": "peeker", "game": "rps"},
        files={"file": ("peek.tar.gz", archive)},
        headers=api.auth(alice),
    )
    assert r.status_code == 400, r.text
    assert "cannot be used" in r.json()["error"], r.json()
    assert "only its own directory" in r.json()["error"]


async def test_a_chosen_seed_is_mixed_with_the_servers_key(api: Api, tmp_path: Path) -> None:
    """The CLI's `--seed 5` is guessable by anyone; the server's seed 5 is not (seeds.py)."""
    from games.seeds import commitment, keyed_secret, seat_seed, secret_from_seed
    from replays.verify import verify_file

    alice = await api.user("alice")
    body = {"game": "liarsdice", "bots": ["builtin:computer", "builtin:robot"], "seed": 5}
    r = await api.http.post("/api/matches", json=body, headers=api.auth(alice))
    assert r.status_code == 202, r.text
    match = await api.finished(r.json()["id"])
    result = match["result"]
    assert match["status"] == "finished" and result["seed"] == 5
    key_file = api.service.config.data / "seed.key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    secret = keyed_secret(bytes.fromhex(key_file.read_text()), 5)
    assert result["secret"] == secret.hex() != secret_from_seed(5).hex()
    assert seat_seed(secret, 0) != seat_seed(secret_from_seed(5), 0)
    replay = tmp_path / "m.replay"
    replay.write_bytes((await api.http.get(f"/api/matches/{match['id']}/replay")).content)
    header = replay.read_text().splitlines()[0]
    assert '"seed"' not in header and commitment(secret) in header
    assert verify_file(replay).ok
