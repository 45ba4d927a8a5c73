"""The continuous ladder: keeps rated matches queued for every game with listed bots."""

from __future__ import annotations

from typing import Any

import trio

from games import get_game
from judge import logs
from judge.server import ladder as rating
from judge.server.records import Match
from judge.server.service.catalog import seat_of
from judge.server.service.common import Context, game_or_error, validate_options
from judge.server.service.scheduler import Scheduler

log = logs.get_logger("judge.server")


class Ladder:
    def __init__(self, ctx: Context, scheduler: Scheduler) -> None:
        self.ctx = ctx
        self.config = ctx.config
        self.storage = ctx.storage
        self.scheduler = scheduler

    async def run(self) -> None:
        while True:
            try:
                await self.round()
            except Exception:
                log.exception("ladder round failed")
            await trio.sleep(self.config.ladder_interval)

    async def round(self) -> list[Match]:
        """Top up every game's ladder backlog with new pairings."""
        queued: list[Match] = []
        bots = [
            b
            for b in await self.storage.list_bots(listed_only=True)
            if b.enabled and b.latest_version is not None
        ]
        for game in sorted({b.game for b in bots}):
            players = [b for b in bots if b.game == game]
            cls = get_game(game)
            seats = max(2, cls.min_seats)
            backlog = await self.storage.count_matches(kind="ladder", game=game)
            if backlog >= self.config.ladder_backlog:
                continue
            ratings = {(r.bot_id, r.version): r for r in await self.storage.ratings(game)}
            played = await self.storage.ladder_counts(game)
            for _ in range(self.config.ladder_backlog - backlog):
                chosen = rating.pick_pairing(players, ratings, played, seats, self.ctx.rng)
                if chosen is None:
                    break
                match_seats = []
                for bot in chosen:
                    assert bot.latest_version is not None
                    match_seats.append(seat_of(bot, bot.latest_version))
                    key = (bot.id, bot.latest_version)
                    played[key] = played.get(key, 0) + 1
                queued.append(
                    await self.scheduler.enqueue(
                        game=game,
                        kind="ladder",
                        seats=match_seats,
                        options=validate_options(game, {}),
                        rated=True,
                    )
                )
        return queued

    async def leaderboard(self, game: str) -> list[dict[str, Any]]:
        game = game_or_error(game)
        ratings = {(r.bot_id, r.version): r for r in await self.storage.ratings(game)}
        rows: list[dict[str, Any]] = []
        for bot in await self.storage.list_bots(game=game, listed_only=True):
            if bot.latest_version is None:
                continue
            found = ratings.get((bot.id, bot.latest_version))
            rows.append(
                {
                    "bot": bot.name,
                    "bot_id": bot.id,
                    "owner": bot.owner,
                    "version": bot.latest_version,
                    "enabled": bot.enabled,
                    **rating.board_row(found),
                }
            )
        rows.sort(key=lambda r: (-r["score"], r["bot"]))
        for place, row in enumerate(rows, 1):
            row["rank"] = place
        return rows

    async def history(self, *, game: str | None = None, bot_id: int | None = None) -> list[Any]:
        """Ratings after each rated match, oldest first, with μ−3σ (what the ladder ranks by):
        of one bot (every version), or of a game's listed bots."""
        if game is not None:
            game = game_or_error(game)
        points = await self.storage.rating_history(game=game, bot_id=bot_id)
        names = {}
        if game is not None:
            names = {b.id: b.name for b in await self.storage.list_bots(game=game)}
        return [
            {
                **p.model_dump(),
                "score": round(p.mu - 3 * p.sigma, 3),
                **({"bot": names.get(p.bot_id, str(p.bot_id))} if game is not None else {}),
            }
            for p in points
        ]
