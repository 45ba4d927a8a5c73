"""SQLite storage: stdlib sqlite3 in WAL mode, one connection used from trio's worker threads.

Each public call runs one function in a worker thread inside one ``BEGIN IMMEDIATE`` ...
``COMMIT`` (a thread hop costs ~0.1 ms, so whole transactions are batched into one hop).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import trio

from judge.server.sql import SqlStorage
from judge.server.storage import StorageUnavailable

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
    (
        3,
        "claims with heartbeats, cancel requests (several servers on one database)",
        """
        ALTER TABLE matches ADD COLUMN claimed_by TEXT NOT NULL DEFAULT '';
        ALTER TABLE matches ADD COLUMN heartbeat REAL NOT NULL DEFAULT 0;
        ALTER TABLE matches ADD COLUMN cancel_by TEXT NOT NULL DEFAULT '';
        """,
    ),
    (
        4,
        "rating history (a bot's rating after each rated match)",
        """
        CREATE TABLE IF NOT EXISTS rating_history (
            bot_id INTEGER NOT NULL, version INTEGER NOT NULL, game TEXT NOT NULL,
            match_id TEXT NOT NULL, at REAL NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL,
            games INTEGER NOT NULL);
        CREATE INDEX IF NOT EXISTS rating_history_bot ON rating_history (bot_id, at);
        CREATE INDEX IF NOT EXISTS rating_history_game ON rating_history (game, at);
        """,
    ),
    (
        6,
        "account names by key (one per spelling), where accounts were made from; turns asked",
        """
        ALTER TABLE users ADD COLUMN name_key TEXT;
        ALTER TABLE users ADD COLUMN created_from TEXT NOT NULL DEFAULT '';
        UPDATE users
            SET name_key = lower(replace(replace(replace(name, '.', ''), '_', ''), '-', ''))
            WHERE id = (SELECT min(o.id) FROM users o
                WHERE lower(replace(replace(replace(o.name, '.', ''), '_', ''), '-', ''))
                    = lower(replace(replace(replace(users.name, '.', ''), '_', ''), '-', '')));
        CREATE UNIQUE INDEX IF NOT EXISTS users_by_name_key ON users (name_key);
        CREATE INDEX IF NOT EXISTS users_created_from ON users (created_from, created);
        ALTER TABLE matches ADD COLUMN turns INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX IF NOT EXISTS matches_requested ON matches (requested_by, created);
        """,
    ),
    (
        8,
        "contests: definitions, entries, their ladder and final-round matches",
        """
        CREATE TABLE IF NOT EXISTS contests (
            name TEXT PRIMARY KEY, spec TEXT NOT NULL, created REAL NOT NULL,
            created_by INTEGER, stage TEXT NOT NULL, final TEXT, results TEXT,
            error TEXT NOT NULL DEFAULT '', finished REAL);
        CREATE TABLE IF NOT EXISTS contest_entries (
            contest TEXT NOT NULL REFERENCES contests(name), user_id INTEGER NOT NULL,
            bot_id INTEGER NOT NULL, version INTEGER NOT NULL, submitted REAL NOT NULL,
            chosen INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (contest, bot_id, version));
        CREATE INDEX IF NOT EXISTS contest_entries_user ON contest_entries (contest, user_id);
        CREATE TABLE IF NOT EXISTS contest_matches (
            contest TEXT NOT NULL REFERENCES contests(name),
            match_id TEXT NOT NULL REFERENCES matches(id), kind TEXT NOT NULL,
            PRIMARY KEY (contest, match_id));
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


def unavailable(exc: sqlite3.OperationalError) -> StorageUnavailable:
    """What an operational error means for whoever waits on the database."""
    text = str(exc)
    if "full" in text:
        return StorageUnavailable("disk full", text)
    if "readonly" in text or "read-only" in text:
        return StorageUnavailable("the database is read-only", text)
    if "locked" in text or "busy" in text:
        return StorageUnavailable("the database is busy", text)
    return StorageUnavailable("the database cannot be read or written", text)


class SQLiteStorage(SqlStorage):
    integrity_errors = (sqlite3.IntegrityError,)
    schema_version = SCHEMA_VERSION

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
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    value = fn(conn)
                    conn.execute("COMMIT")
                except BaseException:
                    # (A failed COMMIT leaves the transaction open: the next BEGIN would fail.)
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.OperationalError as exc:
                raise unavailable(exc) from exc
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
                self.applied_migrations = migrate(conn, self.path)
            except BaseException:
                conn.close()
                raise
            return conn

        self._conn = await trio.to_thread.run_sync(connect, limiter=self._limiter)

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await trio.to_thread.run_sync(conn.close, limiter=self._limiter)
