"""Server tournaments: which matches to queue, and the standings from their results.

Two-seat games play a round robin (every pairing ``rounds`` times, seats alternating);
games for more seats play ``rounds`` free-for-all tables of every bot. Standings rank by
wins, then total score, with competition ranking (1, 1, 3) for exact ties.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from judge.games import get_game
from judge.games.base import competition_ranks
from judge.server.records import Match, Tournament
from judge.server.service import BadRequest, game_or_error

Plan = Callable[[int], list[list[int]]]


def planner(game: str, bots: int, rounds: int) -> tuple[Plan, dict[str, Any]]:
    game = game_or_error(game)
    cls = get_game(game)
    if cls.max_seats == 2:

        def round_robin(n: int) -> list[list[int]]:
            tables = []
            for r in range(rounds):
                for a, b in itertools.combinations(range(n), 2):
                    tables.append([a, b] if r % 2 == 0 else [b, a])
            return tables

        return round_robin, {"format": "round robin", "rounds": rounds}
    if not cls.min_seats <= bots <= cls.max_seats:
        raise BadRequest(f"{game} tables take {cls.min_seats}..{cls.max_seats} bots, got {bots}")

    def free_for_all(n: int) -> list[list[int]]:
        # Rotate the seat order so that no bot always opens.
        return [[(i + r) % n for i in range(n)] for r in range(rounds)]

    return free_for_all, {"format": "free for all", "rounds": rounds}


def standings(tournament: Tournament, matches: list[Match]) -> dict[str, Any]:
    names = [bot["name"] for bot in tournament.spec["bots"]]
    rows = {
        name: {
            "bot": name,
            "played": 0,
            "wins": 0,
            "draws": 0,
            "losses": 0,
            "score": 0.0,
            "failures": 0,
        }
        for name in names
    }
    finished = 0
    for match in matches:
        if match.status != "finished" or match.result is None:
            continue
        finished += 1
        winner = match.result.get("winner")
        for player in match.result["players"]:
            row = rows.get(match.seats[player["seat"]].name)
            if row is None:
                continue
            row["played"] += 1
            row["score"] += float(player["score"])
            if player["outcome"] != "ok":
                row["failures"] += 1
            if winner == player["seat"]:
                row["wins"] += 1
            elif winner is None and player["rank"] == 1:
                row["draws"] += 1
            else:
                row["losses"] += 1
    table = sorted(rows.values(), key=lambda r: (-r["wins"], -r["score"], r["bot"]))
    keys = [r["wins"] * 1e9 + r["score"] for r in table]
    for row, rank in zip(table, competition_ranks(keys), strict=True):
        row["rank"] = rank
    return {
        "matches": len(matches),
        "finished": finished,
        "failed": sum(1 for m in matches if m.status in ("error", "cancelled")),
        "table": table,
    }
