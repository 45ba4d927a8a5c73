"""The storage interface. Every call is one transaction; SQLite is the embedded backend.

Bot files and replays are not in here: they live as files in the data directory.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Sequence
from typing import Any

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

# Receives the seats' ratings (in seat order) and returns them updated; runs inside the
# transaction that records the result, so a result and its rating change commit together.
RatingUpdate = Callable[[list[Rating]], list[Rating]]


class Conflict(Exception):
    """A unique name is taken."""


class StorageUnavailable(Exception):
    """The database cannot serve now (unreachable, read-only, disk full): a fault of the
    machine, not of the request, worth trying again later. ``reason`` says which in words."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class Storage(ABC):
    # Migrations applied by the last open() (numbers), and the newest this backend knows.
    applied_migrations: list[int] = []  # noqa: RUF012 (replaced, never mutated)
    schema_version: int = 0
    # Whether several server processes may share it (then a stopped server's running
    # matches are recovered by lease, not all at once on start).
    shared: bool = False

    # -- lifecycle -------------------------------------------------------
    @abstractmethod
    async def open(self) -> None: ...

    @abstractmethod
    async def close(self) -> None: ...

    # -- users and tokens ------------------------------------------------
    @abstractmethod
    async def create_user(
        self, name: str, *, is_admin: bool = False, created_from: str = ""
    ) -> User:
        """A new account; Conflict when the name, or another spelling of it (the same
        ``names.name_key``), is taken. ``created_from``: the address that asked for it."""

    @abstractmethod
    async def count_registrations(self, created_from: str, *, since: float) -> int:
        """Accounts created from that address since then."""

    @abstractmethod
    async def get_user(self, user_id: int) -> User | None: ...

    @abstractmethod
    async def list_users(self) -> list[User]: ...

    @abstractmethod
    async def count_users(self) -> int: ...

    @abstractmethod
    async def add_token(self, user_id: int, token_hash: str, label: str) -> Token: ...

    @abstractmethod
    async def user_for_token(self, token_hash: str) -> User | None: ...

    @abstractmethod
    async def list_tokens(self, user_id: int) -> list[Token]: ...

    @abstractmethod
    async def revoke_token(self, user_id: int, token_id: int) -> bool: ...

    # -- bots and versions -----------------------------------------------
    @abstractmethod
    async def create_bot(self, name: str, owner_id: int, game: str) -> Bot: ...

    @abstractmethod
    async def get_bot(self, bot_id: int) -> Bot | None: ...

    @abstractmethod
    async def bot_by_name(self, name: str) -> Bot | None: ...

    @abstractmethod
    async def list_bots(
        self, *, game: str | None = None, owner_id: int | None = None, listed_only: bool = False
    ) -> list[Bot]: ...

    @abstractmethod
    async def update_bot(
        self, bot_id: int, *, enabled: bool | None = None, deleted: bool | None = None
    ) -> Bot | None: ...

    @abstractmethod
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
        """A new version with the next number, state ``checking``."""

    @abstractmethod
    async def set_stored_bytes(self, bot_id: int, version: int, stored_bytes: int) -> None: ...

    @abstractmethod
    async def count_versions(self, bot_id: int) -> int: ...

    @abstractmethod
    async def usage(self, user_id: int, *, since: float, turns_since: float = 0.0) -> Usage:
        """Bots, stored bytes, versions uploaded since ``since``, requested matches pending,
        turns of the matches requested since ``turns_since``."""

    @abstractmethod
    async def unbuilt_versions(self) -> list[Version]:
        """Versions still checking whose build has not run yet."""

    @abstractmethod
    async def get_version(self, bot_id: int, version: int) -> Version | None: ...

    @abstractmethod
    async def list_versions(self, bot_id: int) -> list[Version]: ...

    @abstractmethod
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
        """Record a check's outcome; ``ready`` lists the bot and gives the version a rating."""

    # -- matches ---------------------------------------------------------
    @abstractmethod
    async def create_match(self, match: Match, *, priority: int = 0, held: bool = False) -> None:
        """A held match is not claimed until it is released (a smoke match waiting for its
        version's build)."""

    @abstractmethod
    async def hold_match(self, match_id: str, held: bool) -> None: ...

    @abstractmethod
    async def requeue_match(
        self, match_id: str, *, not_before: float, error: str, owner: str | None = None
    ) -> None:
        """Back to the queue after a fault of the judge, not to be claimed before
        ``not_before`` (with ``owner``: only while it is that owner's claim)."""

    @abstractmethod
    async def get_match(self, match_id: str) -> Match | None: ...

    @abstractmethod
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
    ) -> list[Match]: ...

    @abstractmethod
    async def claim_next_match(self, now: float, owner: str = "") -> Match | None:
        """The next claimable queued match (highest priority, oldest first), marked running
        and claimed by ``owner`` (a server process) with a heartbeat of ``now``. Two processes
        never claim the same match."""

    @abstractmethod
    async def heartbeat(
        self, owner: str, now: float, running: Collection[str] = ()
    ) -> list[tuple[str, str]]:
        """Refresh the heartbeat of the matches in ``running`` (those ``owner`` still plays
        or records; a row it claimed and let go of is left to lapse); (id, by whom) of those
        someone asked to cancel, and (id, "") of those that are no longer ``owner``'s (its
        claim lapsed and another server took the match)."""

    @abstractmethod
    async def stuck_matches(self, before: float) -> list[str]:
        """Running matches whose heartbeat is older than ``before`` (nobody renews them)."""

    @abstractmethod
    async def probe(self) -> None:
        """One small write, committed: raises StorageUnavailable when the database cannot
        be reached or written."""

    @abstractmethod
    async def request_cancel(self, match_id: str, by: str) -> bool:
        """Ask whichever process runs the match to cancel it; False if it is not running."""

    @abstractmethod
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
        """Record the end of a match (and its rating change) in one transaction. A match
        already ended is left as it is. With ``owner``, only while the match is running
        under that owner's claim; None if there is no such match or the claim is gone."""

    @abstractmethod
    async def recover_interrupted(
        self, max_attempts: int, now: float, *, stale_before: float | None = None
    ) -> tuple[list[str], list[str]]:
        """Matches left ``running`` by a stopped server: requeued ids, ids marked ``error``.

        With ``stale_before``, only those whose heartbeat is older (their server stopped
        beating); without, every running match (a server alone on its database)."""

    @abstractmethod
    async def count_matches(
        self,
        *,
        kind: str | None = None,
        game: str | None = None,
        statuses: Sequence[MatchStatus] = ("queued", "running"),
    ) -> int: ...

    @abstractmethod
    async def ladder_counts(self, game: str) -> dict[tuple[int, int], int]:
        """Ladder matches (queued, running or finished) per (bot id, version)."""

    # -- ratings -----------------------------------------------------------
    @abstractmethod
    async def ratings(self, game: str) -> list[Rating]: ...

    @abstractmethod
    async def rating_history(
        self, *, bot_id: int | None = None, game: str | None = None, limit: int = 5000
    ) -> list[RatingPoint]:
        """Ratings after each rated match (of one bot, or of a game), oldest first: the
        newest ``limit`` of them."""

    # -- copying a whole database (judge db copy) -------------------------------------
    @abstractmethod
    async def export_rows(self) -> dict[str, list[dict[str, Any]]]:
        """Every row of every table, by table (the same columns in every backend)."""

    @abstractmethod
    async def import_rows(self, tables: dict[str, list[dict[str, Any]]]) -> None:
        """Rows from ``export_rows`` into this empty database, in one transaction
        (Conflict when it is not empty)."""

    # -- tournaments -----------------------------------------------------
    @abstractmethod
    async def create_tournament(
        self, tournament: Tournament, matches: Sequence[tuple[Match, int]] = ()
    ) -> None:
        """The tournament and its (match, priority) pairs, in one transaction."""

    @abstractmethod
    async def get_tournament(self, tournament_id: str) -> Tournament | None: ...

    @abstractmethod
    async def list_tournaments(
        self, *, game: str | None = None, limit: int = 50
    ) -> list[Tournament]: ...

    @abstractmethod
    async def update_tournament(
        self,
        tournament_id: str,
        *,
        status: TournamentStatus | None = None,
        standings: dict[str, Any] | None = None,
        error: str | None = None,
        finished: float | None = None,
    ) -> None: ...

    # -- contests ----------------------------------------------------------
    @abstractmethod
    async def create_contest(self, contest: Contest) -> None:
        """Conflict when the name is taken."""

    @abstractmethod
    async def get_contest(self, name: str) -> Contest | None: ...

    @abstractmethod
    async def list_contests(self) -> list[Contest]:
        """Every contest, the one that closes last first."""

    @abstractmethod
    async def update_contest(
        self,
        name: str,
        *,
        stage: ContestStage | None = None,
        final: dict[str, Any] | None = None,
        results: dict[str, Any] | None = None,
        error: str | None = None,
        finished: float | None = None,
    ) -> None: ...

    @abstractmethod
    async def add_contest_entry(
        self, contest: str, user_id: int, bot_id: int, version: int, *, submitted: float
    ) -> None: ...

    @abstractmethod
    async def contest_entries(
        self, contest: str, *, user_id: int | None = None
    ) -> list[ContestEntry]:
        """Entries (with their version's check), oldest first."""

    @abstractmethod
    async def choose_contest_entry(
        self, contest: str, user_id: int, bot_id: int, version: int
    ) -> bool:
        """Mark this entry of the user as the chosen one (and no other); False if it is not
        theirs."""

    @abstractmethod
    async def add_contest_matches(
        self, contest: str, kind: str, matches: Sequence[tuple[Match, int]]
    ) -> None:
        """Queue (match, priority) pairs as the contest's, in one transaction."""

    @abstractmethod
    async def start_contest_final(
        self, contest: str, final: dict[str, Any], matches: Sequence[tuple[Match, int]]
    ) -> bool:
        """In one transaction: the contest from stage ``entries`` to ``final`` with its frozen
        entries and plan, and its final matches queued. False (nothing changed) when it is not
        at ``entries`` any more: another server on the database started the round first."""

    @abstractmethod
    async def contest_matches(self, contest: str, *, kind: str | None = None) -> list[Match]:
        """The contest's matches (of one kind: ``contest`` ladder or ``final``), oldest first."""
