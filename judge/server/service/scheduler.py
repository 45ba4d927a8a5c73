"""The match queue: requests, the dispatcher, running and cancelling matches, live lines.

The scheduler claims queued matches from storage (so a restart loses nothing), runs at most
``concurrency`` at once, commits every result before anyone is told about it, and only then
releases the live stream's result line. ``_play`` is the one place a match is started.

A result the database or the disk refuses (restarting, full) is kept in memory and written
again with backoff for up to a lease; the heartbeat renews only the matches this process
still plays or records, so one it gives up on lapses and is taken back into the queue, by
this process or another, like the match of a server that died.
"""

from __future__ import annotations

import errno
import secrets
import shutil
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

import trio

from games import get_game
from judge import logs
from judge.bots import BotError
from judge.executors import ExecutorError, MatchJob
from judge.models import MatchResult, MatchSpec
from judge.runner import LineSink
from judge.sandbox import SandboxError
from judge.server import ladder as rating
from judge.server.health import disk_full
from judge.server.live import Line, batches_of, lines_of
from judge.server.records import Match, MatchKind, MatchStatus, Seat, User
from judge.server.service.catalog import Catalog
from judge.server.service.common import (
    FINAL,
    PRIORITY,
    BadRequest,
    Context,
    Forbidden,
    NotFound,
    QuotaExceeded,
    game_or_error,
    result_for,
    smoke_opponent,
    validate_options,
)
from judge.server.storage import StorageUnavailable

log = logs.get_logger("judge.server")
DAY = 24 * 3600.0  # the turn budget counts the requests of the last day

T = TypeVar("T")

# Faults of the machine a write may outlast: the database restarting or refusing, a full disk.
TRANSIENT = (StorageUnavailable, OSError)

# Called after a match's end is committed: (match, status, result, error).
Finished = Callable[[Match, MatchStatus, "dict[str, Any] | None", str], Awaitable[None]]


def machine_fault(exc: BaseException) -> BaseException | None:
    """The fault of the machine (sandbox, disk, database) ``exc`` is or a group of them
    wraps, if that is all it holds: worth another attempt, unlike a bug."""
    if isinstance(exc, BaseExceptionGroup):
        faults = [machine_fault(inner) for inner in exc.exceptions]
        return faults[0] if faults and all(f is not None for f in faults) else None
    return exc if isinstance(exc, (SandboxError, ExecutorError, *TRANSIENT)) else None


class Scheduler:
    def __init__(self, ctx: Context, catalog: Catalog) -> None:
        self.ctx = ctx
        self.config = ctx.config
        self.storage = ctx.storage
        self.blobs = ctx.blobs
        self.hub = ctx.hub
        self.catalog = catalog
        self._wake = trio.Event()
        self._slots = trio.Semaphore(max(1, ctx.config.concurrency))
        self.running: set[str] = set()
        self.listeners: list[Finished] = []
        # Running matches of this process: their cancel scopes, who cancelled, when recorded.
        self._cancel_scopes: dict[str, trio.CancelScope] = {}
        self._cancelled_by: dict[str, str] = {}
        self._recorded: dict[str, trio.Event] = {}
        self._nursery: trio.Nursery | None = None

    def wake(self) -> None:
        self._wake.set()

    async def recover(self) -> None:
        """Matches a stopped server left running go back to the queue: all of them when this
        server is alone on its database, else those whose server stopped beating."""
        await self._recover(initial=True)
        if not self.storage.shared:
            for match in await self.storage.list_matches(status="queued", limit=1_000_000):
                self.hub.add(match.id)

    async def _recover(self, *, initial: bool) -> None:
        now = time.time()
        # Alone on its database, a server takes back every running match when it starts;
        # after that (and always on a shared database), those nobody renewed for a lease.
        stale = None if initial and not self.storage.shared else now - self.config.lease
        requeued, failed = await self.storage.recover_interrupted(
            self.config.max_attempts, now, stale_before=stale
        )
        if requeued or failed:
            log.warning("recovered interrupted matches", requeued=requeued, failed=failed)
            self.wake()

    async def _heartbeats(self) -> None:
        """Keep the claims of the matches this process plays alive, act on cancel requests
        made through other processes, and take back matches nobody renews any more (of a
        process that died, or ones this process could not record)."""
        while True:
            await trio.sleep(self.config.lease / 10)
            try:
                for match_id, by in await self.storage.heartbeat(
                    self.ctx.instance, time.time(), list(self.running)
                ):
                    scope = self._cancel_scopes.get(match_id)
                    if scope is not None and not scope.cancel_called:
                        if not by:  # our claim lapsed (we stalled): another server runs it
                            log.warning("lost the claim on a running match", match_id=match_id)
                        self._cancelled_by[match_id] = by or "a lapsed claim"
                        scope.cancel()
                await self._recover(initial=False)
            except Exception as exc:  # storage trouble: try again next beat
                self.ctx.faults.failed("heartbeat", exc)
                log.exception("heartbeat failed")
            else:
                self.ctx.faults.recovered("heartbeat")

    async def _persist(self, what: str, match_id: str, write: Callable[[], Awaitable[T]]) -> T:
        """``write()``, tried again with backoff while the database or the disk refuses it,
        for up to a lease; then the last fault is raised."""
        deadline = trio.current_time() + max(self.config.lease, 5.0)
        delay = 0.25
        while True:
            try:
                value = await write()
            except TRANSIENT as exc:
                self.ctx.faults.failed(what, exc)
                if trio.current_time() + delay > deadline:
                    raise
                log.warning(
                    f"{what} failed; retrying",
                    match_id=match_id,
                    error_type=type(exc).__name__,
                    error=str(exc),
                    retry_in=delay,
                )
                await trio.sleep(delay)
                delay = min(delay * 2, 5.0)
            else:
                self.ctx.faults.recovered(what)
                return value

    # -- queueing -----------------------------------------------------------------
    def new_match(
        self,
        *,
        game: str,
        kind: MatchKind,
        seats: list[Seat],
        options: dict[str, Any],
        requested_by: int | None = None,
        seed: int | None = None,
        fill_builtin: bool = False,
        tournament_id: str | None = None,
        rated: bool = False,
    ) -> Match:
        cls = get_game(game)
        if fill_builtin:
            opponent = smoke_opponent(game)
            while len(seats) < max(2, cls.min_seats):
                seats.append(Seat(builtin=opponent, name=f"builtin:{opponent}"))
        return Match(
            id=uuid.uuid4().hex[:16],
            game=game,
            kind=kind,
            status="queued",
            seats=seats,
            options=options,
            turns=cls.turns_asked(len(seats), cls.Options(**options)),
            # (Drawn: a seed of 63 bits never comes round again, as a repeated one would
            # repeat a match whose secret an earlier replay revealed.)
            seed=seed if seed is not None else secrets.randbits(63),
            created=time.time(),
            requested_by=requested_by,
            tournament_id=tournament_id,
            rated=rated,
        )

    async def enqueue(self, *, held: bool = False, **kw: Any) -> Match:
        """Store a new queued match (see ``new_match`` for the fields) and wake the dispatcher."""
        return await self.store(self.new_match(**kw), held=held)

    async def store(self, match: Match, *, held: bool = False) -> Match:
        """Queue a match made by ``new_match`` and wake the dispatcher."""
        await self.storage.create_match(match, priority=PRIORITY[match.kind], held=held)
        if not self.storage.shared:  # (shared: whichever process runs it fans it out)
            self.hub.add(match.id)
        self.wake()
        return match

    async def check_match_quota(self, user: User, matches: Sequence[Match]) -> None:
        """429 when ``matches`` would take the user past the matches queued at once or
        the turns their requests may ask for in a day (the admin is exempt)."""
        if user.is_admin:
            return
        quotas = self.config.quotas
        now = time.time()
        usage = await self.storage.usage(user.id, since=now, turns_since=now - DAY)
        if usage.queued_matches + len(matches) > quotas.queued_matches:
            raise QuotaExceeded(
                f"quota: you have {usage.queued_matches} matches queued or running and this "
                f"adds {len(matches)}; this server allows {quotas.queued_matches} at once"
            )
        turns = sum(match.turns for match in matches)
        if usage.turns_last_day + turns > quotas.turns_per_day:
            what = "this match asks" if len(matches) == 1 else "these matches ask"
            raise QuotaExceeded(
                f"turn budget: {what} for {turns:,} turns and your requests of the last 24 "
                f"hours for {usage.turns_last_day:,}; this server allows {quotas.turns_per_day:,}"
                " turns a day (each request counts until it is 24 hours old)"
            )

    async def request_match(
        self, user: User, game: str, refs: list[str], options: dict[str, Any], seed: int | None
    ) -> Match:
        game = game_or_error(game)
        cls = get_game(game)
        if not cls.min_seats <= len(refs) <= cls.max_seats:
            raise BadRequest(f"{game} takes {cls.seats_text()} bots, got {len(refs)}")
        options = validate_options(game, options)
        try:
            cls.check_setup(len(refs), cls.Options(**options))
        except ValueError as exc:
            raise BadRequest(str(exc)) from None
        seats = await self.catalog.seats_from_refs(game, refs)
        match = self.new_match(
            game=game, kind="manual", seats=seats, options=options, requested_by=user.id, seed=seed
        )
        await self.check_match_quota(user, [match])
        return await self.store(match)

    # -- reading --------------------------------------------------------------------
    async def match_or_404(self, match_id: str) -> Match:
        match = await self.storage.get_match(match_id)
        if match is None:
            raise NotFound(f"no match {match_id!r}")
        return match

    async def view(self, match: Match, viewer: User | None) -> dict[str, Any]:
        """A match as JSON for ``viewer``: each bot's stderr only for its owner."""
        data = match.model_dump(mode="json")
        data["result"] = result_for(match, viewer, await self.catalog.owners(match))
        return data

    async def list_matches(
        self,
        viewer: User | None,
        *,
        game: str | None,
        bot: str | None,
        status: MatchStatus | None,
        kind: str | None,
        tournament_id: str | None,
        limit: int,
        offset: int,
    ) -> list[dict[str, Any]]:
        bot_id = (await self.catalog.bot_or_404(bot)).id if bot else None
        matches = await self.storage.list_matches(
            game=game,
            bot_id=bot_id,
            status=status,
            kind=kind,
            tournament_id=tournament_id,
            limit=limit,
            offset=offset,
        )
        return [await self.view(m, viewer) for m in matches]

    async def replay(self, match_id: str) -> tuple[Match, AsyncIterator[bytes]]:
        """The replay's complete lines so far (all of it once the match has ended)."""
        match = await self.match_or_404(match_id)
        if match.status in ("queued", "cancelled") or not await self.blobs.has_replay(match.id):
            raise NotFound(f"match {match.id} has no replay ({match.status})")

        async def chunks() -> AsyncIterator[bytes]:
            async for batch in self.blobs.replay_lines(match.id):
                yield "".join(line + "\n" for line in batch).encode()

        return match, chunks()

    def _here(self, match_id: str) -> bool:
        """Whether this process's live fan-out has the match (always, alone on a database)."""
        return not self.storage.shared or match_id in self.running

    async def stream(self, match_id: str, after: int = -1) -> AsyncIterator[Line]:
        if self._here(match_id):
            async for item in lines_of(
                self.hub, match_id, lambda: self.blobs.replay_lines(match_id), after
            ):
                yield item
            return
        async for last, lines in self._follow_file(match_id, after):
            for offset, line in enumerate(lines):
                yield last - len(lines) + 1 + offset, line

    async def stream_batches(
        self, match_id: str, after: int = -1
    ) -> AsyncIterator[tuple[int, list[str]]]:
        if self._here(match_id):
            async for item in batches_of(
                self.hub, match_id, lambda: self.blobs.replay_lines(match_id), after
            ):
                yield item
            return
        async for item in self._follow_file(match_id, after):
            yield item

    async def _follow_file(self, match_id: str, after: int) -> AsyncIterator[tuple[int, list[str]]]:
        """Another server process may run the match: follow its replay file as it grows,
        until the match has ended. (last index, lines) per batch read."""
        sent = after
        while True:
            status = (await self.match_or_404(match_id)).status
            index = -1
            async for batch in self.blobs.replay_lines(match_id):
                fresh = batch[max(0, sent - index) :]
                index += len(batch)
                if fresh:
                    sent = index
                    yield index, fresh
            if status in FINAL:  # read before the file, so the file was complete
                return
            await trio.sleep(0.5)

    # -- cancelling ---------------------------------------------------------------
    async def cancel(self, user: User, match_id: str) -> Match:
        """Cancel a match in any state but ended: queued, playing here or elsewhere, or
        stuck (its result not recorded, its server gone)."""
        match = await self.match_or_404(match_id)
        if match.requested_by != user.id and not user.is_admin:
            raise Forbidden("only whoever requested a match (or the admin) can cancel it")
        if match.status in FINAL:
            raise BadRequest(f"match {match.id} is {match.status} already")
        if match.status == "queued":
            return await self.end_here(match.id, f"cancelled by {user.name}")
        scope = self._cancel_scopes.get(match.id)
        if scope is not None:  # playing here: stop it, its end is recorded as cancelled
            self._cancelled_by[match.id] = user.name
            recorded = self._recorded.setdefault(match.id, trio.Event())
            scope.cancel()
            with trio.move_on_after(30):
                await recorded.wait()
            return await self.match_or_404(match.id)
        stuck = match.id in self.running or match.id in await self.storage.stuck_matches(
            time.time() - self.config.lease
        )
        if not stuck and await self.storage.request_cancel(match.id, user.name):
            # Playing in another server process: it sees the request at its next heartbeat.
            with trio.move_on_after(min(30.0, self.config.lease)):
                while True:  # (another process ends it: no event reaches us)
                    if (await self.match_or_404(match.id)).status != "running":
                        break
                    await trio.sleep(0.2)
        match = await self.match_or_404(match.id)
        if match.status in FINAL:
            return match
        # Nobody is playing it (its result could not be recorded, its server is gone or
        # did not answer): ended here. A late result of it is dropped (finish_match's claim).
        return await self.end_here(match.id, f"cancelled by {user.name} (not playing)")

    async def end_here(self, match_id: str, error: str) -> Match:
        """A match that will not run (any more): cancelled, and its listeners told."""
        done = await self.storage.finish_match(match_id, "cancelled", now=time.time(), error=error)
        assert done is not None
        self.hub.finish(match_id)
        for listener in self.listeners:
            await listener(done, "cancelled", None, error)
        return done

    async def end_unstarted(self, match_id: str, error: str) -> Match:
        """A queued match that will not run: cancelled, and its listeners told."""
        return await self.end_here(match_id, error)

    # -- the dispatcher --------------------------------------------------------------
    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        if self.config.concurrency <= 0:
            # As many as the (open) executor takes: a Dask cluster's slots, twice over.
            self.config.concurrency = self.ctx.executor.in_flight
            self._slots = trio.Semaphore(self.config.concurrency)
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._heartbeats)
            task_status.started()
            while True:
                await self._slots.acquire()
                full = disk_full(self.config.data)
                if full is not None:
                    # A match started now would fail on its first replay line and spend one
                    # of its attempts: wait for space instead.
                    self._slots.release()
                    waiting = OSError(errno.ENOSPC, "waiting for free space in the data directory")
                    self.ctx.faults.failed("starting matches", waiting)
                    await trio.sleep(1)
                    continue
                self.ctx.faults.recovered("starting matches")
                # A fresh event before looking: an enqueue from now on wakes us.
                self._wake = trio.Event()
                try:
                    match = await self.storage.claim_next_match(time.time(), self.ctx.instance)
                except Exception as exc:  # storage trouble (disk full, locked): retry, never die
                    self._slots.release()
                    self.ctx.faults.failed("claiming the next match", exc)
                    log.exception("claiming the next match failed; retrying")
                    await trio.sleep(1)
                    continue
                except BaseException:
                    self._slots.release()
                    raise
                self.ctx.faults.recovered("claiming the next match")
                if match is None:
                    self._slots.release()
                    with trio.move_on_after(5):
                        await self._wake.wait()
                    continue
                # In play from its claim on: the heartbeat renews it.
                self.running.add(match.id)
                nursery.start_soon(self._run_slot, match)

    async def _run_slot(self, match: Match) -> None:
        try:
            await self._execute(match)
        except Exception:  # a judge bug in one match, or a fault that outlasted the retries
            # The row stays running under our claim, which is no longer renewed: it lapses
            # after a lease and the match goes back to the queue (or ends, after its attempts).
            log.exception("match bookkeeping failed", match_id=match.id)
        finally:
            self.running.discard(match.id)
            self._cancel_scopes.pop(match.id, None)
            self._recorded.pop(match.id, trio.Event()).set()
            self._slots.release()

    async def _play(
        self, spec: MatchSpec, sinks: list[LineSink], on_restart: Callable[[], None]
    ) -> MatchResult:
        """The one place a match is started: on the server's executor (judge.executors),
        which may run it in this process, on a local core or on a Dask worker."""
        job = MatchJob(
            spec,
            replay_path=self.blobs.replay_target(spec.match_id),
            sinks=sinks,
            on_restart=on_restart,
        )
        return await self.ctx.executor.run(job)

    async def _execute(self, match: Match) -> None:
        live = self.hub.add(match.id)
        live.reset()
        self.running.add(match.id)
        workdir = self.ctx.work_root / match.id
        status: MatchStatus = "error"
        result: dict[str, Any] | None = None
        error = ""
        # Only faults of the judge's machinery (sandbox, disk) are worth another attempt.
        retry = False
        scope = self._cancel_scopes[match.id] = trio.CancelScope()
        try:
            with scope, logs.bound(match_id=match.id):
                problem = await self.catalog.unusable(match)
                if problem is not None:
                    status, error = "cancelled", problem
                else:
                    bots = [
                        await self.catalog.seat_spec(match.game, seat, workdir / str(i))
                        for i, seat in enumerate(match.seats)
                    ]
                    spec = MatchSpec(
                        game=match.game,
                        bots=bots,
                        seed=match.seed,
                        secret=self.ctx.match_secret(match.seed),
                        options=match.options,
                        turn_deadline=self.config.turn_deadline,
                        startup_allowance=self.config.startup_allowance,
                        match_id=match.id,
                    )
                    await self.blobs.delete_replay(match.id)
                    live.started = True
                    outcome = await self._play(spec, [live.sink], live.restart)
                    result = outcome.model_dump(mode="json")
                    result["replay"] = f"/api/matches/{match.id}/replay"
                    status = "finished"
            if scope.cancelled_caught:
                who = self._cancelled_by.pop(match.id, "the server")
                status, result, error = "cancelled", None, f"cancelled by {who} while running"
        except BotError as exc:  # the bot's own description cannot be run: not retried
            status, error = "error", f"the bot cannot be run: {exc}"
            log.warning("match refused", match_id=match.id, error=str(exc))
        except (SandboxError, OSError, StorageUnavailable) as exc:
            status, error, retry = "error", f"the judge could not run this match: {exc}", True
            log.error(
                "match failed", match_id=match.id, error_type=type(exc).__name__, error=str(exc)
            )
        except ExecutorError as exc:  # the cluster, not the match: run it again later
            status, error, retry = "error", f"the executor could not run this match: {exc}", True
            log.error("executor failed", match_id=match.id, error=str(exc))
        except Exception as exc:
            fault = machine_fault(exc)
            if fault is not None:  # a disk or database fault, met inside a nursery
                status, error, retry = "error", f"the judge could not run this match: {fault}", True
                log.error("match failed", match_id=match.id, error=str(fault))
            else:  # a judge bug must not take the server down
                status, error = "error", f"internal error: {type(exc).__name__}: {exc}"
                log.exception("match crashed", match_id=match.id)
        finally:
            self._cancel_scopes.pop(match.id, None)
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(shutil.rmtree, workdir, True)
        error = self.ctx.scrub(error)
        result = self.ctx.scrub(result)
        with trio.CancelScope(shield=True):
            if retry and match.attempts < self.config.max_attempts:
                delay = self.config.retry_backoff * 2 ** (match.attempts - 1)
                await self._persist(
                    "requeueing a match",
                    match.id,
                    lambda: self.storage.requeue_match(
                        match.id,
                        not_before=time.time() + delay,
                        error=f"attempt {match.attempts} failed, retrying in {delay:g} s: {error}",
                        owner=self.ctx.instance,
                    ),
                )
                self.running.discard(match.id)
                if self._nursery is not None:
                    self._nursery.start_soon(self._wake_after, delay)
                return
            if retry:
                error += f" (gave up after {match.attempts} attempts)"
            await self._record(match, status, result, error)

    async def _wake_after(self, delay: float) -> None:
        await trio.sleep(delay)
        self.wake()

    async def _record(
        self, match: Match, status: MatchStatus, result: dict[str, Any] | None, error: str
    ) -> None:
        """Commit a match's end, then tell the live stream and the listeners."""
        rating_update = None
        if (
            match.kind == "ladder"
            and status == "finished"
            and result is not None
            and rating.rating_relevant(result)
        ):
            final = result
            rating_update = lambda ratings: rating.rate(ratings, final)  # noqa: E731
        done = await self._persist(
            "recording a match",
            match.id,
            lambda: self.storage.finish_match(
                match.id,
                status,
                now=time.time(),
                result=result,
                error=error,
                rating_update=rating_update,
                owner=self.ctx.instance,
            ),
        )
        if done is None:
            # This server stalled past its lease and another one took the match: that one
            # records it (and its replay); what we played is dropped, never recorded twice.
            log.warning("match taken over by another server: our result dropped", match_id=match.id)
            self.running.discard(match.id)
            self.hub.finish(match.id)
            self._recorded.pop(match.id, trio.Event()).set()
            return
        await self._persist(
            "committing a replay", match.id, lambda: self.blobs.commit_replay(match.id)
        )
        self.running.discard(match.id)
        final_line = await self.blobs.last_replay_line(match.id)
        sealed = final_line if final_line and final_line.startswith("#result ") else None
        self.hub.finish(match.id, sealed)
        for listener in self.listeners:
            try:
                await listener(match, status, result, error)
            except Exception:
                log.exception("a finished-match listener failed", match_id=match.id)
        self._recorded.pop(match.id, trio.Event()).set()
