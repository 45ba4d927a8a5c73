"""A match's result: what a replay's ``#result`` line holds, and what the runner returns."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

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


class ResponseStats(BaseModel):
    count: int = 0
    mean_ms: float = 0.0
    median_ms: float = 0.0
    p95_ms: float = 0.0
    max_ms: float = 0.0

    @classmethod
    def pooled(cls, stats: list[ResponseStats]) -> ResponseStats:
        """Figures over several matches: exact count, mean and max; the median and p95 are
        the answer-weighted medians of each match's figures (the runner keeps no raw times)."""
        stats = [s for s in stats if s.count]
        if len(stats) <= 1:
            return stats[0] if stats else cls()
        count = sum(s.count for s in stats)
        return cls(
            count=count,
            mean_ms=round(sum(s.mean_ms * s.count for s in stats) / count, 3),
            median_ms=weighted_median([(s.median_ms, s.count) for s in stats]),
            p95_ms=weighted_median([(s.p95_ms, s.count) for s in stats]),
            max_ms=max(s.max_ms for s in stats),
        )


def weighted_median(values: list[tuple[float, int]]) -> float:
    ordered = sorted(values)
    half = sum(weight for _, weight in ordered) / 2
    seen = 0
    for value, weight in ordered:
        seen += weight
        if seen >= half:
            return value
    return ordered[-1][0]


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
    caught: int = Field(0, description="exceptions an adapter caught in the bot and played on")
    caught_first: str = Field("", description="the first caught exception's type and message")


class MatchResult(BaseModel):
    match_id: str
    game: str
    seed: int
    secret: str | None = Field(
        None, description="the match secret (hex), revealed once the match is over (version 2)"
    )
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
