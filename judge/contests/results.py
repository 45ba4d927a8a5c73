"""The final round's results: each entry's score with a 95 % bootstrap interval, ties at
the top where intervals overlap, and the cross table.

A match gives each seat the share of the other seats it beat (a draw counts half): 1, ½ or
0 between two bots, and the same pairwise share in a match of more. An entry's score is the
mean of its shares over its final-round matches. The interval is a percentile bootstrap over
the final round's matches (whole matches are resampled, BOOTSTRAP_RESAMPLES times), seeded
from the replays' own SHA-256 sums, so anyone holding the replays computes the same numbers.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel

BOOTSTRAP_RESAMPLES = 1000
CONFIDENCE = 0.95
METHOD = (
    f"percentile bootstrap over the final round's matches ({BOOTSTRAP_RESAMPLES} resamples, "
    f"{CONFIDENCE:.0%}), seeded from the SHA-256 sums of the replays"
)


@dataclass(frozen=True)
class FinalMatch:
    """One finished final-round match: who sat where and how they ranked."""

    match_id: str
    names: tuple[str, ...]  # entry names, seat by seat
    ranks: tuple[int, ...]
    replay_sha256: str


class Standing(BaseModel):
    rank: int
    entry: str
    score: float
    low: float
    high: float
    matches: int
    wins: int
    draws: int
    losses: int
    tied: bool = False


class CrossTable(BaseModel):
    names: list[str]
    # points[i][j]: what row i scored against column j (1 a win, ½ a draw); games[i][j]: of how many
    points: list[list[float]]
    games: list[list[int]]


class Results(BaseModel):
    method: str = METHOD
    resamples: int = BOOTSTRAP_RESAMPLES
    seed: str
    matches: int
    standings: list[Standing]
    cross: CrossTable


def shares(ranks: Sequence[int]) -> list[float]:
    """Each seat's share of the other seats it beat (a tie counts half)."""
    n = len(ranks)
    if n < 2:
        return [0.0] * n
    out = []
    for i, mine in enumerate(ranks):
        beaten = sum(
            1.0 if mine < other else 0.5 if mine == other else 0.0
            for j, other in enumerate(ranks)
            if j != i
        )
        out.append(beaten / (n - 1))
    return out


def bootstrap_seed(matches: Sequence[FinalMatch]) -> str:
    """A hex digest of every match's id and replay sum, in id order: the bootstrap's seed."""
    digest = hashlib.sha256(b"judge-contest-bootstrap\n")
    for match in sorted(matches, key=lambda m: m.match_id):
        digest.update(f"{match.match_id} {match.replay_sha256}\n".encode())
    return digest.hexdigest()


def _quantile(sorted_values: list[float], p: float) -> float:
    return sorted_values[round(p * (len(sorted_values) - 1))]


def compute(entries: Sequence[str], matches: Sequence[FinalMatch]) -> Results:
    """Standings (with intervals and ties), the cross table; ``entries`` in a stable order."""
    index = {name: i for i, name in enumerate(entries)}
    n = len(entries)
    ordered = sorted(matches, key=lambda m: m.match_id)
    # Per match: (entry index, share) of each seat.
    contributions: list[list[tuple[int, float]]] = []
    points = [[0.0] * n for _ in range(n)]
    games = [[0] * n for _ in range(n)]
    wins, draws, losses = [0] * n, [0] * n, [0] * n
    for match in ordered:
        seats = [index[name] for name in match.names]
        contributions.append(list(zip(seats, shares(match.ranks), strict=True)))
        best = min(match.ranks)
        winners = sum(1 for r in match.ranks if r == best)
        for seat, entry in enumerate(seats):
            if match.ranks[seat] != best:
                losses[entry] += 1
            elif winners > 1:
                draws[entry] += 1
            else:
                wins[entry] += 1
            for other_seat, other in enumerate(seats):
                if other_seat == seat or other == entry:
                    continue
                mine, theirs = match.ranks[seat], match.ranks[other_seat]
                points[entry][other] += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                games[entry][other] += 1

    def means(weights: Sequence[int]) -> list[float | None]:
        """Each entry's mean share, every match counted ``weights[m]`` times."""
        totals, counts = [0.0] * n, [0] * n
        for seats, weight in zip(contributions, weights, strict=True):
            if weight:
                for entry, share in seats:
                    totals[entry] += share * weight
                    counts[entry] += weight
        return [totals[i] / counts[i] if counts[i] else None for i in range(n)]

    seed = bootstrap_seed(ordered)
    rng = random.Random(int(seed, 16))
    resampled: list[list[float]] = [[] for _ in range(n)]
    indices = range(len(contributions))
    if contributions:
        for _ in range(BOOTSTRAP_RESAMPLES):
            weights = [0] * len(contributions)
            for drawn in rng.choices(indices, k=len(contributions)):
                weights[drawn] += 1
            for i, value in enumerate(means(weights)):
                if value is not None:
                    resampled[i].append(value)
    observed = means([1] * len(contributions))
    tail = (1 - CONFIDENCE) / 2
    rows = []
    for i, name in enumerate(entries):
        values = sorted(resampled[i])
        mean = observed[i]
        score = mean if mean is not None else 0.0
        low = _quantile(values, tail) if values else 0.0
        high = _quantile(values, 1 - tail) if values else 0.0
        played = sum(1 for seats in contributions if any(e == i for e, _ in seats))
        rows.append(
            Standing(
                rank=0,
                entry=name,
                score=round(score, 6),
                low=round(low, 6),
                high=round(high, 6),
                matches=played,
                wins=wins[i],
                draws=draws[i],
                losses=losses[i],
            )
        )
    rows.sort(key=lambda r: (-r.score, index[r.entry]))
    rank_rows(rows)
    return Results(
        seed=seed,
        matches=len(ordered),
        standings=rows,
        cross=CrossTable(names=list(entries), points=points, games=games),
    )


def rank_rows(rows: list[Standing]) -> None:
    """Ranks in place (rows sorted by score): the leader and every entry after it, in order,
    whose interval reaches the leader's share rank 1 and are marked tied (noise cannot order
    them); below them, competition ranks by score (1, 1, 3)."""
    if not rows:
        return
    leader = rows[0]
    top = 1
    while top < len(rows) and rows[top].matches and rows[top].high >= leader.low:
        top += 1
    previous: float | None = None
    place = 0
    for position, row in enumerate(rows, 1):
        if position <= top:
            row.rank, row.tied = 1, top > 1
            continue
        if row.score != previous:
            place, previous = position, row.score
        row.rank = place
