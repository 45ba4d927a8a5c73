"""A contest's definition: TOML for the CLI, JSON for the API, one pydantic model."""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"


class FinalRound(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal["round_robin", "game"] = Field(
        "round_robin",
        description="round_robin: every pair of entries plays games_per_pair matches; "
        "game: the game's own tourney format (docs/tournaments.md) over all entries",
    )
    games_per_pair: int = Field(2, ge=1, le=1000, description="round_robin: matches per pair")
    alternate_seats: bool = Field(
        True,
        description="round_robin: a pair's matches come in twins on one seed, seats swapped",
    )
    options: dict[str, Any] | None = Field(
        None, description="game options of the final round (default: the contest's options)"
    )
    settings: dict[str, Any] = Field(
        default_factory=dict,
        description="format 'game': the tourney's settings (games, runs, concurrency)",
    )


class ContestSpec(BaseModel):
    """Everything an organiser decides. Times are UTC (a time without a zone is taken as UTC)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME_PATTERN, description="1-40 letters, digits, '_', '.', '-'")
    title: str = Field("", max_length=200)
    game: str
    options: dict[str, Any] = Field(default_factory=dict, description="game options")
    opens: datetime
    closes: datetime
    entrants: Literal["everyone"] | list[str] = Field(
        "everyone", description="'everyone' with an account, or a list of user names"
    )
    submissions_per_day: int = Field(5, ge=1, le=1000, description="versions per user per UTC day")
    counts: Literal["latest", "chosen"] = Field(
        "latest",
        description="the version that enters the final round: the latest that passed its "
        "check, or the one the entrant chose (their latest until they choose)",
    )
    ladder: bool = Field(True, description="a ladder between the entries while it is open")
    ladder_options: dict[str, Any] | None = Field(
        None, description="game options of ladder matches (default: the contest's options)"
    )
    freeze_hours: float = Field(
        0, ge=0, le=24 * 365, description="the board shows its state of this long before closes"
    )
    publish_files: bool = Field(False, description="the archive holds the entries' files")
    rules: str = Field("", max_length=100_000, description="Markdown")
    final: FinalRound = Field(default_factory=FinalRound)

    @field_validator("opens", "closes")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)

    @model_validator(mode="after")
    def _order(self) -> ContestSpec:
        if self.closes <= self.opens:
            raise ValueError("closes must be after opens")
        return self

    @property
    def opens_at(self) -> float:
        return self.opens.timestamp()

    @property
    def closes_at(self) -> float:
        return self.closes.timestamp()

    @property
    def freeze_at(self) -> float | None:
        return self.closes_at - self.freeze_hours * 3600 if self.freeze_hours else None

    def may_enter(self, user: str) -> bool:
        return self.entrants == "everyone" or user in self.entrants


class DefinitionError(ValueError):
    """A contest file that cannot be used; the message says why."""


def describe_errors(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'contest'}: {e['msg']}" for e in exc.errors()
    )


def load_toml(path: Path) -> ContestSpec:
    """A contest file (TOML) -> the definition; DefinitionError names what is wrong."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise DefinitionError(f"cannot read {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise DefinitionError(f"{path} is not valid TOML: {exc}") from None
    try:
        return ContestSpec.model_validate(data)
    except ValidationError as exc:
        raise DefinitionError(f"{path}: {describe_errors(exc)}") from None
