"""The arena: every pair x ``runs`` runs of ``rounds`` rounds, played as arena matches of
every bot (the runs shared out over ``concurrency`` matches); boards Score, Wins, Overall
(Overall = the sum of the two ranks, listed in the Score board's order, as the original's
arena does). Progress counts rounds, every twentieth of a match's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from games.base import competition_ranks, counted
from games.tourney import (
    Board,
    BoardRow,
    BotStanding,
    FormatSettings,
    MatchProgress,
    MatchRecord,
    PlannedMatch,
    Report,
    Tally,
    TourneyFormat,
    TourneySettings,
    standings_in,
)


def rounds_of(match: PlannedMatch) -> int:
    from games.counting.rules import CountingOptions

    return CountingOptions(**match.options).rounds


class RoundCounter(MatchProgress):
    """Reports an arena match's progress every twentieth of its rounds."""

    def __init__(self, report: Report, match: PlannedMatch, names: list[str]) -> None:
        super().__init__(report, match, names)
        self.total = rounds_of(match)
        self.step = max(1, self.total // 20)
        self.turns = 0
        self.reported = 0

    def line(self, line: str) -> None:
        if line.startswith("#"):
            return
        self.turns += 1
        if self.turns - self.reported >= self.step:
            what = f"arena match {self.match.number}: round {self.turns}"
            self.report(self.turns - self.reported, what)
            self.reported = self.turns

    def done(self, record: MatchRecord) -> None:
        self.report(self.total - self.reported, f"arena match {self.match.number} done")


class ArenaSettings(FormatSettings):
    runs: int = Field(10, ge=1, le=1000, description="runs of every pair")


class Arena(TourneyFormat):
    description = "the arena: every pair x runs, three boards (Score, Wins, Overall)"
    Settings = ArenaSettings
    arena = True
    boards_only = True

    def seats(self, bots: int) -> int:
        return bots

    def plan(self, spec: TourneySettings) -> list[PlannedMatch]:
        # Arena matches of every bot (the game plays each pairing-run as its own game), the
        # runs shared out so that ``concurrency`` matches keep the cores busy.
        n = len(spec.bots)
        runs = int(spec.settings["runs"])
        parts = min(spec.concurrency, runs)
        shares = [runs // parts + (k < runs % parts) for k in range(parts)]
        return [
            PlannedMatch(k + 1, tuple(range(n)), {**spec.options, "runs": runs})
            for k, runs in enumerate(shares)
        ]

    def units(self, spec: TourneySettings, planned: list[PlannedMatch]) -> int:
        return sum(rounds_of(match) for match in planned)

    def progress(self, report: Report, match: PlannedMatch, names: list[str]) -> MatchProgress:
        return RoundCounter(report, match, names)

    def standings(
        self, spec: TourneySettings, names: list[str], records: list[MatchRecord]
    ) -> tuple[list[BotStanding], list[Board]]:
        n = len(names)
        tally = Tally.of(n, records)
        # Games (pairing-runs) inside the arena matches: won, drawn, and every one scheduled.
        # A record without details is a two-bot match of one run (tournaments planned before
        # arena matches): its winner won its one game.
        games_won, tally.played, tally.draws = [0.0] * n, [0] * n, [0] * n
        for rec in records:
            runs = int(rec.options.get("runs", 1))
            for seat, bot in enumerate(rec.bots):
                tally.played[bot] += runs * (len(rec.bots) - 1)
                if "pairings_won" in rec.details:
                    games_won[bot] += rec.details["pairings_won"][seat]
                    tally.draws[bot] += int(rec.details["pairings_drawn"][seat])
                elif rec.winner is None:
                    tally.draws[bot] += 1
                else:
                    games_won[bot] += rec.winner == bot
        tally.losses = [
            p - int(w) - d for p, w, d in zip(tally.played, games_won, tally.draws, strict=True)
        ]
        points = tally.score
        boards, per_board_ranks, board_values = counting_boards(
            names, tally.score, games_won, int(spec.settings["runs"])
        )
        order = [row.index for row in boards[2].rows]
        ranks = per_board_ranks["overall"]
        standings = standings_in(
            order, names, ranks, tally, points, games_won, per_board_ranks, board_values
        )
        return standings, boards

    def board_cell(self, board: str, value: float, options: Mapping[str, Any], bots: int) -> str:
        runs = int(options.get("runs", 1))
        if board == "score":
            return f"{value / runs:.0f}"
        if board == "wins":
            return f"{value / runs:.1f}/{bots - 1}"
        return f"{value:.0f} pts"


def counting_boards(
    names: list[str], score: list[float], wins: list[float], runs: int
) -> tuple[list[Board], dict[str, list[int]], dict[str, list[float]]]:
    """The arena's three boards: stable sorts, competition ranks, Overall = sum of two ranks."""
    n = len(names)
    by_score = sorted(range(n), key=lambda i: -score[i])
    by_wins = sorted(range(n), key=lambda i: -wins[i])
    score_ranks = competition_ranks(score)
    wins_ranks = competition_ranks(wins)
    overall = [float(score_ranks[i] + wins_ranks[i]) for i in range(n)]
    by_overall = sorted(by_score, key=lambda i: overall[i])  # stable over the Score board order
    overall_ranks = competition_ranks(overall, higher_is_better=False)

    def rows(order: list[int], ranks: list[int], values: list[float]) -> list[BoardRow]:
        return [BoardRow(index=i, name=names[i], rank=ranks[i], value=values[i]) for i in order]

    boards = [
        Board(
            name="score",
            description=f"points a run (the average of {counted(runs, 'run')})",
            rows=rows(by_score, score_ranks, score),
        ),
        Board(
            name="wins",
            description=(
                f"match wins a run, out of {n - 1} (the average of {counted(runs, 'run')})"
            ),
            rows=rows(by_wins, wins_ranks, wins),
        ),
        Board(
            name="overall",
            description="score rank + wins rank (fewer is better)",
            rows=rows(by_overall, overall_ranks, overall),
        ),
    ]
    ranks = {"score": score_ranks, "wins": wins_ranks, "overall": overall_ranks}
    values = {"score": score, "wins": wins, "overall": overall}
    return boards, ranks, values
