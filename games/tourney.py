"""Tournament formats: how a game's tourney is planned, followed and ranked.

A game's ``GamePlugin.format`` is one of these (or its own subclass, in its folder);
``judge.tournament`` runs whatever it plans. Ranks use standard competition ranking
(1, 1, 3); the listing order within a tie is the bots' order in the spec.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from games.base import competition_ranks


class FormatSettings(BaseModel):
    """A format's own settings (``TourneyFormat.Settings``): each field is one, with its
    default and bounds; ``judge tourney`` gives each a flag (``--<name>``), the server's
    tournament request takes them in ``settings``."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class TourneySettings(Protocol):
    """What a format plans from (``judge.tournament.TourneySpec``)."""

    @property
    def bots(self) -> Sequence[object]: ...
    @property
    def options(self) -> Mapping[str, Any]: ...
    @property
    def settings(self) -> Mapping[str, Any]: ...  # its Settings, validated, defaults filled
    @property
    def concurrency(self) -> int: ...


@dataclass(frozen=True)
class PlannedMatch:
    number: int
    bots: tuple[int, ...]
    options: dict[str, Any]


class MatchRecord(BaseModel):
    number: int
    seed: int
    bots: list[int] = Field(description="bot indices, seat by seat")
    winner: int | None = Field(description="bot index of the winner, None for a draw")
    scores: list[float]
    outcomes: list[str]
    summary: str
    details: dict[str, list[float]] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict, description="the game's options")
    replay: str | None


class BotStanding(BaseModel):
    index: int = Field(description="position in the spec's bot list")
    name: str
    rank: int
    points: float = Field(description="what the main board ranks by")
    games_won: float
    played: int = 0
    draws: int = 0
    losses: int = 0
    disqualified: int = Field(0, description="matches in which it was disqualified")
    score: float = Field(0, description="sum of its match scores")
    ranks: dict[str, int] = Field(default_factory=dict, description="rank on every board")
    board_values: dict[str, float] = Field(default_factory=dict)


class BoardRow(BaseModel):
    index: int
    name: str
    rank: int
    value: float


class Board(BaseModel):
    name: str
    description: str
    rows: list[BoardRow]


Report = Callable[[int, str], None]  # (units done since the last report, what just happened)


class MatchProgress:
    """Follows one planned match (its replay lines, then its end) in the format's units."""

    def __init__(self, report: Report, match: PlannedMatch, names: list[str]) -> None:
        self.report = report
        self.match = match
        self.names = names

    def line(self, line: str) -> None:
        """Every replay line of the match as it is written."""

    def done(self, record: MatchRecord) -> None:
        winner = "draw" if record.winner is None else self.names[record.bots.index(record.winner)]
        self.report(
            1, f"match {self.match.number}: {' v '.join(self.names)}: {winner} ({record.summary})"
        )


@dataclass
class Tally:
    """Per bot, over a tourney's match records: the counts every format starts from."""

    played: list[int]
    wins: list[int]
    draws: list[int]
    losses: list[int]
    disqualified: list[int]
    score: list[float]

    @classmethod
    def of(cls, n: int, records: list[MatchRecord]) -> Tally:
        tally = cls([0] * n, [0] * n, [0] * n, [0] * n, [0] * n, [0.0] * n)
        for rec in records:
            for seat, bot in enumerate(rec.bots):
                tally.played[bot] += 1
                tally.score[bot] += rec.scores[seat]
                tally.disqualified[bot] += rec.outcomes[seat] != "ok"
                if rec.winner is None:
                    tally.draws[bot] += 1
                elif rec.winner == bot:
                    tally.wins[bot] += 1
                else:
                    tally.losses[bot] += 1
        return tally


class TourneyFormat:
    """Round robin by default: every pair plays one match; a win is 1 point, a draw 1/2."""

    description = "round robin, one match per pair"
    Settings: type[FormatSettings] = FormatSettings  # none by default
    points_label = "points"  # what the main board ranks by
    unit = "matches"  # what progress counts
    # Every bot moves every turn: the runner batch-schedules the bots of its matches.
    arena = False
    boards_only = False  # show the boards, not the one standings table

    def seats(self, bots: int) -> int:
        """Seats of the largest match for ``bots`` bots."""
        return 2

    def plan(self, spec: TourneySettings) -> list[PlannedMatch]:
        n = len(spec.bots)
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        return [PlannedMatch(k + 1, pair, dict(spec.options)) for k, pair in enumerate(pairs)]

    def units(self, spec: TourneySettings, planned: list[PlannedMatch]) -> int:
        return len(planned)

    def progress(self, report: Report, match: PlannedMatch, names: list[str]) -> MatchProgress:
        return MatchProgress(report, match, names)

    def points(self, tally: Tally) -> list[float]:
        return [w + 0.5 * d for w, d in zip(tally.wins, tally.draws, strict=True)]

    def standings(
        self, spec: TourneySettings, names: list[str], records: list[MatchRecord]
    ) -> tuple[list[BotStanding], list[Board]]:
        tally = Tally.of(len(names), records)
        points = self.points(tally)
        games_won = [float(w) for w in tally.wins]
        return self.ranked(names, tally, points, games_won, points)

    def ranked(
        self,
        names: list[str],
        tally: Tally,
        points: list[float],
        games_won: list[float],
        main: list[float],
    ) -> tuple[list[BotStanding], list[Board]]:
        """One board ranked by ``main`` (showing ``points``), and the standings in its order."""
        ranks = competition_ranks(main)
        order = sorted(range(len(names)), key=lambda i: (ranks[i], i))
        board = Board(
            name="main",
            description=self.points_label,
            rows=[BoardRow(index=i, name=names[i], rank=ranks[i], value=points[i]) for i in order],
        )
        return standings_in(order, names, ranks, tally, points, games_won), [board]

    def board_cell(self, board: str, value: float, options: Mapping[str, Any], bots: int) -> str:
        """A board's value as the terminal shows it."""
        return number(value)


def standings_in(
    order: list[int],
    names: list[str],
    ranks: list[int],
    tally: Tally,
    points: list[float],
    games_won: list[float],
    per_board_ranks: Mapping[str, list[int]] | None = None,
    board_values: Mapping[str, list[float]] | None = None,
) -> list[BotStanding]:
    return [
        BotStanding(
            index=i,
            name=names[i],
            rank=ranks[i],
            points=points[i],
            games_won=games_won[i],
            played=tally.played[i],
            draws=tally.draws[i],
            losses=tally.losses[i],
            disqualified=tally.disqualified[i],
            score=tally.score[i],
            ranks={name: r[i] for name, r in (per_board_ranks or {}).items()},
            board_values={name: v[i] for name, v in (board_values or {}).items()},
        )
        for i in order
    ]


class RoundRobin(TourneyFormat):
    pass


class FreeForAllSettings(FormatSettings):
    games: int = Field(100, ge=1, le=1_000_000, description="games of every bot at one table")


class FreeForAll(TourneyFormat):
    """``games`` matches of every bot at one table; a game won is a point."""

    description = "N free-for-all games of every bot"
    Settings = FreeForAllSettings
    points_label = "games won"

    def seats(self, bots: int) -> int:
        return bots

    def plan(self, spec: TourneySettings) -> list[PlannedMatch]:
        n, games = len(spec.bots), int(spec.settings["games"])
        return [PlannedMatch(k + 1, tuple(range(n)), dict(spec.options)) for k in range(games)]

    def points(self, tally: Tally) -> list[float]:
        return [float(w) for w in tally.wins]


def number(value: float) -> str:
    return f"{value:g}" if value != int(value) else str(int(value))
