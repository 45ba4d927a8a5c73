"""Contests end to end in process: a real service, storage, scheduler and bot processes, the
clock injected so a contest opens and closes in seconds; the archive and its verification."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
from click.testing import CliRunner

from judge.contests import archive
from judge.contests.results import FinalMatch, compute, shares
from judge.server.app import build_app
from judge.server.config import ServerConfig
from judge.server.contests import rules_html
from judge.server.db import storage_for
from judge.server.records import Contest, Launch, Match, Seat
from judge.server.service import Service
from judge.server.storage import Conflict, Storage
from tests.server_helpers import PY_BOT
from tests.test_server_api import Api

T0 = 1_900_000_000.0  # a fixed "now" for the injected clock (2030-03-17 17:46:40 UTC)

FIXED_BOT = """\
import sys
for line in sys.stdin:
    if line.startswith("END"):
        break
    if line.strip() == ".":
        sys.stdout.write("{move}\\n.\\n")
        sys.stdout.flush()
"""


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


@dataclass
class Clock:
    now: float = T0

    def __call__(self) -> float:
        return self.now


async def open_contest_api(data: Path, nursery: trio.Nursery, storage: Storage) -> Api:
    """The API on ``storage`` (SQLite here, PostgreSQL in tests/test_contests_postgres.py)."""
    config = ServerConfig(
        data=data,
        ladder=False,
        builtin_bots=False,
        concurrency=2,
        turn_deadline=5.0,
        ladder_backlog=1,
    )
    service = Service(config, storage)
    await service.open()
    await nursery.start(service.run)
    http = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=build_app(service)), base_url="http://judge.test"
    )
    return Api(service, http, service.admin_token or "")


@pytest.fixture
async def api(tmp_path: Path, nursery: trio.Nursery) -> AsyncIterator[Api]:
    data = tmp_path / "data"
    data.mkdir()
    opened = await open_contest_api(
        data, nursery, storage_for(f"sqlite:///{data / 'judge.sqlite3'}")
    )
    yield opened
    await opened.http.aclose()
    await opened.service.close()


def definition(**changes: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "name": "class-2030",
        "title": "Rock, paper, scissors: the class of 2030",
        "game": "rps",
        "options": {"turns": 30},
        "opens": iso(T0 + 60),
        "closes": iso(T0 + 3600),
        "entrants": ["alice", "bob", "carol"],
        "submissions_per_day": 2,
        "freeze_hours": 0.5,
        "publish_files": True,
        "rules": "# Rules\n\nBeat **everyone**. <script>alert(1)</script>\n",
        "final": {"format": "round_robin", "games_per_pair": 2, "alternate_seats": True},
    }
    spec.update(changes)
    return spec


async def submit(api: Api, token: str, source: str, name: str = "class-2030") -> Any:
    return await api.http.post(
        f"/api/contests/{name}/versions",
        files={"file": ("bot.py", source.encode())},
        headers=api.auth(token),
    )


async def wait_for(api: Api, path: str, done: Any, seconds: float = 120) -> Any:
    with trio.fail_after(seconds):
        while True:
            data = (await api.http.get(path)).json()
            if done(data):
                return data
            await trio.sleep(0.1)


async def run_contest(api: Api, clock: Clock) -> dict[str, str]:
    """The whole life of a contest; the users' tokens."""
    api.service.contests.clock = clock
    r = await api.http.post("/api/contests", json=definition(), headers=api.auth(api.admin))
    assert r.status_code == 201, r.text
    tokens = {name: await api.user(name) for name in ("alice", "bob", "carol", "dave")}

    r = await submit(api, tokens["alice"], PY_BOT)
    assert r.status_code == 403 and "opens at" in r.json()["error"]

    clock.now = T0 + 120  # open
    sources = {
        "alice": PY_BOT,
        "bob": FIXED_BOT.format(move="R"),
        "carol": FIXED_BOT.format(move="P"),
    }
    for user, source in sources.items():
        r = await submit(api, tokens[user], source)
        assert r.status_code == 202, r.text
        assert r.json()["left_today"] == 1
    r = await submit(api, tokens["dave"], PY_BOT)
    assert r.status_code == 403 and "not among the entrants" in r.json()["error"]
    # carol: her second of the day is taken, the third is over the limit
    assert (await submit(api, tokens["carol"], FIXED_BOT.format(move="P"))).status_code == 202
    over = await submit(api, tokens["carol"], FIXED_BOT.format(move="S"))
    assert over.status_code == 429 and "2 submissions a day" in over.json()["error"]

    mine = await wait_for_checks(api, tokens["carol"])
    assert mine["left_today"] == 0 and len(mine["submissions"]) == 2
    assert mine["counted"] == "carol-class-2030@2"
    assert all(s["state"] == "ready" for s in mine["submissions"])

    # The contest's own ladder plays its entries only.
    board = await wait_for(
        api,
        "/api/contests/class-2030/board",
        lambda b: sum(r["games"] for r in b["rows"]) >= 4,
    )
    assert {r["user"] for r in board["rows"]} == {"alice", "bob", "carol"}
    assert board["frozen"] is False and board["history"]

    clock.now = T0 + 3600 - 600  # the last half hour: the board is frozen
    frozen = (await api.http.get("/api/contests/class-2030/board")).json()
    assert frozen["frozen"] is True and frozen["as_of"] == T0 + 1800

    clock.now = T0 + 3601  # closed
    late = await submit(api, tokens["bob"], FIXED_BOT.format(move="S"))
    assert late.status_code == 403 and "closed" in late.json()["error"]
    api.service.contests.wake()
    contest = await wait_for(
        api, "/api/contests/class-2030", lambda c: c["phase"] in ("finished", "error")
    )
    assert contest["phase"] == "finished", contest["error"]
    assert sorted(contest["final"]["entries"]) == [
        "alice-class-2030@1",
        "bob-class-2030@1",
        "carol-class-2030@2",
    ]
    assert contest["final"]["total"] == contest["final"]["done"] == 6
    return tokens


async def wait_for_checks(api: Api, token: str) -> Any:
    with trio.fail_after(120):
        while True:
            r = await api.http.get("/api/contests/class-2030/me", headers=api.auth(token))
            mine = r.json()
            if all(s["state"] != "checking" for s in mine["submissions"]):
                return mine
            await trio.sleep(0.1)


async def test_a_contest_from_opening_to_verified_results(api: Api, tmp_path: Path) -> None:
    await check_contest_life(api, tmp_path)


async def check_contest_life(api: Api, tmp_path: Path) -> None:
    await run_contest(api, Clock())
    contest = (await api.http.get("/api/contests/class-2030")).json()
    results = contest["results"]
    assert results["matches"] == 6 and "bootstrap" in results["method"]
    rows = {r["entry"]: r for r in results["standings"]}
    assert len(rows) == 3
    for row in rows.values():
        assert row["low"] <= row["score"] <= row["high"]
        assert row["matches"] == 4
    # paper beats rock every time; the copycat beats paper's repetition
    assert rows["carol-class-2030@2"]["wins"] >= 2
    assert rows["bob-class-2030@1"]["score"] < rows["carol-class-2030@2"]["score"]
    cross = results["cross"]
    i, j = cross["names"].index("carol-class-2030@2"), cross["names"].index("bob-class-2030@1")
    assert cross["points"][i][j] == 2 and cross["games"][i][j] == 2

    # Every final match: the seats of a pair swap on one seed.
    matches = (await api.http.get("/api/contests/class-2030/matches")).json()
    by_pair: dict[frozenset[str], list[Any]] = {}
    for match in matches:
        by_pair.setdefault(frozenset(s["name"] for s in match["seats"]), []).append(match)
    for twins in by_pair.values():
        assert len(twins) == 2 and twins[0]["seed"] == twins[1]["seed"]
        assert twins[0]["seats"] == twins[1]["seats"][::-1]

    # Rules: Markdown rendered, raw HTML not passed through.
    assert "<h1>Rules</h1>" in contest["rules_html"] and "<script>" not in contest["rules_html"]

    r = await api.http.get("/api/contests/class-2030/archive")
    assert r.status_code == 200 and r.headers["content-type"] == "application/gzip"
    path = tmp_path / "contest.tar.gz"
    path.write_bytes(r.content)
    report = await trio.to_thread.run_sync(lambda: archive.verify(path, replay_matches=2))
    assert report.problems == []
    assert report.replays_verified == 6 and report.replayed == 2
    members = archive.read(path)
    entries = json.loads(members["entries.json"])
    assert {e["user"] for e in entries} == {"alice", "bob", "carol"}
    assert all(len(e["sha256"]) == 64 for e in entries)
    assert "files/carol-class-2030@2/bot.py" in members

    # Tampering: a replay's move, with the manifest made to match, is caught by the rules.
    replay_name = next(n for n in sorted(members) if n.startswith("replays/"))
    lines = members[replay_name].decode().splitlines(keepends=True)
    turn = next(k for k, line in enumerate(lines) if not line.startswith("#"))
    lines[turn] = lines[turn].replace("R", "S", 1) if "R" in lines[turn] else "S" + lines[turn][1:]
    tampered = rewrite(path, tmp_path / "t1.tar.gz", {replay_name: "".join(lines).encode()})
    problems = archive.verify(tampered).problems
    assert any(p.startswith(replay_name) for p in problems), problems

    # Tampering: another match's replay in its place.
    others = [n for n in sorted(members) if n.startswith("replays/") and n != replay_name]
    tampered = rewrite(path, tmp_path / "t0.tar.gz", {replay_name: members[others[0]]})
    problems = archive.verify(tampered).problems
    assert any(p.startswith(f"{replay_name}: it is the replay of match") for p in problems), (
        problems
    )

    # Tampering: one score in the results.
    published = json.loads(members["results.json"])
    published["standings"][0]["score"] = 0.001
    leader = published["standings"][0]["entry"]
    tampered = rewrite(
        path, tmp_path / "t2.tar.gz", {"results.json": json.dumps(published).encode()}
    )
    problems = archive.verify(tampered).problems
    assert any(f"{leader} score 0.001 published" in p for p in problems), problems

    # Tampering without fixing the manifest: named by the manifest check too.
    tampered = rewrite(
        path, tmp_path / "t3.tar.gz", {"results.json": json.dumps(published).encode()}, fix=False
    )
    problems = archive.verify(tampered).problems
    assert "results.json: its SHA-256 differs from MANIFEST.sha256" in problems

    # The CLI: one line per discrepancy, exit status 1; 0 on the genuine archive.
    from judge.cli import main

    runner = CliRunner()
    good = runner.invoke(main, ["contest", "verify", str(path)])
    assert good.exit_code == 0, good.output
    bad = runner.invoke(main, ["contest", "verify", str(tmp_path / "t2.tar.gz")])
    assert bad.exit_code == 1 and f"{leader} score 0.001 published" in bad.output


def rewrite(source: Path, dest: Path, changes: dict[str, bytes], *, fix: bool = True) -> Path:
    members = archive.read(source)
    members.update(changes)
    if fix:
        members.pop(archive.MANIFEST)
        members[archive.MANIFEST] = archive.manifest(members)
    with tarfile.open(dest, "w:gz") as out:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    return dest


async def test_contest_definitions_are_checked(api: Api) -> None:
    admin = api.auth(api.admin)
    token = await api.user("erin")
    assert (
        await api.http.post("/api/contests", json=definition(), headers=api.auth(token))
    ).status_code == 403
    bad = await api.http.post("/api/contests", json=definition(closes=iso(T0)), headers=admin)
    assert bad.status_code == 400 and "closes must be after opens" in bad.json()["error"]
    unknown = await api.http.post("/api/contests", json=definition(prize=1), headers=admin)
    assert unknown.status_code == 422 and "prize" in unknown.json()["error"]
    options = await api.http.post(
        "/api/contests", json=definition(options={"turns": -1}), headers=admin
    )
    assert options.status_code == 400 and "turns" in options.json()["error"]
    settings = definition(final={"format": "game", "settings": {"runs": 0}})
    refused = await api.http.post("/api/contests", json=settings, headers=admin)
    assert refused.status_code == 400 and "bad final round" in refused.json()["error"]
    assert (
        await api.http.post("/api/contests", json=definition(), headers=admin)
    ).status_code == 201
    again = await api.http.post("/api/contests", json=definition(), headers=admin)
    assert again.status_code == 409
    for page in ("/contests", "/contests/class-2030?tab=results", "/contests/class-2030/mine"):
        served = await api.http.get(page)
        assert served.status_code == 200 and "text/html" in served.headers["content-type"], page
    assert "/api/contests/{name}/archive" in (await api.http.get("/openapi.json")).json()["paths"]
    listed = (await api.http.get("/api/contests")).json()
    assert [c["name"] for c in listed] == ["class-2030"]
    assert (await api.http.get("/api/contests/nope")).status_code == 404


def test_results_ties_at_the_top_and_intervals() -> None:
    assert shares([1, 2]) == [1.0, 0.0] and shares([1, 1]) == [0.5, 0.5]
    assert shares([1, 2, 2]) == [1.0, 0.25, 0.25]
    # a and b split their games; both beat c every time: a and b are tied at the top.
    matches = []
    for k in range(20):
        first, second = ("a", "b") if k % 2 else ("b", "a")
        matches.append(FinalMatch(f"m{k:02}", (first, second), (1, 2), f"{k:064x}"))
        matches.append(FinalMatch(f"n{k:02}", ("a", "c"), (1, 2), f"{k + 50:064x}"))
        matches.append(FinalMatch(f"o{k:02}", ("c", "b"), (2, 1), f"{k + 99:064x}"))
    results = compute(["a", "b", "c"], matches)
    ranks = {r.entry: (r.rank, r.tied) for r in results.standings}
    assert ranks == {"a": (1, True), "b": (1, True), "c": (3, False)}
    c = next(r for r in results.standings if r.entry == "c")
    assert c.score == c.low == c.high == 0.0
    # The same replays give the same numbers: the bootstrap is seeded from them.
    assert compute(["a", "b", "c"], list(reversed(matches))) == results
    other = [
        FinalMatch(
            m.match_id, m.names, m.ranks, hashlib.sha256(m.replay_sha256.encode()).hexdigest()
        )
        for m in matches
    ]
    assert compute(["a", "b", "c"], other).seed != results.seed


def test_rules_markdown_is_sanitised() -> None:
    html = rules_html(
        "**bold** [x](javascript:alert(1)) <img src=x onerror=alert(1)>\n\n| a |\n|---|\n| 1 |"
    )
    assert "<strong>bold</strong>" in html
    assert 'href="javascript' not in html and "<img" not in html  # shown as text only
    assert "&lt;img" in html
    link = rules_html("[the kit](https://example.org/kit)")
    assert 'href="https://example.org/kit"' in link and "noopener" in link
    assert "<table>" in html


# -- storage: every backend (PostgreSQL in tests/test_contests_postgres.py) -------------
async def check_contest_storage(storage: Storage) -> None:
    """The contest part of the Storage interface, backend-neutral."""
    owner = await storage.create_user("alice")
    other = await storage.create_user("bob")
    contest = Contest(name="c1", spec={"closes": "2030-01-02T00:00:00+00:00"}, created=1.0)
    await storage.create_contest(contest)
    with pytest.raises(Conflict):
        await storage.create_contest(contest)
    await storage.create_contest(
        Contest(name="c0", spec={"closes": "2029-01-01T00:00:00+00:00"}, created=2.0)
    )
    assert [c.name for c in await storage.list_contests()] == ["c1", "c0"]
    assert await storage.get_contest("zz") is None

    bot = await storage.create_bot("alice-c1", owner.id, "rps")
    launch = Launch(kind="command", run="./bot")
    for number in (1, 2):
        await storage.add_version(
            bot.id, filename="bot", size=3, sha256=f"{number:064x}", launch=launch
        )
        await storage.add_contest_entry("c1", owner.id, bot.id, number, submitted=10.0 + number)
    await storage.set_version_state(bot.id, 1, "ready", message="passed")
    entries = await storage.contest_entries("c1")
    assert [(e.entry, e.state, e.user, e.chosen) for e in entries] == [
        ("alice-c1@1", "ready", "alice", False),
        ("alice-c1@2", "checking", "alice", False),
    ]
    assert entries[0].sha256 == f"{1:064x}" and entries[1].submitted == 12.0
    assert await storage.contest_entries("c1", user_id=other.id) == []
    assert await storage.choose_contest_entry("c1", owner.id, bot.id, 1)
    assert not await storage.choose_contest_entry("c1", other.id, bot.id, 2)
    assert [e.chosen for e in await storage.contest_entries("c1")] == [True, False]
    assert await storage.choose_contest_entry("c1", owner.id, bot.id, 2)
    assert [e.chosen for e in await storage.contest_entries("c1")] == [False, True]

    seats = [
        Seat(bot_id=bot.id, version=1, name="alice-c1@1"),
        Seat(builtin="rock", name="builtin:rock"),
    ]
    ladder = Match(
        id="l1",
        game="rps",
        kind="contest",
        status="queued",
        seats=seats,
        options={},
        seed=1,
        created=1.0,
    )
    finals = [
        Match(
            id=f"f{i}",
            game="rps",
            kind="final",
            status="queued",
            seats=seats,
            options={},
            seed=i,
            created=2.0 + i,
        )
        for i in range(3)
    ]
    await storage.add_contest_matches("c1", "contest", [(ladder, 0)])
    await storage.add_contest_matches("c1", "final", [(m, 10) for m in finals])
    assert [m.id for m in await storage.contest_matches("c1", kind="final")] == ["f0", "f1", "f2"]
    assert [m.id for m in await storage.contest_matches("c1")] == ["l1", "f0", "f1", "f2"]
    assert await storage.contest_matches("c0") == []
    # Priorities hold: a final match is claimed before the contest's ladder match.
    claimed = await storage.claim_next_match(100.0, "me")
    assert claimed is not None and claimed.id == "f0"
    # One transaction: a match id twice leaves none of them.
    with pytest.raises(Exception):  # noqa: B017 (each backend's own integrity error)
        await storage.add_contest_matches("c0", "final", [(finals[0], 10)])
    assert await storage.contest_matches("c0") == []

    # The final round starts once, whoever tries first (several servers on one database).
    extra = Match(
        id="f9",
        game="rps",
        kind="final",
        status="queued",
        seats=seats,
        options={},
        seed=9,
        created=9.0,
    )
    assert await storage.start_contest_final(
        "c0", {"entries": [], "matches": ["f9"]}, [(extra, 10)]
    )
    assert not await storage.start_contest_final("c0", {"entries": []}, [(extra, 10)])
    got0 = await storage.get_contest("c0")
    assert (
        got0 is not None
        and got0.stage == "final"
        and got0.final == {"entries": [], "matches": ["f9"]}
    )
    assert [m.id for m in await storage.contest_matches("c0", kind="final")] == ["f9"]
    await storage.update_contest("c1", stage="final", final={"entries": [], "matches": ["f0"]})
    await storage.update_contest("c1", stage="finished", results={"standings": []}, finished=9.0)
    got = await storage.get_contest("c1")
    assert got is not None and got.stage == "finished" and got.finished == 9.0
    assert got.final == {"entries": [], "matches": ["f0"]} and got.results == {"standings": []}
    # Every row travels with judge db copy.
    rows = await storage.export_rows()
    assert len(rows["contests"]) == 2 and len(rows["contest_entries"]) == 2
    assert len(rows["contest_matches"]) == 5


async def test_contest_storage_on_sqlite(tmp_path: Path) -> None:
    storage = storage_for(f"sqlite:///{tmp_path / 'judge.sqlite3'}")
    await storage.open()
    try:
        await check_contest_storage(storage)
    finally:
        await storage.close()


async def test_the_chosen_version_counts(api: Api) -> None:
    clock = Clock(T0 + 120)
    api.service.contests.clock = clock
    spec = definition(counts="chosen", ladder=False, entrants="everyone", name="choosy")
    assert (
        await api.http.post("/api/contests", json=spec, headers=api.auth(api.admin))
    ).status_code == 201
    alice = await api.user("alice")
    for move in "PR":
        r = await submit(api, alice, FIXED_BOT.format(move=move), name="choosy")
        assert r.status_code == 202, r.text
    with trio.fail_after(120):
        while True:
            mine = (await api.http.get("/api/contests/choosy/me", headers=api.auth(alice))).json()
            if all(s["state"] == "ready" for s in mine["submissions"]):
                break
            await trio.sleep(0.1)
    assert mine["counted"] == "alice-choosy@2"  # the latest, until she chooses
    r = await api.http.post(
        "/api/contests/choosy/choice", json={"entry": "alice-choosy@1"}, headers=api.auth(alice)
    )
    assert r.status_code == 200 and r.json()["counted"] == "alice-choosy@1"
    board = (await api.http.get("/api/contests/choosy/board")).json()
    assert [row["entry"] for row in board["rows"]] == ["alice-choosy@1"]
    missing = await api.http.post(
        "/api/contests/choosy/choice", json={"entry": "alice-choosy@9"}, headers=api.auth(alice)
    )
    assert missing.status_code == 404
    bob = await api.user("bob")
    theirs = await api.http.post(
        "/api/contests/choosy/choice", json={"entry": "alice-choosy@2"}, headers=api.auth(bob)
    )
    assert theirs.status_code == 404 and "not one of your entries" in theirs.json()["error"]


def test_verify_refuses_what_is_not_an_archive(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not an archive at all")
    [problem] = archive.verify(junk).problems
    assert problem.startswith("cannot read")
    linked = tmp_path / "linked.tar.gz"
    with tarfile.open(linked, "w:gz") as out:
        info = tarfile.TarInfo("replays/x.replay")
        info.type = tarfile.SYMTYPE
        info.linkname = "/etc/passwd"
        out.addfile(info)
    [problem] = archive.verify(linked).problems
    assert "not a plain file" in problem


async def test_a_final_round_in_the_games_own_format_and_a_lone_entry(api: Api) -> None:
    clock = Clock(T0 + 120)
    api.service.contests.clock = clock
    admin = api.auth(api.admin)
    own = definition(name="own", entrants="everyone", ladder=False, final={"format": "game"})
    lone = definition(name="lone", entrants="everyone", ladder=False)
    for spec in (own, lone):
        assert (await api.http.post("/api/contests", json=spec, headers=admin)).status_code == 201
    tokens = {user: await api.user(user) for user in ("ann", "ben")}
    for user, move in (("ann", "P"), ("ben", "R")):
        r = await submit(api, tokens[user], FIXED_BOT.format(move=move), name="own")
        assert r.status_code == 202, r.text
    r = await submit(api, tokens["ann"], FIXED_BOT.format(move="S"), name="lone")
    assert r.status_code == 202, r.text
    clock.now = T0 + 3601
    api.service.contests.wake()
    for name in ("own", "lone"):
        await wait_for(api, f"/api/contests/{name}", lambda c: c["phase"] in ("finished", "error"))
    own_view = (await api.http.get("/api/contests/own")).json()
    # rps's own format: a round robin of one match per pair
    assert own_view["phase"] == "finished" and own_view["final"]["total"] == 1
    [first, second] = own_view["results"]["standings"]
    assert (first["entry"], first["rank"], second["rank"]) == ("ann-own@1", 1, 2)
    lone_view = (await api.http.get("/api/contests/lone")).json()
    assert lone_view["final"]["total"] == 0
    [only] = lone_view["results"]["standings"]
    assert only["entry"] == "ann-lone@1" and only["matches"] == 0 and only["rank"] == 1


async def test_a_restart_during_the_final_round_loses_nothing(tmp_path: Path) -> None:
    """The server stops once the final round is queued; the next one plays what is left,
    publishes the results, and the archive verifies."""
    data = tmp_path / "data"
    data.mkdir()
    url = f"sqlite:///{data / 'judge.sqlite3'}"
    clock = Clock(T0 + 120)
    async with trio.open_nursery() as outer:
        scope = trio.CancelScope()

        async def first_server(task_status: trio.TaskStatus[Api]) -> None:
            with scope:
                async with trio.open_nursery() as inner:
                    api = await open_contest_api(data, inner, storage_for(url))
                    task_status.started(api)
                    await trio.sleep_forever()

        api = await outer.start(first_server)
        api.service.contests.clock = clock
        spec = definition(ladder=False, options={"turns": 300})
        assert (
            await api.http.post("/api/contests", json=spec, headers=api.auth(api.admin))
        ).status_code == 201
        for user, move in (("alice", "P"), ("bob", "R"), ("carol", "S")):
            token = await api.user(user)
            assert (await submit(api, token, FIXED_BOT.format(move=move))).status_code == 202
            await wait_for_checks(api, token)
        clock.now = T0 + 3601
        api.service.contests.wake()
        await wait_for(
            api, "/api/contests/class-2030", lambda c: c["phase"] in ("final", "finished")
        )
        scope.cancel()
    await api.http.aclose()
    await api.service.close()

    async with trio.open_nursery() as nursery:
        again = await open_contest_api(data, nursery, storage_for(url))
        again.service.contests.clock = clock
        contest = await wait_for(
            again, "/api/contests/class-2030", lambda c: c["phase"] in ("finished", "error")
        )
        assert contest["phase"] == "finished" and contest["final"]["done"] == 6
        assert contest["final"]["failed"] == 0
        r = await again.http.get("/api/contests/class-2030/archive")
        path = tmp_path / "after-restart.tar.gz"
        path.write_bytes(r.content)
        report = await trio.to_thread.run_sync(archive.verify, path)
        assert report.problems == [] and report.replays_verified == 6
        await again.http.aclose()
        await again.service.close()
        nursery.cancel_scope.cancel()


def test_ladder_ratings_update_as_matches_end() -> None:
    from judge.server.contests import LadderRatings

    seats = [Seat(bot_id=1, version=1, name="a@1"), Seat(bot_id=2, version=1, name="b@1")]

    def ended(k: int, at: float, winner: int) -> Match:
        players = [{"seat": s, "rank": 1 if s == winner else 2, "outcome": "ok"} for s in range(2)]
        return Match(
            id=f"m{k}",
            game="rps",
            kind="contest",
            status="finished",
            seats=seats,
            options={},
            seed=k,
            created=at,
            finished=at,
            result={"players": players, "winner": winner},
        )

    matches = [ended(k, 10.0 + k, k % 3 == 0) for k in range(12)]
    whole = LadderRatings("rps").update(matches)
    step = LadderRatings("rps")
    for k in range(0, 12, 4):
        step = step.update(matches[: k + 4])
    assert step.ratings == whole.ratings and step.history == whole.history
    assert whole.ratings[(1, 1)].games == 12 and len(whole.history) == 24
    # A match that ended before the last one applied: computed again from the start.
    late = ended(99, 9.0, 1)
    again = step.update([*matches, late])
    assert again.ratings == LadderRatings("rps").update([late, *matches]).ratings
    assert again.history[0]["match_id"] == "m99"
    # Frozen: only what ended before the freeze.
    frozen = LadderRatings("rps", before=15.0).update(matches)
    assert frozen.ratings[(1, 1)].games == 5
