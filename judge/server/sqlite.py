"""SQLite storage: stdlib sqlite3 in WAL mode, one connection used from trio's worker threads.

Each public call runs one function in a worker thread inside one ``BEGIN IMMEDIATE`` ...
``COMMIT`` (a thread hop costs ~0.1 ms, so whole transactions are batched into one hop).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import trio

from judge.server.records import (
    Bot,
    Launch,
    Match,
    MatchStatus,
    Rating,
    Seat,
    Token,
    Tournament,
    TournamentStatus,
    Usage,
    User,
    Version,
    VersionState,
)
from judge.server.storage import Conflict, RatingUpdate, Storage

T = TypeVar("T")

SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, is_admin INTEGER NOT NULL,
    created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
    id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
    hash TEXT NOT NULL UNIQUE, label TEXT NOT NULL, created REAL NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
    owner_id INTEGER NOT NULL REFERENCES users(id),
    game TEXT NOT NULL, enabled INTEGER NOT NULL DEFAULT 1, deleted INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL, listed_at REAL);
CREATE TABLE IF NOT EXISTS versions (
    bot_id INTEGER NOT NULL REFERENCES bots(id), version INTEGER NOT NULL, created REAL NOT NULL,
    filename TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL, launch TEXT NOT NULL,
    state TEXT NOT NULL, built INTEGER NOT NULL DEFAULT 0, message TEXT NOT NULL DEFAULT '',
    smoke_match TEXT, PRIMARY KEY (bot_id, version));
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL,
    seats TEXT NOT NULL, options TEXT NOT NULL, seed INTEGER NOT NULL, created REAL NOT NULL,
    started REAL, finished REAL, requested_by INTEGER, result TEXT, error TEXT NOT NULL DEFAULT '',
    attempts INTEGER NOT NULL DEFAULT 0, tournament_id TEXT, rated INTEGER NOT NULL DEFAULT 0,
    priority INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS matches_queue ON matches (status, priority DESC, created);
CREATE INDEX IF NOT EXISTS matches_game ON matches (game, created DESC);
CREATE INDEX IF NOT EXISTS matches_tournament ON matches (tournament_id);
CREATE TABLE IF NOT EXISTS match_bots (
    match_id TEXT NOT NULL REFERENCES matches(id), bot_id INTEGER NOT NULL,
    version INTEGER NOT NULL, kind TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS match_bots_bot ON match_bots (bot_id, match_id);
CREATE TABLE IF NOT EXISTS ratings (
    bot_id INTEGER NOT NULL, version INTEGER NOT NULL, game TEXT NOT NULL, mu REAL NOT NULL,
    sigma REAL NOT NULL, games INTEGER NOT NULL DEFAULT 0, wins INTEGER NOT NULL DEFAULT 0,
    draws INTEGER NOT NULL DEFAULT 0, losses INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (bot_id, version));
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, status TEXT NOT NULL, spec TEXT NOT NULL,
    created REAL NOT NULL, finished REAL, requested_by INTEGER, standings TEXT,
    error TEXT NOT NULL DEFAULT '');
"""
# Numbered migrations, applied in order, each in its own transaction and recorded in the
# ``migrations`` table (``meta.schema`` holds the newest, as databases before them had it).
MIGRATIONS: list[tuple[int, str, str]] = [
    (1, "tables", SCHEMA_V1),
    (
        2,
        "quotas, held smoke matches, retry backoff",
        """
        ALTER TABLE versions ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE matches ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE matches ADD COLUMN not_before REAL NOT NULL DEFAULT 0;
        CREATE INDEX IF NOT EXISTS matches_requester ON matches (requested_by, status);
        """,
    ),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


def migrate(conn: sqlite3.Connection, path: object) -> list[int]:
    """Bring the database to SCHEMA_VERSION; the numbers applied now."""
    conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "applied REAL NOT NULL)"
    )
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    current = int(row[0]) if row else 0
    if current > SCHEMA_VERSION:
        raise RuntimeError(
            f"{path} was written by a newer judge (schema {current} > {SCHEMA_VERSION})"
        )
    applied = []
    for number, name, script in MIGRATIONS:
        if number <= current:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in script.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT OR REPLACE INTO migrations (number, name, applied) VALUES (?, ?, ?)",
                (number, name, time.time()),
            )
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)", (str(number),)
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        applied.append(number)
    return applied


BOT_SELECT = """
SELECT b.*, u.name AS owner,
       (SELECT max(v.version) FROM versions v WHERE v.bot_id = b.id AND v.state = 'ready')
           AS latest_version
FROM bots b JOIN users u ON u.id = b.owner_id
"""


def _user(row: sqlite3.Row) -> User:
    return User(
        id=row["id"], name=row["name"], is_admin=bool(row["is_admin"]), created=row["created"]
    )


def _bot(row: sqlite3.Row) -> Bot:
    return Bot(
        id=row["id"],
        name=row["name"],
        owner_id=row["owner_id"],
        owner=row["owner"],
        game=row["game"],
        enabled=bool(row["enabled"]),
        deleted=bool(row["deleted"]),
        created=row["created"],
        latest_version=row["latest_version"],
        listed_at=row["listed_at"],
    )


def _version(row: sqlite3.Row) -> Version:
    return Version(
        bot_id=row["bot_id"],
        version=row["version"],
        created=row["created"],
        filename=row["filename"],
        size=row["size"],
        sha256=row["sha256"],
        launch=Launch.model_validate_json(row["launch"]),
        state=row["state"],
        built=bool(row["built"]),
        message=row["message"],
        smoke_match=row["smoke_match"],
        stored_bytes=row["stored_bytes"],
    )


def _match(row: sqlite3.Row) -> Match:
    return Match(
        id=row["id"],
        game=row["game"],
        kind=row["kind"],
        status=row["status"],
        seats=[Seat.model_validate(s) for s in json.loads(row["seats"])],
        options=json.loads(row["options"]),
        seed=row["seed"],
        created=row["created"],
        started=row["started"],
        finished=row["finished"],
        requested_by=row["requested_by"],
        result=json.loads(row["result"]) if row["result"] else None,
        error=row["error"],
        attempts=row["attempts"],
        tournament_id=row["tournament_id"],
        rated=bool(row["rated"]),
    )


def _rating(row: sqlite3.Row) -> Rating:
    return Rating(
        bot_id=row["bot_id"],
        version=row["version"],
        game=row["game"],
        mu=row["mu"],
        sigma=row["sigma"],
        games=row["games"],
        wins=row["wins"],
        draws=row["draws"],
        losses=row["losses"],
    )


def _tournament(row: sqlite3.Row) -> Tournament:
    return Tournament(
        id=row["id"],
        game=row["game"],
        status=row["status"],
        spec=json.loads(row["spec"]),
        created=row["created"],
        finished=row["finished"],
        requested_by=row["requested_by"],
        standings=json.loads(row["standings"]) if row["standings"] else None,
        error=row["error"],
    )


class SQLiteStorage(Storage):
    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        # One connection, one transaction at a time: SQLite has a single writer anyway.
        self._limiter = trio.CapacityLimiter(1)

    # -- plumbing ----------------------------------------------------------
    async def _tx(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        def run() -> T:
            conn = self._conn
            if conn is None:
                raise RuntimeError("storage is not open")
            conn.execute("BEGIN IMMEDIATE")
            try:
                value = fn(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return value

        return await trio.to_thread.run_sync(run, limiter=self._limiter)

    async def open(self) -> None:
        def connect() -> sqlite3.Connection:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            # FULL: a result reported to a client survives a power cut, not just a crash.
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=5000")
            try:
                migrate(conn, self.path)
            except BaseException:
                conn.close()
                raise
            return conn

        self._conn = await trio.to_thread.run_sync(connect, limiter=self._limiter)

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await trio.to_thread.run_sync(conn.close, limiter=self._limiter)

    # -- users and tokens ------------------------------------------------
    async def create_user(self, name: str, *, is_admin: bool = False) -> User:
        def fn(c: sqlite3.Connection) -> User:
            try:
                cur = c.execute(
                    "INSERT INTO users (name, is_admin, created) VALUES (?, ?, ?)",
                    (name, int(is_admin), time.time()),
                )
            except sqlite3.IntegrityError:
                raise Conflict(f"the user name {name!r} is taken") from None
            return _user(c.execute("SELECT * FROM users WHERE id = ?", (cur.lastrowid,)).fetchone())

        return await self._tx(fn)

    async def get_user(self, user_id: int) -> User | None:
        def fn(c: sqlite3.Connection) -> User | None:
            row = c.execute("SELECT * FROM users WHERE id = ?", (user_id,)).fetchone()
            return _user(row) if row else None

        return await self._tx(fn)

    async def list_users(self) -> list[User]:
        return await self._tx(
            lambda c: [_user(r) for r in c.execute("SELECT * FROM users ORDER BY id")]
        )

    async def count_users(self) -> int:
        return await self._tx(lambda c: int(c.execute("SELECT count(*) FROM users").fetchone()[0]))

    async def add_token(self, user_id: int, token_hash: str, label: str) -> Token:
        def fn(c: sqlite3.Connection) -> Token:
            now = time.time()
            cur = c.execute(
                "INSERT INTO tokens (user_id, hash, label, created) VALUES (?, ?, ?, ?)",
                (user_id, token_hash, label, now),
            )
            assert cur.lastrowid is not None
            return Token(id=cur.lastrowid, user_id=user_id, label=label, created=now)

        return await self._tx(fn)

    async def user_for_token(self, token_hash: str) -> User | None:
        def fn(c: sqlite3.Connection) -> User | None:
            row = c.execute(
                "SELECT u.* FROM tokens t JOIN users u ON u.id = t.user_id "
                "WHERE t.hash = ? AND t.revoked = 0",
                (token_hash,),
            ).fetchone()
            return _user(row) if row else None

        return await self._tx(fn)

    async def list_tokens(self, user_id: int) -> list[Token]:
        def fn(c: sqlite3.Connection) -> list[Token]:
            rows = c.execute(
                "SELECT * FROM tokens WHERE user_id = ? AND revoked = 0 ORDER BY id", (user_id,)
            )
            return [
                Token(id=r["id"], user_id=r["user_id"], label=r["label"], created=r["created"])
                for r in rows
            ]

        return await self._tx(fn)

    async def revoke_token(self, user_id: int, token_id: int) -> bool:
        def fn(c: sqlite3.Connection) -> bool:
            cur = c.execute(
                "UPDATE tokens SET revoked = 1 WHERE id = ? AND user_id = ? AND revoked = 0",
                (token_id, user_id),
            )
            return cur.rowcount == 1

        return await self._tx(fn)

    # -- bots and versions -----------------------------------------------
    async def create_bot(self, name: str, owner_id: int, game: str) -> Bot:
        def fn(c: sqlite3.Connection) -> Bot:
            try:
                cur = c.execute(
                    "INSERT INTO bots (name, owner_id, game, created) VALUES (?, ?, ?, ?)",
                    (name, owner_id, game, time.time()),
                )
            except sqlite3.IntegrityError:
                raise Conflict(f"the bot name {name!r} is taken") from None
            return _bot(c.execute(BOT_SELECT + " WHERE b.id = ?", (cur.lastrowid,)).fetchone())

        return await self._tx(fn)

    async def get_bot(self, bot_id: int) -> Bot | None:
        def fn(c: sqlite3.Connection) -> Bot | None:
            row = c.execute(BOT_SELECT + " WHERE b.id = ?", (bot_id,)).fetchone()
            return _bot(row) if row else None

        return await self._tx(fn)

    async def bot_by_name(self, name: str) -> Bot | None:
        def fn(c: sqlite3.Connection) -> Bot | None:
            row = c.execute(BOT_SELECT + " WHERE b.name = ?", (name,)).fetchone()
            return _bot(row) if row else None

        return await self._tx(fn)

    async def list_bots(
        self, *, game: str | None = None, owner_id: int | None = None, listed_only: bool = False
    ) -> list[Bot]:
        where = ["b.deleted = 0"]
        args: list[Any] = []
        if game is not None:
            where.append("b.game = ?")
            args.append(game)
        if owner_id is not None:
            where.append("b.owner_id = ?")
            args.append(owner_id)
        if listed_only:
            where.append("b.listed_at IS NOT NULL")
        sql = BOT_SELECT + " WHERE " + " AND ".join(where) + " ORDER BY b.name"
        return await self._tx(lambda c: [_bot(r) for r in c.execute(sql, args)])

    async def update_bot(
        self, bot_id: int, *, enabled: bool | None = None, deleted: bool | None = None
    ) -> Bot | None:
        def fn(c: sqlite3.Connection) -> Bot | None:
            if enabled is not None:
                c.execute("UPDATE bots SET enabled = ? WHERE id = ?", (int(enabled), bot_id))
            if deleted is not None:
                c.execute(
                    "UPDATE bots SET deleted = ?, enabled = 0 WHERE id = ?", (int(deleted), bot_id)
                )
            row = c.execute(BOT_SELECT + " WHERE b.id = ?", (bot_id,)).fetchone()
            return _bot(row) if row else None

        return await self._tx(fn)

    async def add_version(
        self,
        bot_id: int,
        *,
        filename: str,
        size: int,
        sha256: str,
        launch: Launch,
        stored_bytes: int = 0,
    ) -> Version:
        def fn(c: sqlite3.Connection) -> Version:
            number = c.execute(
                "SELECT coalesce(max(version), 0) + 1 FROM versions WHERE bot_id = ?", (bot_id,)
            ).fetchone()[0]
            c.execute(
                "INSERT INTO versions (bot_id, version, created, filename, size, sha256, launch, "
                "state, stored_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, 'checking', ?)",
                (
                    bot_id,
                    number,
                    time.time(),
                    filename,
                    size,
                    sha256,
                    launch.model_dump_json(),
                    stored_bytes,
                ),
            )
            row = c.execute(
                "SELECT * FROM versions WHERE bot_id = ? AND version = ?", (bot_id, number)
            ).fetchone()
            return _version(row)

        return await self._tx(fn)

    async def get_version(self, bot_id: int, version: int) -> Version | None:
        def fn(c: sqlite3.Connection) -> Version | None:
            row = c.execute(
                "SELECT * FROM versions WHERE bot_id = ? AND version = ?", (bot_id, version)
            ).fetchone()
            return _version(row) if row else None

        return await self._tx(fn)

    async def set_stored_bytes(self, bot_id: int, version: int, stored_bytes: int) -> None:
        await self._tx(
            lambda c: c.execute(
                "UPDATE versions SET stored_bytes = ? WHERE bot_id = ? AND version = ?",
                (stored_bytes, bot_id, version),
            )
        )

    async def count_versions(self, bot_id: int) -> int:
        return await self._tx(
            lambda c: int(
                c.execute("SELECT count(*) FROM versions WHERE bot_id = ?", (bot_id,)).fetchone()[0]
            )
        )

    async def usage(self, user_id: int, *, since: float) -> Usage:
        def fn(c: sqlite3.Connection) -> Usage:
            bots, stored = c.execute(
                "SELECT count(DISTINCT b.id), coalesce(sum(v.stored_bytes), 0) FROM bots b "
                "LEFT JOIN versions v ON v.bot_id = b.id WHERE b.owner_id = ? AND b.deleted = 0",
                (user_id,),
            ).fetchone()
            uploads = c.execute(
                "SELECT count(*) FROM versions v JOIN bots b ON b.id = v.bot_id "
                "WHERE b.owner_id = ? AND v.created >= ?",
                (user_id, since),
            ).fetchone()[0]
            queued = c.execute(
                "SELECT count(*) FROM matches WHERE requested_by = ? "
                "AND status IN ('queued', 'running') AND kind IN ('manual', 'tournament')",
                (user_id,),
            ).fetchone()[0]
            return Usage(
                bots=bots, stored_bytes=stored, uploads_last_hour=uploads, queued_matches=queued
            )

        return await self._tx(fn)

    async def unbuilt_versions(self) -> list[Version]:
        def fn(c: sqlite3.Connection) -> list[Version]:
            rows = c.execute(
                "SELECT v.* FROM versions v JOIN bots b ON b.id = v.bot_id "
                "WHERE v.state = 'checking' AND v.built = 0 AND b.deleted = 0 "
                "ORDER BY v.created"
            )
            return [v for v in map(_version, rows) if v.launch.build]

        return await self._tx(fn)

    async def list_versions(self, bot_id: int) -> list[Version]:
        return await self._tx(
            lambda c: [
                _version(r)
                for r in c.execute(
                    "SELECT * FROM versions WHERE bot_id = ? ORDER BY version DESC", (bot_id,)
                )
            ]
        )

    async def set_version_state(
        self,
        bot_id: int,
        version: int,
        state: VersionState,
        *,
        message: str = "",
        built: bool | None = None,
        smoke_match: str | None = None,
        initial_rating: tuple[float, float] | None = None,
    ) -> None:
        def fn(c: sqlite3.Connection) -> None:
            c.execute(
                "UPDATE versions SET state = ?, message = ?, built = coalesce(?, built), "
                "smoke_match = coalesce(?, smoke_match) WHERE bot_id = ? AND version = ?",
                (
                    state,
                    message,
                    None if built is None else int(built),
                    smoke_match,
                    bot_id,
                    version,
                ),
            )
            if state == "ready":
                c.execute(
                    "UPDATE bots SET listed_at = coalesce(listed_at, ?) WHERE id = ?",
                    (time.time(), bot_id),
                )
                if initial_rating is not None:
                    game = c.execute("SELECT game FROM bots WHERE id = ?", (bot_id,)).fetchone()[0]
                    c.execute(
                        "INSERT OR IGNORE INTO ratings (bot_id, version, game, mu, sigma) "
                        "VALUES (?, ?, ?, ?, ?)",
                        (bot_id, version, game, *initial_rating),
                    )

        await self._tx(fn)

    # -- matches ---------------------------------------------------------
    @staticmethod
    def _insert_match(
        c: sqlite3.Connection, match: Match, priority: int, held: bool = False
    ) -> None:
        c.execute(
            "INSERT INTO matches (id, game, kind, status, seats, options, seed, created, "
            "requested_by, tournament_id, rated, priority, held) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                match.id,
                match.game,
                match.kind,
                match.status,
                json.dumps([s.model_dump() for s in match.seats]),
                json.dumps(match.options),
                match.seed,
                match.created,
                match.requested_by,
                match.tournament_id,
                int(match.rated),
                priority,
                int(held),
            ),
        )
        c.executemany(
            "INSERT INTO match_bots (match_id, bot_id, version, kind) VALUES (?, ?, ?, ?)",
            [
                (match.id, s.bot_id, s.version, match.kind)
                for s in match.seats
                if s.bot_id is not None and s.version is not None
            ],
        )

    async def create_match(self, match: Match, *, priority: int = 0, held: bool = False) -> None:
        await self._tx(lambda c: self._insert_match(c, match, priority, held))

    async def hold_match(self, match_id: str, held: bool) -> None:
        await self._tx(
            lambda c: c.execute("UPDATE matches SET held = ? WHERE id = ?", (int(held), match_id))
        )

    async def requeue_match(self, match_id: str, *, not_before: float, error: str) -> None:
        await self._tx(
            lambda c: c.execute(
                "UPDATE matches SET status = 'queued', started = NULL, not_before = ?, error = ? "
                "WHERE id = ? AND status = 'running'",
                (not_before, error, match_id),
            )
        )

    async def get_match(self, match_id: str) -> Match | None:
        def fn(c: sqlite3.Connection) -> Match | None:
            row = c.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
            return _match(row) if row else None

        return await self._tx(fn)

    async def list_matches(
        self,
        *,
        game: str | None = None,
        bot_id: int | None = None,
        status: MatchStatus | None = None,
        kind: str | None = None,
        tournament_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Match]:
        where: list[str] = []
        args: list[Any] = []
        for column, value in (
            ("game", game),
            ("status", status),
            ("kind", kind),
            ("tournament_id", tournament_id),
        ):
            if value is not None:
                where.append(f"m.{column} = ?")
                args.append(value)
        if bot_id is not None:
            where.append("m.id IN (SELECT match_id FROM match_bots WHERE bot_id = ?)")
            args.append(bot_id)
        sql = "SELECT m.* FROM matches m"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY m.created DESC, m.id LIMIT ? OFFSET ?"
        args += [limit, offset]
        return await self._tx(lambda c: [_match(r) for r in c.execute(sql, args)])

    async def claim_next_match(self, now: float) -> Match | None:
        def fn(c: sqlite3.Connection) -> Match | None:
            row = c.execute(
                "SELECT id FROM matches WHERE status = 'queued' AND held = 0 AND not_before <= ? "
                "ORDER BY priority DESC, created, id LIMIT 1",
                (now,),
            ).fetchone()
            if row is None:
                return None
            c.execute(
                "UPDATE matches SET status = 'running', started = ?, attempts = attempts + 1 "
                "WHERE id = ?",
                (now, row["id"]),
            )
            return _match(c.execute("SELECT * FROM matches WHERE id = ?", (row["id"],)).fetchone())

        return await self._tx(fn)

    async def finish_match(
        self,
        match_id: str,
        status: MatchStatus,
        *,
        now: float,
        result: dict[str, Any] | None = None,
        error: str = "",
        rating_update: RatingUpdate | None = None,
    ) -> Match | None:
        def fn(c: sqlite3.Connection) -> Match | None:
            row = c.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
            if row is None:
                return None
            match = _match(row)
            if match.status in ("finished", "error", "cancelled"):
                return match  # already final: a second report changes nothing
            c.execute(
                "UPDATE matches SET status = ?, finished = ?, result = ?, error = ? WHERE id = ?",
                (status, now, json.dumps(result) if result is not None else None, error, match_id),
            )
            if rating_update is not None and status == "finished":
                self._rate(c, match, rating_update)
            return _match(c.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone())

        return await self._tx(fn)

    @staticmethod
    def _rate(c: sqlite3.Connection, match: Match, update: RatingUpdate) -> None:
        ratings: list[Rating] = []
        for seat in match.seats:
            row = c.execute(
                "SELECT * FROM ratings WHERE bot_id = ? AND version = ?",
                (seat.bot_id, seat.version),
            ).fetchone()
            if row is None:
                return  # a seat without a rating (built-in, unlisted): the match is not rated
            ratings.append(_rating(row))
        for new in update(ratings):
            c.execute(
                "UPDATE ratings SET mu = ?, sigma = ?, games = ?, wins = ?, draws = ?, losses = ? "
                "WHERE bot_id = ? AND version = ?",
                (
                    new.mu,
                    new.sigma,
                    new.games,
                    new.wins,
                    new.draws,
                    new.losses,
                    new.bot_id,
                    new.version,
                ),
            )

    async def recover_interrupted(
        self, max_attempts: int, now: float
    ) -> tuple[list[str], list[str]]:
        def fn(c: sqlite3.Connection) -> tuple[list[str], list[str]]:
            rows = c.execute("SELECT id, attempts FROM matches WHERE status = 'running'").fetchall()
            requeued = [r["id"] for r in rows if r["attempts"] < max_attempts]
            failed = [r["id"] for r in rows if r["attempts"] >= max_attempts]
            c.executemany(
                "UPDATE matches SET status = 'queued', started = NULL WHERE id = ?",
                [(i,) for i in requeued],
            )
            c.executemany(
                "UPDATE matches SET status = 'error', finished = ?, "
                "error = 'interrupted by server restarts too often' WHERE id = ?",
                [(now, i) for i in failed],
            )
            return requeued, failed

        return await self._tx(fn)

    async def count_matches(
        self,
        *,
        kind: str | None = None,
        game: str | None = None,
        statuses: Sequence[MatchStatus] = ("queued", "running"),
    ) -> int:
        where = [f"status IN ({','.join('?' * len(statuses))})"]
        args: list[Any] = list(statuses)
        if kind is not None:
            where.append("kind = ?")
            args.append(kind)
        if game is not None:
            where.append("game = ?")
            args.append(game)
        sql = "SELECT count(*) FROM matches WHERE " + " AND ".join(where)
        return await self._tx(lambda c: int(c.execute(sql, args).fetchone()[0]))

    async def ladder_counts(self, game: str) -> dict[tuple[int, int], int]:
        def fn(c: sqlite3.Connection) -> dict[tuple[int, int], int]:
            rows = c.execute(
                "SELECT mb.bot_id, mb.version, count(*) AS n FROM match_bots mb "
                "JOIN matches m ON m.id = mb.match_id "
                "WHERE m.kind = 'ladder' AND m.game = ? AND m.status IN "
                "('queued', 'running', 'finished') GROUP BY mb.bot_id, mb.version",
                (game,),
            )
            return {(r["bot_id"], r["version"]): r["n"] for r in rows}

        return await self._tx(fn)

    # -- ratings -----------------------------------------------------------
    async def ratings(self, game: str) -> list[Rating]:
        return await self._tx(
            lambda c: [
                _rating(r) for r in c.execute("SELECT * FROM ratings WHERE game = ?", (game,))
            ]
        )

    # -- tournaments -----------------------------------------------------
    async def create_tournament(
        self, tournament: Tournament, matches: Sequence[tuple[Match, int]] = ()
    ) -> None:
        t = tournament

        def fn(c: sqlite3.Connection) -> None:
            c.execute(
                "INSERT INTO tournaments (id, game, status, spec, created, requested_by) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (t.id, t.game, t.status, json.dumps(t.spec), t.created, t.requested_by),
            )
            for match, priority in matches:
                self._insert_match(c, match, priority)

        await self._tx(fn)

    async def get_tournament(self, tournament_id: str) -> Tournament | None:
        def fn(c: sqlite3.Connection) -> Tournament | None:
            row = c.execute("SELECT * FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
            return _tournament(row) if row else None

        return await self._tx(fn)

    async def list_tournaments(
        self, *, game: str | None = None, limit: int = 50
    ) -> list[Tournament]:
        sql = "SELECT * FROM tournaments"
        args: list[Any] = []
        if game is not None:
            sql += " WHERE game = ?"
            args.append(game)
        sql += " ORDER BY created DESC LIMIT ?"
        args.append(limit)
        return await self._tx(lambda c: [_tournament(r) for r in c.execute(sql, args)])

    async def update_tournament(
        self,
        tournament_id: str,
        *,
        status: TournamentStatus | None = None,
        standings: dict[str, Any] | None = None,
        error: str | None = None,
        finished: float | None = None,
    ) -> None:
        await self._tx(
            lambda c: c.execute(
                "UPDATE tournaments SET status = coalesce(?, status), "
                "standings = coalesce(?, standings), error = coalesce(?, error), "
                "finished = coalesce(?, finished) WHERE id = ?",
                (
                    status,
                    json.dumps(standings) if standings is not None else None,
                    error,
                    finished,
                    tournament_id,
                ),
            )
        )
