"""The SQL every backend shares, written to run on SQLite and PostgreSQL alike: ``?``
placeholders (a backend translates them), ``RETURNING`` instead of ``lastrowid``,
``ON CONFLICT`` instead of ``INSERT OR ...``, flags as 0/1 integers and JSON as text.

A backend provides ``_tx`` (run one function in one transaction, in a worker thread),
``open``/``close`` (with its migrations), its integrity-error types, and the lock clause that
makes claiming a queued match safe between processes.
"""

from __future__ import annotations

import json
import time
from abc import abstractmethod
from collections.abc import Callable, Collection, Sequence
from typing import Any, ClassVar, TypeVar

from judge.server.names import name_key
from judge.server.records import (
    Bot,
    Contest,
    ContestEntry,
    ContestStage,
    Launch,
    Match,
    MatchStatus,
    Rating,
    RatingPoint,
    Token,
    Tournament,
    TournamentStatus,
    Usage,
    User,
    Version,
    VersionState,
)
from judge.server.rows import (
    _bot,
    _contest,
    _contest_entry,
    _match,
    _rating,
    _tournament,
    _user,
    _version,
)
from judge.server.storage import Conflict, RatingUpdate, Storage

T = TypeVar("T")

BOT_SELECT = """
SELECT b.*, u.name AS owner,
       (SELECT max(v.version) FROM versions v WHERE v.bot_id = b.id AND v.state = 'ready')
           AS latest_version
FROM bots b JOIN users u ON u.id = b.owner_id
"""


# In the order rows can be inserted (references first).
TABLES = (
    "users",
    "tokens",
    "bots",
    "versions",
    "matches",
    "match_bots",
    "ratings",
    "tournaments",
    "rating_history",
    "contests",
    "contest_entries",
    "contest_matches",
)


class SqlStorage(Storage):
    integrity_errors: tuple[type[BaseException], ...] = ()
    # Appended to the claim's SELECT (PostgreSQL: FOR UPDATE SKIP LOCKED).
    claim_lock: ClassVar[str] = ""

    @abstractmethod
    async def _tx(self, fn: Callable[[Any], T]) -> T:
        """Run ``fn(connection)`` in one transaction, in a worker thread."""

    # -- users and tokens ------------------------------------------------
    async def create_user(
        self, name: str, *, is_admin: bool = False, created_from: str = ""
    ) -> User:
        key = name_key(name)

        def fn(c: Any) -> User:
            taken = c.execute(
                "SELECT name FROM users WHERE name = ? OR name_key = ?", (name, key)
            ).fetchone()
            if taken:
                raise Conflict(_taken(name, taken[0]))
            try:
                row = c.execute(
                    "INSERT INTO users (name, name_key, is_admin, created, created_from) "
                    "VALUES (?, ?, ?, ?, ?) RETURNING *",
                    (name, key, int(is_admin), time.time(), created_from),
                ).fetchone()
            except self.integrity_errors:
                raise Conflict(_taken(name, name)) from None
            return _user(row)

        return await self._tx(fn)

    async def count_registrations(self, created_from: str, *, since: float) -> int:
        return await self._tx(
            lambda c: int(
                c.execute(
                    "SELECT count(*) FROM users WHERE created_from = ? AND created >= ?",
                    (created_from, since),
                ).fetchone()[0]
            )
        )

    async def get_user(self, user_id: int) -> User | None:
        def fn(c: Any) -> User | None:
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
        def fn(c: Any) -> Token:
            now = time.time()
            row = c.execute(
                "INSERT INTO tokens (user_id, hash, label, created) VALUES (?, ?, ?, ?) "
                "RETURNING id",
                (user_id, token_hash, label, now),
            ).fetchone()
            return Token(id=row[0], user_id=user_id, label=label, created=now)

        return await self._tx(fn)

    async def user_for_token(self, token_hash: str) -> User | None:
        def fn(c: Any) -> User | None:
            row = c.execute(
                "SELECT u.* FROM tokens t JOIN users u ON u.id = t.user_id "
                "WHERE t.hash = ? AND t.revoked = 0",
                (token_hash,),
            ).fetchone()
            return _user(row) if row else None

        return await self._tx(fn)

    async def list_tokens(self, user_id: int) -> list[Token]:
        def fn(c: Any) -> list[Token]:
            rows = c.execute(
                "SELECT * FROM tokens WHERE user_id = ? AND revoked = 0 ORDER BY id", (user_id,)
            )
            return [
                Token(id=r["id"], user_id=r["user_id"], label=r["label"], created=r["created"])
                for r in rows
            ]

        return await self._tx(fn)

    async def revoke_token(self, user_id: int, token_id: int) -> bool:
        def fn(c: Any) -> bool:
            cur = c.execute(
                "UPDATE tokens SET revoked = 1 WHERE id = ? AND user_id = ? AND revoked = 0",
                (token_id, user_id),
            )
            return bool(cur.rowcount == 1)

        return await self._tx(fn)

    # -- bots and versions -----------------------------------------------
    async def create_bot(self, name: str, owner_id: int, game: str) -> Bot:
        def fn(c: Any) -> Bot:
            if c.execute("SELECT 1 FROM bots WHERE name = ?", (name,)).fetchone():
                raise Conflict(f"the bot name {name!r} is taken")
            try:
                row = c.execute(
                    "INSERT INTO bots (name, owner_id, game, created) VALUES (?, ?, ?, ?) "
                    "RETURNING id",
                    (name, owner_id, game, time.time()),
                ).fetchone()
            except self.integrity_errors:
                raise Conflict(f"the bot name {name!r} is taken") from None
            return _bot(c.execute(BOT_SELECT + " WHERE b.id = ?", (row[0],)).fetchone())

        return await self._tx(fn)

    async def get_bot(self, bot_id: int) -> Bot | None:
        def fn(c: Any) -> Bot | None:
            row = c.execute(BOT_SELECT + " WHERE b.id = ?", (bot_id,)).fetchone()
            return _bot(row) if row else None

        return await self._tx(fn)

    async def bot_by_name(self, name: str) -> Bot | None:
        def fn(c: Any) -> Bot | None:
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
        def fn(c: Any) -> Bot | None:
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
        def fn(c: Any) -> Version:
            # Lock the bot's row: two uploads at once must not take the same number.
            c.execute("UPDATE bots SET game = game WHERE id = ?", (bot_id,))
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
        def fn(c: Any) -> Version | None:
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

    async def usage(self, user_id: int, *, since: float, turns_since: float = 0.0) -> Usage:
        def fn(c: Any) -> Usage:
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
            turns = c.execute(
                "SELECT coalesce(sum(turns), 0) FROM matches WHERE requested_by = ? "
                "AND created >= ? AND kind IN ('manual', 'tournament')",
                (user_id, turns_since),
            ).fetchone()[0]
            return Usage(
                bots=int(bots),
                stored_bytes=int(stored),
                uploads_last_hour=int(uploads),
                queued_matches=int(queued),
                turns_last_day=int(turns),
            )

        return await self._tx(fn)

    async def unbuilt_versions(self) -> list[Version]:
        def fn(c: Any) -> list[Version]:
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
        def fn(c: Any) -> None:
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
                        "INSERT INTO ratings (bot_id, version, game, mu, sigma) "
                        "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                        (bot_id, version, game, *initial_rating),
                    )

        await self._tx(fn)

    # -- matches ---------------------------------------------------------
    @staticmethod
    def _insert_match(c: Any, match: Match, priority: int, held: bool = False) -> None:
        c.execute(
            "INSERT INTO matches (id, game, kind, status, seats, options, seed, created, "
            "requested_by, tournament_id, rated, priority, held, turns) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                match.turns,
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

    async def requeue_match(
        self, match_id: str, *, not_before: float, error: str, owner: str | None = None
    ) -> None:
        sql = (
            "UPDATE matches SET status = 'queued', started = NULL, not_before = ?, error = ? "
            "WHERE id = ? AND status = 'running'"
        )
        args: list[Any] = [not_before, error, match_id]
        if owner is not None:
            sql += " AND claimed_by = ?"
            args.append(owner)
        await self._tx(lambda c: c.execute(sql, args))

    async def get_match(self, match_id: str) -> Match | None:
        def fn(c: Any) -> Match | None:
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

    async def claim_next_match(self, now: float, owner: str = "") -> Match | None:
        def fn(c: Any) -> Match | None:
            row = c.execute(
                "SELECT id FROM matches WHERE status = 'queued' AND held = 0 AND not_before <= ? "
                "ORDER BY priority DESC, created, id LIMIT 1" + self.claim_lock,
                (now,),
            ).fetchone()
            if row is None:
                return None
            c.execute(
                "UPDATE matches SET status = 'running', started = ?, attempts = attempts + 1, "
                "claimed_by = ?, heartbeat = ?, cancel_by = '' WHERE id = ?",
                (now, owner, now, row["id"]),
            )
            return _match(c.execute("SELECT * FROM matches WHERE id = ?", (row["id"],)).fetchone())

        return await self._tx(fn)

    async def heartbeat(
        self, owner: str, now: float, running: Collection[str] = ()
    ) -> list[tuple[str, str]]:
        ids = sorted(running)
        if not ids:
            return []
        among = f"id IN ({', '.join('?' * len(ids))})"

        def fn(c: Any) -> list[tuple[str, str]]:
            c.execute(
                "UPDATE matches SET heartbeat = ? "
                f"WHERE claimed_by = ? AND status = 'running' AND {among}",
                (now, owner, *ids),
            )
            rows = c.execute(
                "SELECT id, cancel_by FROM matches "
                f"WHERE claimed_by = ? AND status = 'running' AND {among}",
                (owner, *ids),
            ).fetchall()
            held = {r["id"] for r in rows}
            asked = [(r["id"], r["cancel_by"]) for r in rows if r["cancel_by"]]
            return asked + [(match_id, "") for match_id in ids if match_id not in held]

        return await self._tx(fn)

    async def stuck_matches(self, before: float) -> list[str]:
        def fn(c: Any) -> list[str]:
            rows = c.execute(
                "SELECT id FROM matches WHERE status = 'running' AND heartbeat < ? ORDER BY id",
                (before,),
            ).fetchall()
            return [r["id"] for r in rows]

        return await self._tx(fn)

    async def probe(self) -> None:
        # A real row rewritten (to itself): the write and its commit reach the disk.
        await self._tx(
            lambda c: c.execute(
                "UPDATE migrations SET applied = applied "
                "WHERE number = (SELECT max(number) FROM migrations)"
            )
        )

    async def request_cancel(self, match_id: str, by: str) -> bool:
        def fn(c: Any) -> bool:
            cur = c.execute(
                "UPDATE matches SET cancel_by = ? WHERE id = ? AND status = 'running'",
                (by, match_id),
            )
            return bool(cur.rowcount == 1)

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
        owner: str | None = None,
    ) -> Match | None:
        def fn(c: Any) -> Match | None:
            row = c.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
            if row is None:
                return None
            match = _match(row)
            if owner is None and match.status in ("finished", "error", "cancelled"):
                return match  # already final: a second report changes nothing
            sql = "UPDATE matches SET status = ?, finished = ?, result = ?, error = ? WHERE id = ?"
            args = [status, now, json.dumps(result) if result is not None else None, error]
            args.append(match_id)
            if owner is not None:
                # Only while this owner's claim holds (checked by the update itself, so two
                # servers finishing at once cannot both pass).
                sql += " AND status = 'running' AND claimed_by = ?"
                args.append(owner)
            if c.execute(sql, args).rowcount != 1:
                return None  # the claim lapsed: another server has (or had) the match
            if rating_update is not None and status == "finished":
                self._rate(c, match, rating_update, now)
            return _match(c.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone())

        return await self._tx(fn)

    @staticmethod
    def _rate(c: Any, match: Match, update: RatingUpdate, now: float) -> None:
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
            c.execute(
                "INSERT INTO rating_history "
                "(bot_id, version, game, match_id, at, mu, sigma, games) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (new.bot_id, new.version, new.game, match.id, now, new.mu, new.sigma, new.games),
            )

    async def rating_history(
        self, *, bot_id: int | None = None, game: str | None = None, limit: int = 5000
    ) -> list[RatingPoint]:
        def fn(c: Any) -> list[RatingPoint]:
            where: list[str] = []
            args: list[Any] = []
            if bot_id is not None:
                where.append("bot_id = ?")
                args.append(bot_id)
            if game is not None:
                where.append("game = ?")
                args.append(game)
            sql = "SELECT * FROM rating_history"
            if where:
                sql += " WHERE " + " AND ".join(where)
            # The newest ``limit`` points, oldest first.
            sql += " ORDER BY at DESC, match_id LIMIT ?"
            rows = c.execute(sql, [*args, limit]).fetchall()
            return [
                RatingPoint(**{k: row[k] for k in RatingPoint.model_fields}) for row in rows[::-1]
            ]

        return await self._tx(fn)

    async def recover_interrupted(
        self, max_attempts: int, now: float, *, stale_before: float | None = None
    ) -> tuple[list[str], list[str]]:
        def fn(c: Any) -> tuple[list[str], list[str]]:
            sql = "SELECT id, attempts FROM matches WHERE status = 'running'"
            args: list[Any] = []
            if stale_before is not None:
                sql += " AND heartbeat < ?"
                args.append(stale_before)
            rows = c.execute(sql + self.claim_lock, args).fetchall()
            requeued = [r["id"] for r in rows if r["attempts"] < max_attempts]
            failed = [r["id"] for r in rows if r["attempts"] >= max_attempts]
            c.executemany(
                "UPDATE matches SET status = 'queued', started = NULL, claimed_by = '' "
                "WHERE id = ?",
                [(i,) for i in requeued],
            )
            c.executemany(
                "UPDATE matches SET status = 'error', finished = ?, "
                "error = 'interrupted too often (its server stopped, or could not record "
                "its result)' WHERE id = ?",
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
        def fn(c: Any) -> dict[tuple[int, int], int]:
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

        def fn(c: Any) -> None:
            c.execute(
                "INSERT INTO tournaments (id, game, status, spec, created, requested_by) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (t.id, t.game, t.status, json.dumps(t.spec), t.created, t.requested_by),
            )
            for match, priority in matches:
                self._insert_match(c, match, priority)

        await self._tx(fn)

    async def get_tournament(self, tournament_id: str) -> Tournament | None:
        def fn(c: Any) -> Tournament | None:
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

    # -- contests ----------------------------------------------------------
    async def create_contest(self, contest: Contest) -> None:
        def fn(c: Any) -> None:
            if c.execute("SELECT 1 FROM contests WHERE name = ?", (contest.name,)).fetchone():
                raise Conflict(f"the contest name {contest.name!r} is taken")
            try:
                c.execute(
                    "INSERT INTO contests (name, spec, created, created_by, stage) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (
                        contest.name,
                        json.dumps(contest.spec),
                        contest.created,
                        contest.created_by,
                        contest.stage,
                    ),
                )
            except self.integrity_errors:
                raise Conflict(f"the contest name {contest.name!r} is taken") from None

        await self._tx(fn)

    async def get_contest(self, name: str) -> Contest | None:
        def fn(c: Any) -> Contest | None:
            row = c.execute("SELECT * FROM contests WHERE name = ?", (name,)).fetchone()
            return _contest(row) if row else None

        return await self._tx(fn)

    async def list_contests(self) -> list[Contest]:
        def fn(c: Any) -> list[Contest]:
            contests = [_contest(r) for r in c.execute("SELECT * FROM contests")]
            return sorted(contests, key=lambda k: (str(k.spec.get("closes")), k.name), reverse=True)

        return await self._tx(fn)

    async def update_contest(
        self,
        name: str,
        *,
        stage: ContestStage | None = None,
        final: dict[str, Any] | None = None,
        results: dict[str, Any] | None = None,
        error: str | None = None,
        finished: float | None = None,
    ) -> None:
        await self._tx(
            lambda c: c.execute(
                "UPDATE contests SET stage = coalesce(?, stage), final = coalesce(?, final), "
                "results = coalesce(?, results), error = coalesce(?, error), "
                "finished = coalesce(?, finished) WHERE name = ?",
                (
                    stage,
                    json.dumps(final) if final is not None else None,
                    json.dumps(results) if results is not None else None,
                    error,
                    finished,
                    name,
                ),
            )
        )

    async def add_contest_entry(
        self, contest: str, user_id: int, bot_id: int, version: int, *, submitted: float
    ) -> None:
        await self._tx(
            lambda c: c.execute(
                "INSERT INTO contest_entries (contest, user_id, bot_id, version, submitted) "
                "VALUES (?, ?, ?, ?, ?)",
                (contest, user_id, bot_id, version, submitted),
            )
        )

    async def contest_entries(
        self, contest: str, *, user_id: int | None = None
    ) -> list[ContestEntry]:
        sql = (
            "SELECT e.*, u.name AS user_name, b.name AS bot_name, v.state, v.message, "
            "v.smoke_match, v.sha256 FROM contest_entries e "
            "JOIN users u ON u.id = e.user_id JOIN bots b ON b.id = e.bot_id "
            "JOIN versions v ON v.bot_id = e.bot_id AND v.version = e.version "
            "WHERE e.contest = ?"
        )
        args: list[Any] = [contest]
        if user_id is not None:
            sql += " AND e.user_id = ?"
            args.append(user_id)
        sql += " ORDER BY e.submitted, e.bot_id, e.version"
        return await self._tx(lambda c: [_contest_entry(r) for r in c.execute(sql, args)])

    async def choose_contest_entry(
        self, contest: str, user_id: int, bot_id: int, version: int
    ) -> bool:
        def fn(c: Any) -> bool:
            found = c.execute(
                "SELECT 1 FROM contest_entries WHERE contest = ? AND user_id = ? "
                "AND bot_id = ? AND version = ?",
                (contest, user_id, bot_id, version),
            ).fetchone()
            if not found:
                return False
            c.execute(
                "UPDATE contest_entries SET chosen = CASE WHEN bot_id = ? AND version = ? "
                "THEN 1 ELSE 0 END WHERE contest = ? AND user_id = ?",
                (bot_id, version, contest, user_id),
            )
            return True

        return await self._tx(fn)

    async def add_contest_matches(
        self, contest: str, kind: str, matches: Sequence[tuple[Match, int]]
    ) -> None:
        def fn(c: Any) -> None:
            for match, priority in matches:
                self._insert_match(c, match, priority)
            c.executemany(
                "INSERT INTO contest_matches (contest, match_id, kind) VALUES (?, ?, ?)",
                [(contest, match.id, kind) for match, _ in matches],
            )

        await self._tx(fn)

    async def start_contest_final(
        self, contest: str, final: dict[str, Any], matches: Sequence[tuple[Match, int]]
    ) -> bool:
        def fn(c: Any) -> bool:
            moved = c.execute(
                "UPDATE contests SET stage = 'final', final = ? WHERE name = ? "
                "AND stage = 'entries'",
                (json.dumps(final), contest),
            )
            if moved.rowcount != 1:
                return False
            for match, priority in matches:
                self._insert_match(c, match, priority)
            c.executemany(
                "INSERT INTO contest_matches (contest, match_id, kind) VALUES (?, ?, 'final')",
                [(contest, match.id) for match, _ in matches],
            )
            return True

        return await self._tx(fn)

    async def contest_matches(self, contest: str, *, kind: str | None = None) -> list[Match]:
        sql = (
            "SELECT m.* FROM matches m JOIN contest_matches k ON k.match_id = m.id "
            "WHERE k.contest = ?"
        )
        args: list[Any] = [contest]
        if kind is not None:
            sql += " AND k.kind = ?"
            args.append(kind)
        sql += " ORDER BY m.created, m.id"
        return await self._tx(lambda c: [_match(r) for r in c.execute(sql, args)])

    # -- copying a whole database ----------------------------------------------------
    async def export_rows(self) -> dict[str, list[dict[str, Any]]]:
        def fn(c: Any) -> dict[str, list[dict[str, Any]]]:
            tables: dict[str, list[dict[str, Any]]] = {}
            for table in TABLES:
                rows = c.execute(f"SELECT * FROM {table}").fetchall()
                # (sqlite3.Row iterates over values: keys() is needed)
                tables[table] = [{k: row[k] for k in row.keys()} for row in rows]  # noqa: SIM118
            return tables

        return await self._tx(fn)

    async def import_rows(self, tables: dict[str, list[dict[str, Any]]]) -> None:
        def fn(c: Any) -> None:
            if c.execute("SELECT count(*) FROM users").fetchone()[0]:
                raise Conflict("the destination database is not empty")
            for table in TABLES:
                rows = tables.get(table, [])
                if not rows:
                    continue
                columns = list(rows[0])
                c.executemany(
                    f"INSERT INTO {table} ({', '.join(columns)}) "
                    f"VALUES ({', '.join('?' for _ in columns)})",
                    [tuple(row[k] for k in columns) for row in rows],
                )
            self._after_import(c)

        await self._tx(fn)

    def _after_import(self, c: Any) -> None:
        """Rows came with their ids: a backend with sequences moves them past those ids."""


def _taken(name: str, holder: str) -> str:
    if holder == name:
        return f"the user name {name!r} is taken"
    return f"the user name {name!r} is taken: it reads as {holder!r}, an account already made"
