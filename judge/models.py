"""Pydantic models shared by the runner, the CLI, tournaments and the server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from games.seeds import secret_from_seed

# A match's result is what a replay's ``#result`` line holds: the replay format defines it.
from replays.result import OUTCOMES as OUTCOMES
from replays.result import MatchResult as MatchResult
from replays.result import PlayerResult as PlayerResult
from replays.result import ResponseStats as ResponseStats


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
    secret: str | None = Field(
        None,
        pattern=r"^[0-9a-f]{64}$",
        repr=False,
        description="the match secret (hex) every seat's seed and the game's draws derive from "
        "(games/seeds.py); unset: derived from the seed alone, as guessable as the seed",
    )
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

    def match_secret(self) -> bytes:
        return bytes.fromhex(self.secret) if self.secret else secret_from_seed(self.seed)
