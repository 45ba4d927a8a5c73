"""Tournaments: planned with judge.tournament, queued whole, standings kept up to date."""

from __future__ import annotations

import secrets
import time
import uuid
from typing import Any

import trio

from judge import logs
from judge.server import tournaments as planning
from judge.server.records import Match, Tournament, User
from judge.server.service.catalog import Catalog
from judge.server.service.common import (
    FINAL,
    PRIORITY,
    BadRequest,
    Context,
    NotFound,
    game_or_error,
    validate_options,
)
from judge.server.service.scheduler import Scheduler
from judge.server.storage import StorageUnavailable

log = logs.get_logger("judge.server")


class Tournaments:
    def __init__(self, ctx: Context, catalog: Catalog, scheduler: Scheduler) -> None:
        self.ctx = ctx
        self.storage = ctx.storage
        self.catalog = catalog
        self.scheduler = scheduler
        self._events: dict[str, trio.Event] = {}
        self._nursery: trio.Nursery | None = None

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Follows every running tournament (those a stopped server left, and new ones)."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            for tournament in await self.storage.list_tournaments(limit=1_000_000):
                if tournament.status == "running":
                    nursery.start_soon(self._follow, tournament.id)
            task_status.started()
            await trio.sleep_forever()

    async def list_all(self, game: str | None) -> list[Tournament]:
        return await self.storage.list_tournaments(game=game)

    async def get(self, tournament_id: str) -> Tournament:
        tournament = await self.storage.get_tournament(tournament_id)
        if tournament is None:
            raise NotFound(f"no tournament {tournament_id!r}")
        return tournament

    async def create(
        self, user: User, game: str, refs: list[str], settings: dict[str, Any]
    ) -> Tournament:
        """Plan a tournament with judge.tournament and queue all its matches at once.

        ``settings`` are TourneySpec fields (options, seed, concurrency, the format's
        ``settings``; or those at the top level, as requests before it sent them).
        """
        game = game_or_error(game)
        if "options" in settings:
            settings = {**settings, "options": validate_options(game, settings["options"])}
        if settings.get("seed") is None:
            settings = {**settings, "seed": secrets.randbits(63)}
        seats = await self.catalog.seats_from_refs(game, refs)
        try:
            spec = planning.tourney_spec(game, seats, settings)
        except planning.TournamentRefused as exc:
            raise BadRequest(str(exc)) from None
        tournament_id = uuid.uuid4().hex[:16]
        matches = []
        planned = []
        for number, indices, options, seed in planning.plan(spec):
            match = self.scheduler.new_match(
                game=game,
                kind="tournament",
                seats=[seats[i] for i in indices],
                options=options,
                requested_by=user.id,
                seed=seed,
                tournament_id=tournament_id,
            )
            matches.append((match, PRIORITY["tournament"]))
            planned.append([number, indices, match.id])
        await self.scheduler.check_match_quota(user, [match for match, _ in matches])
        tournament = Tournament(
            id=tournament_id,
            game=game,
            status="running",
            created=time.time(),
            requested_by=user.id,
            spec={
                "bots": [s.model_dump() for s in seats],
                "settings": settings,
                "format": planning.format_of(game),
                "plan": planned,
            },
        )
        # One transaction: a tournament never exists with only some of its matches.
        await self.storage.create_tournament(tournament, matches)
        if not self.storage.shared:
            for match, _ in matches:
                self.ctx.hub.add(match.id)
        self.scheduler.wake()
        assert self._nursery is not None
        self._nursery.start_soon(self._follow, tournament.id)
        return tournament

    async def match_finished(self, match: Match) -> None:
        event = self._events.get(match.tournament_id or "")
        if event is not None:
            event.set()

    async def _follow(self, tournament_id: str) -> None:
        try:
            while True:
                event = self._events[tournament_id] = trio.Event()
                try:
                    matches = await self.storage.list_matches(
                        tournament_id=tournament_id, limit=1_000_000
                    )
                    tournament = await self.storage.get_tournament(tournament_id)
                    if tournament is None or tournament.status != "running":
                        return
                    table = planning.standings(tournament, matches)
                    done = all(m.status in FINAL for m in matches)
                    await self.storage.update_tournament(
                        tournament_id,
                        standings=table,
                        status="finished" if done else None,
                        finished=time.time() if done else None,
                    )
                except StorageUnavailable as exc:  # the database is away: the same, later
                    log.warning("tournament standings not updated", error=str(exc))
                    await trio.sleep(2)
                    continue
                if done:
                    return
                with trio.move_on_after(10):
                    await event.wait()
        except Exception as exc:  # a bug here must not stop the server
            log.exception("tournament bookkeeping failed", tournament_id=tournament_id)
            with trio.CancelScope(shield=True):
                await self.storage.update_tournament(
                    tournament_id,
                    status="error",
                    error=f"internal error: {exc}",
                    finished=time.time(),
                )
        finally:
            self._events.pop(tournament_id, None)
