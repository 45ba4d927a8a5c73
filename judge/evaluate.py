"""``evaluate``: many matches of one pairing, as kaggle-environments' ``evaluate`` does.

Episode ``i`` puts A in seat ``i % 2`` (seats alternate, so neither bot keeps the first
move) with its own seed derived from the evaluation's seed; every episode runs through an
executor (judge.executors), so they play in parallel. The summary counts A's wins, draws and
losses (a win is a better rank than B's), the win rate with its 95 % Wilson score interval,
each bot's mean score, disqualifications and pooled response times.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio
from pydantic import BaseModel, Field

from judge.executors import Executor, MatchJob
from judge.models import BotSpec, MatchResult, MatchSpec, ResponseStats
from judge.tournament import match_seed

Z95 = 1.959963984540054


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion: sensible at 0, 1 and small ``trials``."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


class BotFigures(BaseModel):
    name: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    win_rate: float = 0.0
    win_rate_ci95: tuple[float, float] = (0.0, 1.0)
    mean_score: float = 0.0
    disqualified: dict[str, int] = Field(
        default_factory=dict, description="outcome code -> episodes it ended this bot's play"
    )
    response: ResponseStats = Field(default_factory=ResponseStats)


class Episode(BaseModel):
    number: int
    seed: int
    seat_of_a: int
    scores: tuple[float, float] = Field(description="A's score, B's score")
    outcome: str = Field(description="win, draw or loss, for A")
    turns: int
    replay: str | None = None


class Evaluation(BaseModel):
    game: str
    seed: int
    options: dict[str, Any]
    episodes: int
    a: BotFigures
    b: BotFigures
    matches: list[Episode]
    duration_s: float = 0.0


def plan(
    game: str,
    a: BotSpec,
    b: BotSpec,
    episodes: int,
    seed: int,
    options: dict[str, Any],
    *,
    deadline: float = 1.0,
    startup: float = 5.0,
    replays: Path | None = None,
) -> list[MatchJob]:
    jobs = []
    for number in range(episodes):
        seat_of_a = number % 2
        bots = [a, b] if seat_of_a == 0 else [b, a]
        spec = MatchSpec(
            game=game,
            bots=bots,
            seed=match_seed(seed, number),
            options=options,
            turn_deadline=deadline,
            startup_allowance=startup,
        )
        path = replays / f"{number + 1:04d}.replay" if replays is not None else None
        jobs.append(MatchJob(spec=spec, replay_path=path, tag=(number, seat_of_a)))
    return jobs


def summarise(
    game: str,
    seed: int,
    options: dict[str, Any],
    names: tuple[str, str],
    finished: list[tuple[int, int, MatchResult]],
    duration_s: float = 0.0,
) -> Evaluation:
    """``finished``: (episode number, A's seat, result) in any order."""
    figures = [BotFigures(name=names[0]), BotFigures(name=names[1])]
    responses: list[list[ResponseStats]] = [[], []]
    scores: list[list[float]] = [[], []]
    episodes = []
    for number, seat_of_a, result in sorted(finished, key=lambda item: item[0]):
        players = (result.players[seat_of_a], result.players[1 - seat_of_a])
        a_rank, b_rank = players[0].rank, players[1].rank
        outcome = "win" if a_rank < b_rank else "loss" if a_rank > b_rank else "draw"
        for i, player in enumerate(players):
            scores[i].append(player.score)
            responses[i].append(player.response)
            if player.outcome != "ok":
                figures[i].disqualified[player.outcome] = (
                    figures[i].disqualified.get(player.outcome, 0) + 1
                )
        episodes.append(
            Episode(
                number=number + 1,
                seed=result.seed,
                seat_of_a=seat_of_a,
                scores=(players[0].score, players[1].score),
                outcome=outcome,
                turns=result.turns,
                replay=result.replay,
            )
        )
    n = len(episodes)
    wins = sum(e.outcome == "win" for e in episodes)
    losses = sum(e.outcome == "loss" for e in episodes)
    draws = n - wins - losses
    for i, (won, lost) in enumerate(((wins, losses), (losses, wins))):
        f = figures[i]
        f.wins, f.losses, f.draws = won, lost, draws
        f.win_rate = round(won / n, 4) if n else 0.0
        low, high = wilson_interval(won, n)
        f.win_rate_ci95 = (round(low, 4), round(high, 4))
        f.mean_score = round(sum(scores[i]) / n, 4) if n else 0.0
        f.response = ResponseStats.pooled(responses[i])
    return Evaluation(
        game=game,
        seed=seed,
        options=options,
        episodes=n,
        a=figures[0],
        b=figures[1],
        matches=episodes,
        duration_s=round(duration_s, 3),
    )


async def evaluate(
    game: str,
    a: BotSpec,
    b: BotSpec,
    *,
    episodes: int,
    seed: int,
    options: dict[str, Any],
    executor: Executor,
    deadline: float = 1.0,
    startup: float = 5.0,
    replays: Path | None = None,
    concurrency: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Evaluation:
    """Play ``episodes`` matches of A against B through ``executor`` and summarise them."""
    import time

    started = time.monotonic()
    if replays is not None:
        await trio.Path(replays).mkdir(parents=True, exist_ok=True)
    jobs = plan(
        game, a, b, episodes, seed, options, deadline=deadline, startup=startup, replays=replays
    )
    finished: list[tuple[int, int, MatchResult]] = []

    def done(job: MatchJob, result: MatchResult) -> None:
        assert isinstance(job.tag, tuple)
        number, seat_of_a = job.tag
        finished.append((int(number), int(seat_of_a), result))
        if progress is not None:
            progress(len(finished), episodes)

    await executor.run_many(jobs, done, concurrency=concurrency)
    return summarise(game, seed, options, (a.name, b.name), finished, time.monotonic() - started)
