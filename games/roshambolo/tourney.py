"""The original's tourney as ONE match of every bot: ``rounds`` tourney rounds x every pair,
each game a race to N, so that every bot observes every round. Progress counts games."""

from __future__ import annotations

from games.tourney import (
    Board,
    BotStanding,
    MatchProgress,
    MatchRecord,
    PlannedMatch,
    Report,
    Tally,
    TourneyFormat,
    TourneySettings,
)


def games_in(spec: TourneySettings) -> int:
    n = len(spec.bots)
    rounds = int(spec.options.get("rounds", 1))
    return rounds * n * (n - 1) // 2


class GameCounter(MatchProgress):
    """Reports each finished game (the turn lines carry its id); the last ends the match."""

    def __init__(self, report: Report, match: PlannedMatch, names: list[str]) -> None:
        super().__init__(report, match, names)
        self.game = 0
        self.reported = 0
        self.same_game = "0 "  # the start of the current game's turn lines

    def line(self, line: str) -> None:
        # Every turn line goes through here: the usual one (the same game) costs one test.
        if line.startswith(self.same_game) or line.startswith("#"):
            return
        head = line.split(" ", 1)[0]
        if head.isdigit() and int(head) > self.game:
            if self.game:  # a new game id: the previous game is over (the last ends the match)
                self.report(int(head) - self.game, f"game {self.game} done")
                self.reported += int(head) - self.game
            self.game = int(head)
            self.same_game = f"{head} "

    def done(self, record: MatchRecord) -> None:
        rounds = int(self.match.options.get("rounds", 1))
        n = len(self.match.bots)
        total = rounds * n * (n - 1) // 2
        self.report(total - self.reported, f"tourney match done ({record.summary})")


class OneMatch(TourneyFormat):
    description = "one match: rounds x every pair, each game a race to N"
    points_label = "games won"
    unit = "games"

    def seats(self, bots: int) -> int:
        return bots

    def plan(self, spec: TourneySettings) -> list[PlannedMatch]:
        return [PlannedMatch(1, tuple(range(len(spec.bots))), dict(spec.options))]

    def units(self, spec: TourneySettings, planned: list[PlannedMatch]) -> int:
        return games_in(spec)

    def progress(self, report: Report, match: PlannedMatch, names: list[str]) -> MatchProgress:
        return GameCounter(report, match, names)

    def standings(
        self, spec: TourneySettings, names: list[str], records: list[MatchRecord]
    ) -> tuple[list[BotStanding], list[Board]]:
        n = len(names)
        tally = Tally.of(n, records)
        games_won = list(records[0].scores)  # games won inside the one match
        each = int(spec.options.get("rounds", 1)) * (n - 1)  # games every bot is scheduled
        tally.played = [each] * n
        tally.draws = [0] * n
        tally.losses = [each - int(g) for g in games_won]
        # A disqualified bot ranks below every other, as in the match itself.
        main = [p - (10**12 if tally.disqualified[i] else 0) for i, p in enumerate(games_won)]
        return self.ranked(names, tally, games_won, games_won, main)
