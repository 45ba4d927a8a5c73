"""The backend-neutral storage suite: every Storage backend must pass all of it.

A backend joins by adding its URL to the ``storage`` fixture; the tests speak only the Storage
interface (judge/server/storage.py), except the migration tests at the end, which are
about the SQLite files that servers before migrations wrote.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import trio

from judge.server.db import BadDatabaseURL, storage_for
from judge.server.records import Contest, Launch, Match, Rating, Seat, Tournament
from judge.server.sqlite import MIGRATIONS, SCHEMA_V1, SCHEMA_VERSION
from judge.server.storage import Conflict, Storage
from tests.postgres_helpers import PostgresServer, missing_reason, postgres_server


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    with postgres_server() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
async def storage(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Storage]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'judge.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres").new_database()
    store = storage_for(url)
    await store.open()
    yield store
    await store.close()


LAUNCH = Launch(kind="command", run="./bot")


def match(
    match_id: str,
    *,
    seats: list[Seat],
    kind: str = "manual",
    created: float = 1.0,
    requested_by: int | None = None,
    tournament_id: str | None = None,
) -> Match:
    return Match(
        id=match_id,
        game="rps",
        kind=kind,
        status="queued",
        seats=seats,  # type: ignore[arg-type]
        options={"turns": 3},
        seed=7,
        created=created,
        requested_by=requested_by,
        tournament_id=tournament_id,
    )


async def bot_with_version(
    storage: Storage, name: str, owner: int, *, ready: bool = True, stored: int = 10
) -> tuple[int, int]:
    bot = await storage.create_bot(name, owner, "rps")
    version = await storage.add_version(
        bot.id, filename="bot", size=3, sha256="ab", launch=LAUNCH, stored_bytes=stored
    )
    if ready:
        await storage.set_version_state(
            bot.id, version.version, "ready", message="ok", initial_rating=(25.0, 8.0)
        )
    return bot.id, version.version


def test_urls() -> None:
    assert type(storage_for("sqlite:///x.db")).__name__ == "SQLiteStorage"
    assert type(storage_for("postgresql://u@h/db")).__name__ == "PostgresStorage"
    for bad in ("judge.sqlite3", "mysql://h/db", "sqlite://x.db", "sqlite:///"):
        with pytest.raises(BadDatabaseURL):
            storage_for(bad)


async def test_users_and_tokens(storage: Storage) -> None:
    assert await storage.count_users() == 0
    admin = await storage.create_user("admin", is_admin=True)
    alice = await storage.create_user("alice")
    assert admin.is_admin and not alice.is_admin
    with pytest.raises(Conflict):
        await storage.create_user("alice")
    assert [u.name for u in await storage.list_users()] == ["admin", "alice"]
    assert await storage.get_user(alice.id) == alice
    assert await storage.get_user(999) is None
    token = await storage.add_token(alice.id, "h1", "laptop")
    await storage.add_token(alice.id, "h2", "ci")
    assert (await storage.user_for_token("h1")) == alice
    assert await storage.user_for_token("nope") is None
    assert [t.label for t in await storage.list_tokens(alice.id)] == ["laptop", "ci"]
    assert not await storage.revoke_token(admin.id, token.id)  # not admin's token
    assert await storage.revoke_token(alice.id, token.id)
    assert not await storage.revoke_token(alice.id, token.id)  # once
    assert await storage.user_for_token("h1") is None
    assert [t.label for t in await storage.list_tokens(alice.id)] == ["ci"]


async def test_bots_and_versions(storage: Storage) -> None:
    alice = await storage.create_user("alice")
    bot = await storage.create_bot("b", alice.id, "rps")
    assert bot.owner == "alice" and bot.enabled and bot.latest_version is None
    with pytest.raises(Conflict):
        await storage.create_bot("b", alice.id, "rps")
    v1 = await storage.add_version(
        bot.id,
        filename="a.py",
        size=5,
        sha256="x",
        launch=Launch(kind="python", file="a.py"),
        stored_bytes=40,
    )
    v2 = await storage.add_version(bot.id, filename="b", size=5, sha256="y", launch=LAUNCH)
    assert (v1.version, v2.version, v1.state, v1.stored_bytes) == (1, 2, "checking", 40)
    assert await storage.count_versions(bot.id) == 2
    assert await storage.unbuilt_versions() == []  # neither has a build command
    await storage.set_version_state(
        bot.id, 1, "ready", message="passed", initial_rating=(25.0, 8.0)
    )
    await storage.set_version_state(bot.id, 2, "failed", message="crashed")
    got = await storage.get_bot(bot.id)
    assert got is not None and got.latest_version == 1 and got.listed_at is not None
    assert [v.version for v in await storage.list_versions(bot.id)] == [2, 1]
    assert (await storage.get_version(bot.id, 2)).message == "crashed"  # type: ignore[union-attr]
    await storage.set_stored_bytes(bot.id, 1, 99)
    assert (await storage.get_version(bot.id, 1)).stored_bytes == 99  # type: ignore[union-attr]
    assert [b.name for b in await storage.list_bots(listed_only=True)] == ["b"]
    assert await storage.list_bots(game="liarsdice") == []
    updated = await storage.update_bot(bot.id, enabled=False)
    assert updated is not None and not updated.enabled
    await storage.update_bot(bot.id, deleted=True)
    assert await storage.list_bots() == []
    assert (await storage.bot_by_name("b")).deleted  # type: ignore[union-attr]
    assert await storage.bot_by_name("zz") is None


async def test_unbuilt_versions(storage: Storage) -> None:
    alice = await storage.create_user("alice")
    bot = await storage.create_bot("c", alice.id, "rps")
    built = Launch(kind="command", run="./bot", build="make")
    await storage.add_version(bot.id, filename="c.tgz", size=1, sha256="a", launch=built)
    await storage.add_version(bot.id, filename="c.tgz", size=1, sha256="b", launch=built)
    assert [v.version for v in await storage.unbuilt_versions()] == [1, 2]
    await storage.set_version_state(bot.id, 1, "checking", built=True)
    await storage.set_version_state(bot.id, 2, "failed", message="build failed")
    assert await storage.unbuilt_versions() == []


async def test_queue_order_holds_and_backoff(storage: Storage) -> None:
    seats = [Seat(builtin="rock", name="builtin:rock"), Seat(builtin="paper", name="p")]
    await storage.create_match(match("low", seats=seats, created=1), priority=0)
    await storage.create_match(match("high-late", seats=seats, created=3), priority=20)
    await storage.create_match(match("high-early", seats=seats, created=2), priority=20)
    await storage.create_match(match("held", seats=seats, created=0), priority=30, held=True)
    claimed = [await storage.claim_next_match(10.0) for _ in range(3)]
    assert [m.id for m in claimed if m] == ["high-early", "high-late", "low"]
    assert all(m is not None and m.status == "running" and m.attempts == 1 for m in claimed)
    assert await storage.claim_next_match(10.0) is None  # only the held one is left
    await storage.hold_match("held", False)
    again = await storage.claim_next_match(10.0)
    assert again is not None and again.id == "held"
    # Back to the queue after a judge fault, not before its time.
    await storage.requeue_match("held", not_before=20.0, error="retrying")
    assert await storage.claim_next_match(15.0) is None
    retried = await storage.claim_next_match(20.0)
    assert retried is not None and retried.attempts == 2 and retried.error == "retrying"


async def test_finish_is_recorded_once_with_its_rating(storage: Storage) -> None:
    alice = await storage.create_user("alice")
    a = await bot_with_version(storage, "a", alice.id)
    b = await bot_with_version(storage, "b", alice.id)
    seats = [
        Seat(bot_id=a[0], version=a[1], name="a@1"),
        Seat(bot_id=b[0], version=b[1], name="b@1"),
    ]
    await storage.create_match(match("m", seats=seats, kind="ladder"))
    await storage.claim_next_match(5.0)
    calls = []

    def update(ratings: list[Rating]) -> list[Rating]:
        calls.append(ratings)
        return [
            r.model_copy(update={"mu": r.mu + d, "games": r.games + 1})
            for r, d in zip(ratings, (1.0, -1.0), strict=True)
        ]

    done = await storage.finish_match(
        "m", "finished", now=6.0, result={"winner": 0}, rating_update=update
    )
    assert done is not None and done.status == "finished" and done.result == {"winner": 0}
    again = await storage.finish_match("m", "error", now=7.0, error="late", rating_update=update)
    assert again is not None and again.status == "finished" and len(calls) == 1
    ratings = {r.bot_id: r for r in await storage.ratings("rps")}
    assert (ratings[a[0]].mu, ratings[b[0]].mu, ratings[a[0]].games) == (26.0, 24.0, 1)
    assert await storage.ladder_counts("rps") == {a: 1, b: 1}
    assert await storage.finish_match("missing", "error", now=1.0) is None
    # The rating after the match, kept per bot (for its chart), once.
    history = await storage.rating_history(bot_id=a[0])
    assert [(p.match_id, p.at, p.mu, p.games) for p in history] == [("m", 6.0, 26.0, 1)]
    both = await storage.rating_history(game="rps")
    assert sorted((p.bot_id, p.mu) for p in both) == [(a[0], 26.0), (b[0], 24.0)]
    assert await storage.rating_history(game="tron") == []


async def test_a_lapsed_claim_records_nothing(storage: Storage) -> None:
    """A server that stalled past its lease may still finish its match: the server that
    took the match over is the one that records it (and rates it), once."""
    alice = await storage.create_user("alice")
    a = await bot_with_version(storage, "a", alice.id)
    b = await bot_with_version(storage, "b", alice.id)
    seats = [
        Seat(bot_id=a[0], version=a[1], name="a@1"),
        Seat(bot_id=b[0], version=b[1], name="b@1"),
    ]
    await storage.create_match(match("m", seats=seats, kind="ladder"))
    await storage.claim_next_match(1.0, "stalled")
    # The stalled server stops beating; the other one takes the match back and runs it.
    assert await storage.recover_interrupted(3, 50.0, stale_before=40.0) == (["m"], [])
    assert await storage.heartbeat("stalled", 50.0, ["m"]) == [("m", "")]
    taken = await storage.claim_next_match(50.0, "other")
    assert taken is not None and taken.attempts == 2

    def update(ratings: list[Rating]) -> list[Rating]:
        return [r.model_copy(update={"games": r.games + 1}) for r in ratings]

    late = await storage.finish_match(
        "m", "finished", now=60.0, result={"winner": 1}, rating_update=update, owner="stalled"
    )
    assert late is None
    await storage.requeue_match("m", not_before=0.0, error="fault", owner="stalled")
    assert await storage.heartbeat("other", 61.0, ["m"]) == []
    current = await storage.get_match("m")
    assert current is not None and current.status == "running" and current.result is None
    done = await storage.finish_match(
        "m", "finished", now=70.0, result={"winner": 0}, rating_update=update, owner="other"
    )
    assert done is not None and done.result == {"winner": 0}
    again = await storage.finish_match(
        "m", "finished", now=71.0, result={"winner": 0}, rating_update=update, owner="other"
    )
    assert again is None  # not running any more: nothing recorded twice
    assert [r.games for r in await storage.ratings("rps")] == [1, 1]


async def test_listing_counting_and_usage(storage: Storage) -> None:
    alice = await storage.create_user("alice")
    bob = await storage.create_user("bob")
    a = await bot_with_version(storage, "a", alice.id, stored=100)
    await bot_with_version(storage, "a2", alice.id, stored=50, ready=False)
    seat = Seat(bot_id=a[0], version=a[1], name="a@1")
    rock = Seat(builtin="rock", name="builtin:rock")
    for i in range(3):
        await storage.create_match(
            match(f"m{i}", seats=[seat, rock], created=i, requested_by=alice.id)
        )
    await storage.create_match(
        match("s", seats=[seat, rock], kind="smoke", created=9, requested_by=alice.id)
    )
    await storage.create_match(match("other", seats=[rock, rock], created=5, requested_by=bob.id))
    assert [m.id for m in await storage.list_matches(limit=2)] == ["s", "other"]
    assert [m.id for m in await storage.list_matches(bot_id=a[0], kind="manual")] == [
        "m2",
        "m1",
        "m0",
    ]
    assert [m.id for m in await storage.list_matches(bot_id=a[0], offset=3)] == ["m0"]
    assert await storage.count_matches(kind="manual") == 4
    usage = await storage.usage(alice.id, since=0.0)
    assert (usage.bots, usage.stored_bytes, usage.uploads_last_hour, usage.queued_matches) == (
        2,
        150,
        2,
        3,
    )
    await storage.claim_next_match(100.0)  # the smoke match runs: not a requested match
    await storage.finish_match("m0", "cancelled", now=1.0)
    assert (await storage.usage(alice.id, since=0.0)).queued_matches == 2
    assert (await storage.usage(alice.id, since=1e12)).uploads_last_hour == 0


async def test_recovery_after_a_stop(storage: Storage) -> None:
    rock = Seat(builtin="rock", name="builtin:rock")
    await storage.create_match(match("once", seats=[rock, rock], created=1))
    await storage.create_match(match("often", seats=[rock, rock], created=2))
    for _ in range(2):
        await storage.claim_next_match(1.0)
    await storage.recover_interrupted(3, 2.0)
    for _ in range(2):
        await storage.claim_next_match(3.0)
    await storage.recover_interrupted(3, 4.0)  # both at 2 attempts: back to the queue
    first = await storage.claim_next_match(5.0)
    assert first is not None and first.id == "once" and first.attempts == 3
    requeued, failed = await storage.recover_interrupted(3, 6.0)
    assert (requeued, failed) == ([], ["once"])
    gone = await storage.get_match("once")
    assert gone is not None and gone.status == "error" and "interrupted too often" in gone.error
    assert (await storage.get_match("often")).status == "queued"  # type: ignore[union-attr]


async def test_tournaments_are_stored_with_their_matches(storage: Storage) -> None:
    rock = Seat(builtin="rock", name="builtin:rock")
    t = Tournament(id="t1", game="rps", status="running", spec={"plan": []}, created=1.0)
    await storage.create_tournament(
        t,
        [
            (match(f"t{i}", seats=[rock, rock], kind="tournament", tournament_id="t1"), 10)
            for i in range(3)
        ],
    )
    assert len(await storage.list_matches(tournament_id="t1")) == 3
    await storage.update_tournament("t1", standings={"table": [1]})
    await storage.update_tournament("t1", status="finished", finished=9.0)
    got = await storage.get_tournament("t1")
    assert got is not None and got.status == "finished" and got.standings == {"table": [1]}
    assert [x.id for x in await storage.list_tournaments(game="rps")] == ["t1"]
    assert await storage.list_tournaments(game="liarsdice") == []
    assert await storage.get_tournament("zz") is None
    # A match id twice fails the whole transaction: no half tournament.
    with pytest.raises(Exception):  # noqa: B017 (each backend's own integrity error)
        await storage.create_tournament(
            Tournament(id="t2", game="rps", status="running", spec={}, created=2.0),
            [
                (match("t9", seats=[rock, rock], tournament_id="t2"), 10),
                (match("t9", seats=[rock, rock], tournament_id="t2"), 10),
            ],
        )
    assert await storage.get_tournament("t2") is None
    assert await storage.get_match("t9") is None


async def test_concurrent_claims_take_each_match_once(storage: Storage) -> None:
    rock = Seat(builtin="rock", name="builtin:rock")
    for i in range(20):
        await storage.create_match(match(f"c{i:02}", seats=[rock, rock], created=i))
    claimed: list[str] = []

    async def worker() -> None:
        while (got := await storage.claim_next_match(100.0)) is not None:
            claimed.append(got.id)

    async with trio.open_nursery() as nursery:
        for _ in range(4):
            nursery.start_soon(worker)
    assert sorted(claimed) == [f"c{i:02}" for i in range(20)]


# -- migrations (SQLite files written by earlier servers) ----------------------------------
def old_database(path: Path) -> None:
    """A database as the server wrote it before numbered migrations (schema 1)."""
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);" + SCHEMA_V1)
    conn.execute("INSERT INTO meta VALUES ('schema', '1')")
    conn.execute("INSERT INTO users (name, is_admin, created) VALUES ('admin', 1, 1.0)")
    conn.execute("INSERT INTO bots (name, owner_id, game, created) VALUES ('old', 1, 'rps', 1)")
    conn.execute(
        "INSERT INTO versions (bot_id, version, created, filename, size, sha256, launch, state) "
        "VALUES (1, 1, 1.0, 'bot', 3, 'x', ?, 'ready')",
        (LAUNCH.model_dump_json(),),
    )
    conn.execute(
        "INSERT INTO matches (id, game, kind, status, seats, options, seed, created) "
        "VALUES ('q', 'rps', 'manual', 'queued', '[]', '{}', 1, 1.0)"
    )
    conn.commit()
    conn.close()


async def test_an_old_database_is_upgraded_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "judge.sqlite3"
    old_database(path)
    store = storage_for(f"sqlite:///{path}")
    await store.open()
    try:
        version = await store.get_version(1, 1)
        assert version is not None and version.state == "ready" and version.stored_bytes == 0
        claimed = await store.claim_next_match(5.0)  # the new columns have their defaults
        assert claimed is not None and claimed.id == "q"
    finally:
        await store.close()
    conn = sqlite3.connect(path)
    applied = [row[0] for row in conn.execute("SELECT number FROM migrations ORDER BY number")]
    schema = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
    conn.close()
    assert applied == [n for n, _, _ in MIGRATIONS if n > 1] and int(schema) == SCHEMA_VERSION
    # Opening again applies nothing twice.
    again = storage_for(f"sqlite:///{path}")
    await again.open()
    await again.close()


async def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "judge.sqlite3"
    store = storage_for(f"sqlite:///{path}")
    await store.open()
    await store.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION + 1),))
    conn.commit()
    conn.close()
    with pytest.raises(RuntimeError, match="newer judge"):
        await storage_for(f"sqlite:///{path}").open()


def test_judge_serve_takes_its_database_by_url(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.server_helpers import ROOT, running_server

    db = tmp_path / "elsewhere" / "contest.db"
    db.parent.mkdir()
    with running_server(tmp_path / "data", "--db", f"sqlite:///{db}", "--no-ladder") as server:
        assert server.admin_token
        with server.client(server.admin_token) as client:
            assert client.get("/api/me").json()["name"] == "admin"
    assert db.is_file() and not (tmp_path / "data" / "judge.sqlite3").exists()
    refused = subprocess.run(
        [
            sys.executable,
            "-m",
            "judge.cli",
            "serve",
            "--data",
            str(tmp_path / "d2"),
            "--db",
            "mysql://nowhere/db",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert refused.returncode == 2 and "no storage backend for 'mysql'" in refused.stderr


# -- judge db migrate / copy ---------------------------------------------------------------
def run_cli(*argv: str) -> tuple[int, str]:
    from click.testing import CliRunner

    from judge.commands.server import db_group

    result = CliRunner().invoke(db_group, list(argv), catch_exceptions=False)
    return result.exit_code, result.output


def test_db_migrate_upgrades_an_old_database(tmp_path: Path) -> None:
    path = tmp_path / "judge.sqlite3"
    old_database(path)
    code, output = run_cli("migrate", f"sqlite:///{path}")
    assert code == 0 and "migrations applied now: 2" in output, output
    code, output = run_cli("migrate", f"sqlite:///{path}")
    assert code == 0 and "none needed" in output, output


async def filled(url: str) -> dict[str, list[dict[str, object]]]:
    """A database with a row in every table, through the Storage interface."""
    store = storage_for(url)
    await store.open()
    try:
        alice = await store.create_user("alice")
        await store.add_token(alice.id, "hash", "laptop")
        a = await bot_with_version(store, "a", alice.id, stored=123)
        b = await bot_with_version(store, "b", alice.id)
        seat = Seat(bot_id=a[0], version=a[1], name="a@1")
        other = Seat(bot_id=b[0], version=b[1], name="b@1")
        rock = Seat(builtin="rock", name="builtin:rock")
        await store.create_match(match("m1", seats=[seat, other], kind="ladder"))
        await store.claim_next_match(1.0)
        await store.finish_match(
            "m1", "finished", now=2.0, result={"winner": 0, "x": [1.5]}, rating_update=lambda rs: rs
        )
        t = Tournament(
            id="t1", game="rps", status="running", spec={"plan": [[0, [0, 1], "x"]]}, created=3.0
        )
        await store.create_tournament(t, [(match("x", seats=[rock, rock], tournament_id="t1"), 10)])
        await store.create_contest(Contest(name="c", spec={"game": "rps"}, created=4.0))
        await store.add_contest_entry("c", alice.id, a[0], a[1], submitted=5.0)
        await store.add_contest_matches("c", "final", [(match("f", seats=[seat, other]), 10)])
        return await store.export_rows()
    finally:
        await store.close()


async def rows_of(url: str) -> dict[str, list[dict[str, object]]]:
    store = storage_for(url)
    await store.open()
    try:
        return await store.export_rows()
    finally:
        await store.close()


async def test_db_copy_sqlite_to_postgresql_and_back(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    first = f"sqlite:///{tmp_path / 'first.sqlite3'}"
    original = await filled(first)
    assert all(original[table] for table in original), original
    server = postgres.new_database()
    code, output = await trio.to_thread.run_sync(run_cli, "copy", first, server)
    assert code == 0 and "copied 1 users" in output, output
    assert await rows_of(server) == original
    # The copy keeps working: new rows get new ids.
    store = storage_for(server)
    await store.open()
    bob = await store.create_user("bob")
    await store.close()
    assert bob.id == 2
    back = f"sqlite:///{tmp_path / 'back.sqlite3'}"
    code, output = await trio.to_thread.run_sync(run_cli, "copy", server, back)
    assert code == 0, output
    copied = await rows_of(back)
    assert [u["name"] for u in copied["users"]] == ["alice", "bob"]
    assert {k: v for k, v in copied.items() if k != "users"} == {
        k: v for k, v in original.items() if k != "users"
    }
    # Never into a database that has rows.
    code, output = await trio.to_thread.run_sync(run_cli, "copy", first, server)
    assert code == 1 and "not empty" in output, output


async def test_claims_heartbeats_cancel_requests_and_stale_recovery(storage: Storage) -> None:
    rock = Seat(builtin="rock", name="builtin:rock")
    for i in range(2):
        await storage.create_match(match(f"h{i}", seats=[rock, rock], created=i))
    mine = await storage.claim_next_match(10.0, "server-a")
    theirs = await storage.claim_next_match(10.0, "server-b")
    assert mine is not None and theirs is not None and mine.id != theirs.id
    assert await storage.heartbeat("server-a", 20.0, [mine.id]) == []
    assert await storage.request_cancel(theirs.id, "alice")
    assert not await storage.request_cancel("nonexistent", "alice")
    assert await storage.heartbeat("server-b", 20.0, [theirs.id]) == [(theirs.id, "alice")]
    assert await storage.heartbeat("server-a", 40.0, [mine.id]) == []
    # server-b stopped beating at 20: only its match goes back to the queue.
    requeued, failed = await storage.recover_interrupted(3, 45.0, stale_before=30.0)
    assert (requeued, failed) == ([theirs.id], [])
    again = await storage.claim_next_match(50.0, "server-a")
    assert again is not None and again.id == theirs.id and again.attempts == 2
    # the old request is gone
    assert await storage.heartbeat("server-a", 51.0, [mine.id, again.id]) == []


async def test_migration_6_keys_the_names_a_postgresql_database_holds(
    postgres: PostgresServer,
) -> None:
    """Names taken before the keys (``Alice`` and ``alice``) migrate: the first holds the
    key, and no spelling of it can be taken again (tests/test_server_names.py: SQLite)."""
    import psycopg

    from judge.server.postgres import MIGRATIONS as PG_MIGRATIONS

    url = postgres.new_database()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "applied DOUBLE PRECISION NOT NULL)"
        )
        for number, name, script in PG_MIGRATIONS:
            if number <= 4:
                for statement in script.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute("INSERT INTO migrations VALUES (%s, %s, 0)", (number, name))
        for user in ("Alice", "alice", "bob"):
            conn.execute("INSERT INTO users (name, is_admin, created) VALUES (%s, 0, 1)", (user,))
    store = storage_for(url)
    await store.open()
    try:
        assert 6 in store.applied_migrations
        for spelling in ("ALICE", "a-lice", "Bob", "alice"):
            with pytest.raises(Conflict, match="taken"):
                await store.create_user(spelling)
        await store.create_user("carol", created_from="192.0.2.1")
        assert await store.count_registrations("192.0.2.1", since=0) == 1
    finally:
        await store.close()


async def test_heartbeat_renews_only_matches_in_play(storage: Storage) -> None:
    """A match its server claimed but no longer plays (its result could not be recorded) is
    not kept alive by that server's heartbeat: it lapses, shows as stuck, and is taken back."""
    rock = Seat(builtin="rock", name="builtin:rock")
    for i in range(2):
        await storage.create_match(match(f"p{i}", seats=[rock, rock], created=i))
    playing = await storage.claim_next_match(10.0, "server-a")
    dropped = await storage.claim_next_match(10.0, "server-a")
    assert playing is not None and dropped is not None
    assert await storage.heartbeat("server-a", 40.0, [playing.id]) == []
    assert await storage.heartbeat("server-a", 41.0, []) == []
    assert await storage.stuck_matches(30.0) == [dropped.id]
    assert await storage.recover_interrupted(3, 45.0, stale_before=30.0) == ([dropped.id], [])
    assert await storage.stuck_matches(30.0) == []
    await storage.probe()
