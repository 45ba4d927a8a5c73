"""Ladder ratings (OpenSkill, Plackett-Luce) and matchmaking.

Leaderboards sort by the ordinal μ−3σ: a bot ranks high only once the ladder is sure of it.
Matchmaking: the bot version with the fewest ladder matches plays next (so every bot plays
at the same rate, and a new version catches up quickly while its σ is large); its opponents
are drawn from the versions nearest to it by μ, preferring those that have played less.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from openskill.models import PlackettLuce

from judge.server.records import Bot, Rating

MODEL = PlackettLuce()
INITIAL = (MODEL.mu, MODEL.sigma)
NEAREST = 3


def board_row(found: Rating | None) -> dict[str, Any]:
    """A leaderboard row's rating columns for a version (its ``Rating``, or none yet)."""
    mu, sigma = (found.mu, found.sigma) if found else INITIAL
    return {
        "mu": round(mu, 3),
        "sigma": round(sigma, 3),
        "score": round(mu - 3 * sigma, 3),
        "games": found.games if found else 0,
        "wins": found.wins if found else 0,
        "draws": found.draws if found else 0,
        "losses": found.losses if found else 0,
    }


def rate(ratings: list[Rating], result: dict[str, Any]) -> list[Rating]:
    """New ratings for the seats of a finished match (in seat order)."""
    players = sorted(result["players"], key=lambda p: p["seat"])
    ranks = [int(p["rank"]) for p in players]
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    rated = MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    winner = result.get("winner")
    updated = []
    for seat, (old, team) in enumerate(zip(ratings, rated, strict=True)):
        new = old.model_copy(
            update={"mu": team[0].mu, "sigma": team[0].sigma, "games": old.games + 1}
        )
        if winner == seat:
            new.wins += 1
        elif winner is None and ranks[seat] == 1:
            new.draws += 1
        else:
            new.losses += 1
        updated.append(new)
    return updated


def rating_relevant(result: dict[str, Any]) -> bool:
    """A seat that could not even start points at the judge (sandbox, machine), not the bot."""
    return all(p["outcome"] != "start_failed" for p in result["players"])


def pick_pairing(
    bots: Sequence[Bot],
    ratings: dict[tuple[int, int], Rating],
    played: dict[tuple[int, int], int],
    seats: int,
    rng: random.Random,
) -> list[Bot] | None:
    """The bots of the next ladder match in seat order, or None with too few bots."""
    if len(bots) < seats:
        return None

    def key(bot: Bot) -> tuple[int, int]:
        assert bot.latest_version is not None
        return (bot.id, bot.latest_version)

    def mu(bot: Bot) -> float:
        rating = ratings.get(key(bot))
        return rating.mu if rating else INITIAL[0]

    fewest = min(played.get(key(b), 0) for b in bots)
    first = rng.choice([b for b in bots if played.get(key(b), 0) == fewest])
    chosen = [first]
    while len(chosen) < seats:
        rest = [b for b in bots if b not in chosen]
        rest.sort(key=lambda b: (abs(mu(b) - mu(first)), played.get(key(b), 0), b.id))
        near = rest[:NEAREST]
        weights = [1.0 / (1 + played.get(key(b), 0)) for b in near]
        chosen.append(rng.choices(near, weights=weights)[0])
    rng.shuffle(chosen)  # no seat advantage for the bot that was picked first
    return chosen
