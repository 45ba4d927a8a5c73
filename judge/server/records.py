"""The records the server keeps, as returned by every storage backend and the API."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from judge.analysis import SourceAnalysis

VersionState = Literal["checking", "ready", "failed"]
MatchStatus = Literal["queued", "running", "finished", "error", "cancelled"]
MatchKind = Literal["manual", "ladder", "tournament", "smoke", "contest", "final"]
TournamentStatus = Literal["running", "finished", "error", "cancelled"]


class User(BaseModel):
    id: int
    name: str
    is_admin: bool
    created: float


class Token(BaseModel):
    id: int
    user_id: int
    label: str
    created: float


class Bot(BaseModel):
    id: int
    name: str
    owner_id: int
    owner: str
    game: str
    enabled: bool
    deleted: bool
    created: float
    latest_version: int | None = Field(None, description="newest version that passed its check")
    listed_at: float | None = Field(None, description="when a version first passed its check")
    status: Literal["listed", "checking", "failed", "no version", ""] = Field(
        "",
        description="listed (a version passed its check), checking, failed (every version "
        "failed its check) or no version; in bot lists",
    )


class Launch(BaseModel):
    """How a stored version starts: a command in its box, a Python file through an adapter,
    or one of the game's built-in bots (``run`` names it; the version has no files)."""

    kind: Literal["command", "python", "builtin"]
    run: str = ""
    file: str = ""
    build: str | None = None
    analysis: SourceAnalysis | None = Field(
        None, description="a Python file: its adapter style and Python, decided at its upload"
    )


class Version(BaseModel):
    bot_id: int
    version: int
    created: float
    filename: str
    size: int
    sha256: str
    launch: Launch
    state: VersionState
    built: bool = False
    message: str = ""
    smoke_match: str | None = None
    stored_bytes: int = Field(0, description="the version's files as stored (unpacked, built)")


class Seat(BaseModel):
    """One seat of a match: a stored bot version or a built-in bot of the game."""

    bot_id: int | None = None
    version: int | None = None
    builtin: str | None = None
    name: str


class Match(BaseModel):
    id: str
    game: str
    kind: MatchKind
    status: MatchStatus
    seats: list[Seat]
    options: dict[str, Any]
    seed: int
    created: float
    started: float | None = None
    finished: float | None = None
    requested_by: int | None = None
    result: dict[str, Any] | None = None
    error: str = ""
    attempts: int = 0
    tournament_id: str | None = None
    rated: bool = False
    turns: int = Field(
        0, description="turns its options ask for, counted against its requester's daily budget"
    )


class Usage(BaseModel):
    """What a user holds now, for quotas."""

    bots: int = 0
    stored_bytes: int = 0
    uploads_last_hour: int = 0
    queued_matches: int = Field(0, description="requested matches queued or running")
    turns_last_day: int = Field(0, description="turns asked by matches requested in 24 hours")


class Rating(BaseModel):
    bot_id: int
    version: int
    game: str
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


class RatingPoint(BaseModel):
    """A bot version's rating just after one of its rated matches."""

    bot_id: int
    version: int
    match_id: str
    at: float
    mu: float
    sigma: float
    games: int


class Tournament(BaseModel):
    id: str
    game: str
    status: TournamentStatus
    spec: dict[str, Any]
    created: float
    finished: float | None = None
    requested_by: int | None = None
    standings: dict[str, Any] | None = None
    error: str = ""


ContestStage = Literal["entries", "final", "finished", "error"]


class Contest(BaseModel):
    """A contest: its definition (judge.contests.definition.ContestSpec as JSON) and where
    it is: taking entries (before and while open), its final round, finished."""

    name: str
    spec: dict[str, Any]
    created: float
    created_by: int | None = None
    stage: ContestStage = "entries"
    final: dict[str, Any] | None = Field(None, description="the frozen entries and the plan")
    results: dict[str, Any] | None = None
    error: str = ""
    finished: float | None = None


class ContestEntry(BaseModel):
    """One version a user submitted to a contest, with its check's state."""

    contest: str
    user_id: int
    user: str
    bot_id: int
    bot: str
    version: int
    submitted: float
    chosen: bool = False
    state: VersionState = "checking"
    message: str = ""
    smoke_match: str | None = None
    sha256: str = ""

    @property
    def entry(self) -> str:
        return f"{self.bot}@{self.version}"
