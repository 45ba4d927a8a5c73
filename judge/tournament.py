"""Tournaments in each original's format, as one reusable async API (CLI and server).

| game       | format (the original's)                                                      |
|------------|------------------------------------------------------------------------------|
| rps        | round robin: every pair plays one match of ``turns`` turns                    |
| roshambolo | ONE match of every bot: ``rounds`` tourney rounds x every pair, races to N    |
| liarsdice  | ``games`` free-for-all matches of every bot; a game won is a point            |
| counting   | the arena: every pair x ``runs`` runs of ``rounds`` rounds, in arena matches  |
|            | of every bot (runs shared out over ``concurrency`` matches); boards Score,   |
|            | Wins, Overall                                                                 |

Seeds: match k of a tourney with seed S gets ``match_seed(S, k)``, so the same spec
gives the same matches whatever the concurrency. Ranks use standard competition
ranking (1, 1, 3); the listing order within a tie is the bots' order in the spec
(counting's Overall board: the Score board's order, as the original's arena does).
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from pydantic import BaseModel, Field

from games import get_game
from games.base import competition_ranks
from judge.executors.base import Executor, MatchJob
from judge.executors.inproc import InProcessExecutor
from judge.models import BotSpec, MatchResult, MatchSpec
from judge.sandbox import Sandbox

FORMATS = {
    "rps": "round robin, one match per pair",
    "roshambolo": "one match: rounds x every pair, each game a race to N",
    "liarsdice": "N free-for-all games of every bot",
    "counting": "the arena: every pair x runs, three boards (Score, Wins, Overall)",
}


class TourneySpec(BaseModel):
    """Everything that decides a tourney; the same spec gives the same matches."""

    game: str
    bots: list[BotSpec] = Field(min_length=2)
    seed: int = 0
    options: dict[str, Any] = Field(default_factory=dict, description="game options per match")
    games: int = Field(100, ge=1, le=1_000_000, description="liarsdice: games")
    runs: int = Field(10, ge=1, le=1000, description="counting: runs of every pair")
    turn_deadline: float = Field(1.0, gt=0)
    startup_allowance: float = Field(5.0, ge=0)
    concurrency: int = Field(2, ge=1, le=256, description="matches at once")


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


class TourneyResult(BaseModel):
    game: str
    format: str
    seed: int
    options: dict[str, Any]
    standings: list[BotStanding]
    boards: list[Board]
    matches: list[MatchRecord]
    replays: str | None
    duration_s: float


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    last: str  # a one-line description of what just finished


ProgressCallback = Callable[[Progress], None]


@dataclass(frozen=True)
class PlannedMatch:
    number: int
    bots: tuple[int, ...]
    options: dict[str, Any]


def match_seed(seed: int, number: int) -> int:
    """The seed of match ``number``: independent of scheduling and of the other matches."""
    digest = hashlib.sha256(f"judge-tourney:{seed}:{number}".encode()).digest()
    return int.from_bytes(digest[:7], "big")


def unique_names(bots: list[BotSpec]) -> list[BotSpec]:
    """Repeated names get ``#2``, ``#3``... so every row of a table is one bot."""
    seen: dict[str, int] = {}
    named = []
    for bot in bots:
        seen[bot.name] = seen.get(bot.name, 0) + 1
        count = seen[bot.name]
        named.append(bot if count == 1 else bot.model_copy(update={"name": f"{bot.name}#{count}"}))
    return named


def plan(spec: TourneySpec) -> list[PlannedMatch]:
    n = len(spec.bots)
    options = dict(spec.options)
    if spec.game == "roshambolo":
        return [PlannedMatch(1, tuple(range(n)), options)]
    if spec.game == "liarsdice":
        return [PlannedMatch(k + 1, tuple(range(n)), options) for k in range(spec.games)]
    if spec.game == "counting":
        # Arena matches of every bot (the game plays each pairing-run as its own game), the
        # runs shared out so that ``concurrency`` matches keep the cores busy.
        parts = min(spec.concurrency, spec.runs)
        shares = [spec.runs // parts + (k < spec.runs % parts) for k in range(parts)]
        return [PlannedMatch(k + 1, tuple(range(n)), {**options, "runs": runs})
                for k, runs in enumerate(shares)]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    return [PlannedMatch(k + 1, pair, options) for k, pair in enumerate(pairs)]


def validate(spec: TourneySpec) -> None:
    """Raise ValueError for a spec that cannot run, before any process starts."""
    game = get_game(spec.game)
    if spec.game not in FORMATS:
        raise ValueError(f"no tourney format for {spec.game} (known: {', '.join(FORMATS)})")
    seats = len(spec.bots) if spec.game in ("roshambolo", "liarsdice", "counting") else 2
    if not game.min_seats <= seats <= game.max_seats:
        raise ValueError(f"{spec.game} takes {game.seats_text()} bots per match")
    game.Options(**spec.options)
    for match in plan(spec)[:1]:  # the first match is the largest
        game.check_setup(len(match.bots), game.Options(**match.options))


def replay_name(number: int, names: list[str]) -> str:
    safe = "-".join("".join(c if c.isalnum() or c in "._" else "_" for c in n)[:24] for n in names)
    return f"{number:05d}-{safe[:120]}.replay"


async def run_tourney(
    spec: TourneySpec,
    *,
    sandbox: Sandbox | None = None,
    replays: Path | None = None,
    progress: ProgressCallback | None = None,
    executor: Executor | None = None,
) -> TourneyResult:
    """Play every match of the tourney and rank the bots.

    Matches run on ``executor`` (an open one; its own number at once), else in this process
    with ``sandbox``, at most ``spec.concurrency`` at once.
    """
    if executor is None:
        async with InProcessExecutor(sandbox=sandbox, concurrency=spec.concurrency) as inproc:
            return await run_tourney(spec, replays=replays, progress=progress, executor=inproc)
    validate(spec)
    began = time.monotonic()
    bots = unique_names(spec.bots)
    planned = plan(spec)
    if replays is not None:
        await trio.Path(replays).mkdir(parents=True, exist_ok=True)
    results: dict[int, MatchResult] = {}
    unit_total = roshambolo_games(spec) if spec.game == "roshambolo" else len(planned)
    if spec.game == "counting":
        unit_total = sum(RoundCounter.rounds_of(match) for match in planned)
    done = 0
    # Match ids are the executor's keys: unique to this run, so a cluster shared by several
    # tourneys never mixes them up, and a match rerun after a lost worker is the same match.
    run_id = uuid.uuid4().hex[:10]

    def report(step: int, what: str) -> None:
        nonlocal done
        done += step
        if progress is not None:
            progress(Progress(done, unit_total, what))

    def job_for(match: PlannedMatch) -> MatchJob:
        names = [bots[i].name for i in match.bots]
        match_spec = MatchSpec(
            game=spec.game,
            bots=[bots[i] for i in match.bots],
            seed=match_seed(spec.seed, match.number),
            options=match.options,
            turn_deadline=spec.turn_deadline,
            startup_allowance=spec.startup_allowance,
            match_id=f"{run_id}-{match.number}",
        )
        path = replays / replay_name(match.number, names) if replays is not None else None
        counter: RoundCounter | GameCounter | None = None
        if spec.game == "counting":
            counter = RoundCounter(report, match)
        elif spec.game == "roshambolo":
            counter = GameCounter(report)
        # Arena matches move every bot every turn: batch-scheduled bots do not preempt the
        # judge while it writes a turn's messages, and the judge lets them run once they
        # are all out.
        return MatchJob(match_spec, replay_path=path, sinks=[counter] if counter else [],
                        batch_scheduling=spec.game == "counting", tag=(match, counter))

    def finished(job: MatchJob, result: MatchResult) -> None:
        match: PlannedMatch
        counter: RoundCounter | GameCounter | None
        match, counter = job.tag  # type: ignore[misc]
        if match.number in results:
            return  # already recorded (a match is recorded once, by its id)
        results[match.number] = result
        names = [bots[i].name for i in match.bots]
        if spec.game == "roshambolo":
            report(unit_total - done, f"tourney match done ({result.summary})")
        elif isinstance(counter, RoundCounter):
            report(counter.total - counter.reported, f"arena match {match.number} done")
        else:
            winner = "draw" if result.winner is None else names[result.winner]
            report(1, f"match {match.number}: {' v '.join(names)}: {winner} ({result.summary})")

    report(0, f"{len(planned)} matches to play")
    await executor.run_many([job_for(match) for match in planned], finished)

    records = [record(m, results[m.number]) for m in planned]
    standings, boards = standings_for(spec, bots, records)
    return TourneyResult(
        game=spec.game,
        format=FORMATS[spec.game],
        seed=spec.seed,
        options={**spec.options, **({"games": spec.games} if spec.game == "liarsdice" else {}),
                 **({"runs": spec.runs} if spec.game == "counting" else {})},
        standings=standings,
        boards=boards,
        matches=records,
        replays=str(replays) if replays is not None else None,
        duration_s=round(time.monotonic() - began, 3),
    )


def roshambolo_games(spec: TourneySpec) -> int:
    n = len(spec.bots)
    rounds = int(spec.options.get("rounds", 1))
    return rounds * n * (n - 1) // 2


class GameCounter:
    """A replay sink that reports each finished roshambolo game (the turn lines carry its id)."""

    def __init__(self, report: Callable[[int, str], None]) -> None:
        self.report = report
        self.game = 0

    def __call__(self, line: str) -> None:
        if line.startswith("#"):
            return
        head = line.split(" ", 1)[0]
        if head.isdigit() and int(head) > self.game:
            if self.game:  # a new game id: the previous game is over (the last ends the match)
                self.report(int(head) - self.game, f"game {self.game} done")
            self.game = int(head)


class RoundCounter:
    """A replay sink that reports an arena match's progress every twentieth of its rounds."""

    def __init__(self, report: Callable[[int, str], None], match: PlannedMatch) -> None:
        self.report = report
        self.number = match.number
        self.total = self.rounds_of(match)
        self.step = max(1, self.total // 20)
        self.turns = 0
        self.reported = 0

    @staticmethod
    def rounds_of(match: PlannedMatch) -> int:
        options = get_game("counting").Options(**match.options)
        return int(getattr(options, "rounds", 1))

    def __call__(self, line: str) -> None:
        if line.startswith("#"):
            return
        self.turns += 1
        if self.turns - self.reported >= self.step:
            what = f"arena match {self.number}: round {self.turns}"
            self.report(self.turns - self.reported, what)
            self.reported = self.turns


def record(match: PlannedMatch, result: MatchResult) -> MatchRecord:
    return MatchRecord(
        number=match.number,
        seed=result.seed,
        bots=list(match.bots),
        winner=None if result.winner is None else match.bots[result.winner],
        scores=[p.score for p in result.players],
        outcomes=[p.outcome for p in result.players],
        summary=result.summary,
        details=result.details,
        options=result.options,
        replay=result.replay,
    )


def standings_for(
    spec: TourneySpec, bots: list[BotSpec], records: list[MatchRecord]
) -> tuple[list[BotStanding], list[Board]]:
    n = len(bots)
    played, wins, draws, losses, dqs = [0] * n, [0] * n, [0] * n, [0] * n, [0] * n
    score = [0.0] * n
    for rec in records:
        for seat, bot in enumerate(rec.bots):
            played[bot] += 1
            score[bot] += rec.scores[seat]
            dqs[bot] += rec.outcomes[seat] != "ok"
            if rec.winner is None:
                draws[bot] += 1
            elif rec.winner == bot:
                wins[bot] += 1
            else:
                losses[bot] += 1
    games_won: list[float]
    if spec.game == "roshambolo":
        games_won = list(records[0].scores)  # games won inside the one match
        points = games_won
        each = int(spec.options.get("rounds", 1)) * (n - 1)  # games every bot is scheduled
        played = [each] * n
        draws = [0] * n
        losses = [each - int(g) for g in games_won]
        # A disqualified bot ranks below every other, as in the match itself.
        main = [p - (10**12 if dqs[i] else 0) for i, p in enumerate(points)]
    elif spec.game == "rps":
        games_won = [float(w) for w in wins]
        points = [w + 0.5 * d for w, d in zip(wins, draws, strict=True)]
        main = points
    elif spec.game == "counting":
        # Games (pairing-runs) inside the arena matches: won, drawn, and every one scheduled.
        # A record without details is a two-bot match of one run (tournaments planned before
        # arena matches): its winner won its one game.
        games_won, played, draws = [0.0] * n, [0] * n, [0] * n
        for rec in records:
            runs = int(rec.options.get("runs", 1))
            for seat, bot in enumerate(rec.bots):
                played[bot] += runs * (len(rec.bots) - 1)
                if "pairings_won" in rec.details:
                    games_won[bot] += rec.details["pairings_won"][seat]
                    draws[bot] += int(rec.details["pairings_drawn"][seat])
                elif rec.winner is None:
                    draws[bot] += 1
                else:
                    games_won[bot] += rec.winner == bot
        losses = [p - int(w) - d for p, w, d in zip(played, games_won, draws, strict=True)]
        points = score
        main = points
    else:
        games_won = [float(w) for w in wins]
        points = games_won
        main = points
    boards: list[Board] = []
    per_board_ranks: dict[str, list[int]] = {}
    board_values: dict[str, list[float]] = {}
    if spec.game == "counting":
        boards, per_board_ranks, board_values = counting_boards(bots, score, games_won, spec.runs)
        order = [row.index for row in boards[2].rows]
        ranks = per_board_ranks["overall"]
    else:
        ranks = competition_ranks(main)
        order = sorted(range(n), key=lambda i: (ranks[i], i))
        label = "games won" if spec.game in ("liarsdice", "roshambolo") else "points"
        boards = [Board(name="main", description=label, rows=[
            BoardRow(index=i, name=bots[i].name, rank=ranks[i], value=points[i]) for i in order
        ])]
    standings = [
        BotStanding(
            index=i, name=bots[i].name, rank=ranks[i], points=points[i], games_won=games_won[i],
            played=played[i], draws=draws[i], losses=losses[i], disqualified=dqs[i],
            score=score[i],
            ranks={name: r[i] for name, r in per_board_ranks.items()},
            board_values={name: v[i] for name, v in board_values.items()},
        )
        for i in order
    ]
    return standings, boards


def counting_boards(
    bots: list[BotSpec], score: list[float], wins: list[float], runs: int
) -> tuple[list[Board], dict[str, list[int]], dict[str, list[float]]]:
    """The arena's three boards: stable sorts, competition ranks, Overall = sum of two ranks."""
    n = len(bots)
    by_score = sorted(range(n), key=lambda i: -score[i])
    by_wins = sorted(range(n), key=lambda i: -wins[i])
    score_ranks = competition_ranks(score)
    wins_ranks = competition_ranks(wins)
    overall = [float(score_ranks[i] + wins_ranks[i]) for i in range(n)]
    by_overall = sorted(by_score, key=lambda i: overall[i])  # stable over the Score board order
    overall_ranks = competition_ranks(overall, higher_is_better=False)

    def rows(order: list[int], ranks: list[int], values: list[float]) -> list[BoardRow]:
        return [BoardRow(index=i, name=bots[i].name, rank=ranks[i], value=values[i]) for i in order]

    boards = [
        Board(name="score", description=f"points (shown / {runs} runs)",
              rows=rows(by_score, score_ranks, score)),
        Board(name="wins", description=f"match wins (shown / {runs} runs, out of {n - 1})",
              rows=rows(by_wins, wins_ranks, wins)),
        Board(name="overall", description="score rank + wins rank (fewer is better)",
              rows=rows(by_overall, overall_ranks, overall)),
    ]
    ranks = {"score": score_ranks, "wins": wins_ranks, "overall": overall_ranks}
    values = {"score": score, "wins": wins, "overall": overall}
    return boards, ranks, values
