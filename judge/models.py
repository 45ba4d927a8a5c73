"""Pydantic models shared by the runner, the CLI, tournaments and the server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# Outcome codes of a player; every code but "ok" is a disqualification.
OUTCOMES: dict[str, str] = {
    "ok": "played to the end",
    "crash": "the bot crashed (non-zero exit or killed by a signal)",
    "exit": "the bot exited before the match ended",
    "closed_stdout": "the bot closed its stdout before the match ended",
    "closed_stdin": "the bot closed its stdin before the match ended",
    "timeout": "no complete answer before the deadline",
    "invalid_order": "the answer is not a legal order",
    "no_order": "the answer holds no order",
    "multiple_orders": "the answer holds more than one order",
    "protocol_error": "the output breaks the protocol (limits, encoding)",
    "memory": "killed for using more memory than allowed",
    "start_failed": "the bot could not be started",
}


class BotSpec(BaseModel):
    """How to start one bot: argv without a shell, a working directory, extra env."""

    model_config = ConfigDict(frozen=True)

    name: str
    argv: tuple[str, ...]
    cwd: Path | None = None
    env: dict[str, str] = Field(default_factory=dict)
    # Paths the sandbox must show the bot read-only (its interpreter, shared libraries of ours).
    readonly_paths: tuple[Path, ...] = ()
    # The bot's own directory (its box); writable when a sandbox copies it.
    box: Path | None = None


class MatchSpec(BaseModel):
    """Everything that decides a match; the same spec and seed give the same replay body."""

    game: str
    bots: list[BotSpec]
    seed: int = 0
    options: dict[str, Any] = Field(default_factory=dict)
    turn_deadline: float = Field(1.0, gt=0, description="seconds per turn, wall clock")
    startup_allowance: float = Field(
        5.0, ge=0, description="extra seconds on a bot's first turn for interpreters and JITs"
    )
    end_grace: float = Field(0.5, ge=0, description="seconds a bot has to exit after the end")
    match_id: str = ""
    pause_idle: bool = Field(
        True, description="pause bots while they are not on turn (games with one mover at a time)"
    )


class ResponseStats(BaseModel):
    count: int = 0
    mean_ms: float = 0.0
    median_ms: float = 0.0
    p95_ms: float = 0.0
    max_ms: float = 0.0


class PlayerResult(BaseModel):
    name: str
    seat: int
    label: str
    score: float
    rank: int
    outcome: str
    reason: str = ""
    turn: int | None = Field(None, description="turn of the disqualification")
    response: ResponseStats = Field(default_factory=ResponseStats)
    stderr: str = ""
    exit_status: int | None = None


class MatchResult(BaseModel):
    match_id: str
    game: str
    seed: int
    options: dict[str, Any]
    turns: int
    players: list[PlayerResult]
    winner: int | None
    draw: bool
    summary: str = ""
    details: dict[str, list[float]] = Field(
        default_factory=dict, description="further per-seat figures the game reports"
    )
    replay: str | None = None
    sandbox: str = "none"
    duration_s: float = 0.0
    judge_version: str = ""
