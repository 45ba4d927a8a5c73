"""What the server does, independent of HTTP: accounts, uploads, the match queue, the ladder.

The scheduler claims queued matches from storage (so a restart loses nothing), runs at most
``concurrency`` at once, commits every result before anyone is told about it, and only then
releases the live stream's result line.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import random
import re
import secrets
import shlex
import shutil
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import structlog
import trio
from pydantic import ValidationError

from judge.bots import BotError, builtin_bots, builtin_spec, from_python
from judge.games import UnknownGame, get_game
from judge.models import BotSpec, MatchSpec
from judge.runner import run_match
from judge.sandbox import Sandbox, SandboxError
from judge.sandbox.base import SAFE_PATH
from judge.server import ladder
from judge.server.config import ServerConfig
from judge.server.live import Hub, Line, last_line, lines_of
from judge.server.records import Bot, Match, MatchKind, MatchStatus, Seat, Tournament, User, Version
from judge.server.storage import Conflict, Storage
from judge.server.uploads import UploadRefused, check_filename, launch_for, unpack

log = structlog.get_logger("judge.server")

PRIORITY = {"smoke": 30, "manual": 20, "tournament": 10, "ladder": 0}
# Small options that make a smoke match quick; only fields the game has are used.
SMOKE_OPTIONS = {"turns": 20, "rounds": 20, "race_to": 3, "games": 1}
BUILD_OUTPUT = 16384
MESSAGE_STDERR = 2000
FINAL = ("finished", "error", "cancelled")
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


class ServiceError(Exception):
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(ServiceError):
    status = 400


class Unauthorized(ServiceError):
    status = 401


class Forbidden(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Taken(ServiceError):
    status = 409


class QuotaExceeded(ServiceError):
    status = 429


def new_token() -> str:
    return "jt_" + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    # Tokens carry 256 random bits, so a fast hash cannot be brute-forced; no salt needed.
    return hashlib.sha256(token.encode()).hexdigest()


def check_name(name: str, what: str) -> str:
    # fullmatch: re.match with '$' accepts a trailing newline ("alice\n").
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise BadRequest(
            f"{what} {name!r} is not allowed: 1-40 letters, digits, '_', '.', '-', "
            "starting with a letter or digit"
        )
    return name


def game_or_error(game: str) -> str:
    try:
        return get_game(game).name
    except UnknownGame as exc:
        raise BadRequest(str(exc)) from None


def validate_options(game: str, options: dict[str, Any]) -> dict[str, Any]:
    try:
        return get_game(game).Options(**options).model_dump()
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'options'}: {e['msg']}" for e in exc.errors()
        )
        raise BadRequest(f"bad options for {game}: {problems}") from None
    except TypeError as exc:
        raise BadRequest(f"bad options for {game}: {exc}") from None


def smoke_options(game: str) -> dict[str, Any]:
    fields = get_game(game).Options.model_fields
    return validate_options(game, {k: v for k, v in SMOKE_OPTIONS.items() if k in fields})


def _resolve_program(argv: list[str]) -> list[str]:
    if argv and "/" not in argv[0]:
        # On the bot's PATH, as the bot would find it: the server's own PATH may lead to
        # directories the sandbox does not show.
        found = shutil.which(argv[0], path=SAFE_PATH)
        if found:
            argv[0] = found
    return argv


class Service:
    def __init__(
        self, config: ServerConfig, storage: Storage, sandbox: Sandbox | None = None
    ) -> None:
        self.config = config
        self.storage = storage
        if sandbox is None:
            from judge.sandbox.select import default_sandbox

            sandbox = default_sandbox()
        self.sandbox = sandbox
        self.hub = Hub()
        self._wake = trio.Event()
        self._slots = trio.Semaphore(config.concurrency)
        self._rng = random.Random()
        self._tournament_events: dict[str, trio.Event] = {}
        self.running: set[str] = set()
        self.admin_token: str | None = None
        # Builds run here, never in a match slot.
        self._build_limiter = trio.CapacityLimiter(config.build_concurrency)
        self._builds_send, self._builds = trio.open_memory_channel[tuple[int, int]](math.inf)
        # Running matches of this process: their cancel scopes, who cancelled, when recorded.
        self._cancel_scopes: dict[str, trio.CancelScope] = {}
        self._cancelled_by: dict[str, str] = {}
        self._recorded: dict[str, trio.Event] = {}
        data = re.escape(str(config.data))
        self._box_path = re.compile(re.escape(str(config.work_dir)) + r"/[0-9a-f]+/\d+")
        self._data_path = re.compile(data)

    # -- lifecycle -------------------------------------------------------
    async def open(self) -> None:
        """Prepare the data directory and storage; recover what a stopped server left."""
        for directory in (
            self.config.data,
            self.config.bots_dir,
            self.config.replays_dir,
            self.config.uploads_dir,
        ):
            directory.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(self.config.work_dir, ignore_errors=True)
        shutil.rmtree(self.config.uploads_dir, ignore_errors=True)
        self.config.uploads_dir.mkdir()
        self.config.work_dir.mkdir()
        await self.storage.open()
        if await self.storage.count_users() == 0:
            admin = await self.storage.create_user("admin", is_admin=True)
            self.admin_token = new_token()
            await self.storage.add_token(admin.id, hash_token(self.admin_token), "first start")
        requeued, failed = await self.storage.recover_interrupted(
            self.config.max_attempts, time.time()
        )
        if requeued or failed:
            log.warning("recovered interrupted matches", requeued=requeued, failed=failed)
        for match in await self.storage.list_matches(status="queued", limit=1_000_000):
            self.hub.add(match.id)
        # Builds a stopped server left undone: their smoke matches wait for them again.
        for version in await self.storage.unbuilt_versions():
            if version.smoke_match:
                await self.storage.hold_match(version.smoke_match, True)
            self._builds_send.send_nowait((version.bot_id, version.version))

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._dispatch, nursery)
            nursery.start_soon(self._build_loop, nursery)
            if self.config.ladder:
                nursery.start_soon(self._ladder_loop)
            for tournament in await self.storage.list_tournaments(limit=1_000_000):
                if tournament.status == "running":
                    nursery.start_soon(self._follow_tournament, tournament.id)
            self._nursery = nursery
            task_status.started()

    async def close(self) -> None:
        await self.storage.close()

    # -- accounts ----------------------------------------------------------
    async def authenticate(self, token: str | None) -> User | None:
        if not token:
            return None
        return await self.storage.user_for_token(hash_token(token))

    async def create_user(self, actor: User | None, name: str) -> tuple[User, str]:
        if not self.config.open_registration and (actor is None or not actor.is_admin):
            raise Forbidden("only the admin can create accounts on this server")
        check_name(name, "user name")
        try:
            user = await self.storage.create_user(name)
        except Conflict as exc:
            raise Taken(str(exc)) from None
        token = new_token()
        await self.storage.add_token(user.id, hash_token(token), "created with the account")
        return user, token

    async def create_token(self, user: User, label: str) -> tuple[int, str]:
        token = new_token()
        record = await self.storage.add_token(user.id, hash_token(token), label[:100])
        return record.id, token

    # -- bots --------------------------------------------------------------
    async def bot_or_404(self, ref: str) -> Bot:
        bot = await self.storage.get_bot(int(ref)) if ref.isdigit() else None
        if bot is None:
            bot = await self.storage.bot_by_name(ref)
        if bot is None or bot.deleted:
            raise NotFound(f"no bot {ref!r}")
        return bot

    @staticmethod
    def require_owner(user: User, bot: Bot) -> None:
        if bot.owner_id != user.id and not user.is_admin:
            raise Forbidden(
                f"bot {bot.name!r} belongs to {bot.owner}; you can only change your own bots"
            )

    async def check_quotas(
        self, user: User, *, new_bot: bool = False, bot: Bot | None = None, stored: int = 0
    ) -> None:
        """QuotaExceeded (429) when an upload of ``stored`` bytes would pass a limit."""
        if user.is_admin:
            return
        quotas = self.config.quotas
        usage = await self.storage.usage(user.id, since=time.time() - 3600)
        if new_bot and usage.bots >= quotas.bots_per_user:
            raise QuotaExceeded(
                f"quota: you have {usage.bots} bots; this server allows "
                f"{quotas.bots_per_user} bots per user (delete one first)"
            )
        if bot is not None and await self.storage.count_versions(bot.id) >= (
            quotas.versions_per_bot
        ):
            raise QuotaExceeded(
                f"quota: {bot.name} has {quotas.versions_per_bot} versions, the most a bot "
                "may have on this server"
            )
        if usage.uploads_last_hour >= quotas.uploads_per_hour:
            raise QuotaExceeded(
                f"quota: at most {quotas.uploads_per_hour} uploads an hour; try again later"
            )
        if usage.stored_bytes + stored > quotas.stored_bytes:
            raise QuotaExceeded(
                f"quota: your bots would store {usage.stored_bytes + stored} bytes (unpacked); "
                f"this server allows {quotas.stored_bytes} bytes per user"
            )

    async def check_match_quota(self, user: User, adding: int) -> None:
        if user.is_admin:
            return
        limit = self.config.quotas.queued_matches
        usage = await self.storage.usage(user.id, since=time.time())
        if usage.queued_matches + adding > limit:
            raise QuotaExceeded(
                f"quota: you have {usage.queued_matches} matches queued or running and this "
                f"adds {adding}; this server allows {limit} at once"
            )

    def scrub(self, value: Any) -> Any:
        """``value`` with the server's file paths taken out of every string (for public JSON)."""
        if isinstance(value, str):
            return self._data_path.sub("<data>", self._box_path.sub("<box>", value))
        if isinstance(value, dict):
            return {k: self.scrub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.scrub(v) for v in value]
        return value

    async def upload(
        self,
        user: User,
        *,
        upload: Path,
        filename: str,
        size: int,
        bot: Bot | None = None,
        name: str | None = None,
        game: str | None = None,
    ) -> tuple[Bot, Version]:
        """Check an uploaded file, store it as a new version, build it, queue its smoke match."""
        try:
            filename = check_filename(filename)
        except UploadRefused as exc:
            raise BadRequest(str(exc)) from None
        if bot is None:
            assert name is not None and game is not None
            check_name(name, "bot name")
            game = game_or_error(game)
            if not builtin_bots(game):
                raise BadRequest(f"{game} has no built-in bot to check new bots against")
            if await self.storage.bot_by_name(name) is not None:
                raise Taken(f"the bot name {name!r} is taken")
        else:
            self.require_owner(user, bot)
        await self.check_quotas(user, new_bot=bot is None, bot=bot)
        staging = self.config.uploads_dir / uuid.uuid4().hex
        box = staging / "box"
        try:
            digest = await trio.to_thread.run_sync(_sha256, upload)
            await trio.to_thread.run_sync(unpack, upload, filename, box, self.config.limits)
            launch = await trio.to_thread.run_sync(launch_for, box, filename)
            stored = await trio.to_thread.run_sync(tree_bytes, box)
            await self.check_quotas(user, stored=stored)
            if bot is None:
                assert name is not None and game is not None
                try:
                    bot = await self.storage.create_bot(name, user.id, game)
                except Conflict as exc:
                    raise Taken(str(exc)) from None
            version = await self.storage.add_version(
                bot.id,
                filename=filename,
                size=size,
                sha256=digest,
                launch=launch,
                stored_bytes=stored,
            )
            target = self.config.version_dir(bot.id, version.version)
            target.mkdir(parents=True, exist_ok=True)
            box.rename(target / "box")
        except UploadRefused as exc:
            raise BadRequest(str(exc)) from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        needs_build = bool(launch.build)
        smoke = await self.enqueue(
            game=bot.game,
            kind="smoke",
            seats=[self._seat(bot, version.version)],
            options=smoke_options(bot.game),
            requested_by=user.id,
            fill_builtin=True,
            held=needs_build,  # released when the build has succeeded
        )
        await self.storage.set_version_state(
            bot.id, version.version, "checking", smoke_match=smoke.id
        )
        version = version.model_copy(update={"smoke_match": smoke.id})
        if needs_build:
            self._builds_send.send_nowait((bot.id, version.version))
        log.info("bot uploaded", bot=bot.name, version=version.version, smoke=smoke.id)
        return bot, version

    @staticmethod
    def _seat(bot: Bot, version: int) -> Seat:
        return Seat(bot_id=bot.id, version=version, name=f"{bot.name}@{version}")

    async def set_bot(
        self, user: User, bot: Bot, *, enabled: bool | None, deleted: bool | None
    ) -> Bot:
        self.require_owner(user, bot)
        updated = await self.storage.update_bot(bot.id, enabled=enabled, deleted=deleted)
        assert updated is not None
        return updated

    # -- matches -----------------------------------------------------------
    async def seats_from_refs(self, game: str, refs: list[str]) -> list[Seat]:
        """``name``, ``name@version``, ``id`` or ``builtin:name`` -> seats, checked."""
        seats = []
        builtins = builtin_bots(game)
        for ref in refs:
            if not isinstance(ref, str) or not ref:
                raise BadRequest("every bot must be a non-empty string")
            if ref.startswith("builtin:"):
                name = ref.removeprefix("builtin:")
                if name not in builtins:
                    raise BadRequest(
                        f"{game} has no built-in bot {name!r} (have: {', '.join(builtins)})"
                    )
                seats.append(Seat(builtin=name, name=f"builtin:{name}"))
                continue
            bot_ref, _, version_ref = ref.partition("@")
            bot = await self.bot_or_404(bot_ref)
            if not bot.enabled:
                raise BadRequest(f"bot {bot.name!r} is disabled by its owner")
            if bot.game != game:
                raise BadRequest(f"bot {bot.name!r} plays {bot.game}, not {game}")
            if version_ref:
                if not version_ref.isdigit():
                    raise BadRequest(f"bad version in {ref!r}")
                number = int(version_ref)
                found = await self.storage.get_version(bot.id, number)
                if found is None or found.state != "ready":
                    raise BadRequest(f"{bot.name} has no checked version {number}")
            else:
                if bot.latest_version is None:
                    raise BadRequest(f"{bot.name} has no version that passed its check yet")
                number = bot.latest_version
            seats.append(self._seat(bot, number))
        return seats

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
        seats = await self.seats_from_refs(game, refs)
        await self.check_match_quota(user, 1)
        return await self.enqueue(
            game=game, kind="manual", seats=seats, options=options, requested_by=user.id, seed=seed
        )

    def _new_match(
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
            opponent = next(iter(builtin_bots(game)))
            while len(seats) < max(2, cls.min_seats):
                seats.append(Seat(builtin=opponent, name=f"builtin:{opponent}"))
        return Match(
            id=uuid.uuid4().hex[:16],
            game=game,
            kind=kind,
            status="queued",
            seats=seats,
            options=options,
            seed=seed if seed is not None else self._rng.randrange(2**31),
            created=time.time(),
            requested_by=requested_by,
            tournament_id=tournament_id,
            rated=rated,
        )

    async def enqueue(self, *, held: bool = False, **kw: Any) -> Match:
        """Store a new queued match (see ``_new_match`` for the fields) and wake the scheduler."""
        match = self._new_match(**kw)
        await self.storage.create_match(match, priority=PRIORITY[match.kind], held=held)
        self.hub.add(match.id)
        self._wake.set()
        return match

    async def cancel_match(self, user: User, match: Match) -> Match:
        if match.requested_by != user.id and not user.is_admin:
            raise Forbidden("only whoever requested a match (or the admin) can cancel it")
        if match.status == "running":
            scope = self._cancel_scopes.get(match.id)
            if scope is None:
                raise Taken(f"match {match.id} is just starting or ending; try again")
            self._cancelled_by[match.id] = user.name
            recorded = self._recorded.setdefault(match.id, trio.Event())
            scope.cancel()
            with trio.move_on_after(30):
                await recorded.wait()
            return await self.match_or_404(match.id)
        if match.status != "queued":
            raise BadRequest(f"match {match.id} is {match.status} already")
        done = await self.storage.finish_match(
            match.id, "cancelled", now=time.time(), error=f"cancelled by {user.name}"
        )
        self.hub.finish(match.id)
        assert done is not None
        if match.kind == "smoke":
            await self._record_smoke(match, "cancelled", None, f"cancelled by {user.name}")
        return done

    async def match_or_404(self, match_id: str) -> Match:
        match = await self.storage.get_match(match_id)
        if match is None:
            raise NotFound(f"no match {match_id!r}")
        return match

    async def stream(self, match_id: str, after: int = -1) -> AsyncIterator[Line]:
        async for item in lines_of(self.hub, match_id, self.config.replay_path(match_id), after):
            yield item

    # -- the scheduler ---------------------------------------------------
    async def _dispatch(self, nursery: trio.Nursery) -> None:
        while True:
            await self._slots.acquire()
            # A fresh event before looking: an enqueue from now on wakes us.
            self._wake = trio.Event()
            try:
                match = await self.storage.claim_next_match(time.time())
            except Exception:  # storage trouble (disk full, locked): retry, never die
                self._slots.release()
                log.exception("claiming the next match failed; retrying")
                await trio.sleep(1)
                continue
            except BaseException:
                self._slots.release()
                raise
            if match is None:
                self._slots.release()
                with trio.move_on_after(5):
                    await self._wake.wait()
                continue
            nursery.start_soon(self._run_slot, match)

    async def _run_slot(self, match: Match) -> None:
        try:
            await self._execute(match)
        except Exception:  # a judge bug in one match must not stop the server
            log.exception("match bookkeeping failed", match_id=match.id)
        finally:
            self._slots.release()

    async def _execute(self, match: Match) -> None:
        live = self.hub.add(match.id)
        live.reset()
        self.running.add(match.id)
        workdir = self.config.work_dir / match.id
        replay = self.config.replay_path(match.id)
        status: MatchStatus = "error"
        result: dict[str, Any] | None = None
        error = ""
        # Only faults of the judge's machinery (sandbox, disk) are worth another attempt.
        retry = False
        scope = self._cancel_scopes[match.id] = trio.CancelScope()
        try:
            with scope, structlog.contextvars.bound_contextvars(match_id=match.id):
                problem = await self._prepare_versions(match)
                if problem is not None:
                    status, error = "cancelled", problem
                else:
                    bots = [
                        await self._seat_spec(match.game, seat, workdir / str(i))
                        for i, seat in enumerate(match.seats)
                    ]
                    spec = MatchSpec(
                        game=match.game,
                        bots=bots,
                        seed=match.seed,
                        options=match.options,
                        turn_deadline=self.config.turn_deadline,
                        startup_allowance=self.config.startup_allowance,
                        match_id=match.id,
                    )
                    replay.unlink(missing_ok=True)
                    live.started = True
                    outcome = await run_match(
                        spec, sandbox=self.sandbox, replay_path=replay, sinks=[live.sink]
                    )
                    result = outcome.model_dump(mode="json")
                    result["replay"] = f"/api/matches/{match.id}/replay"
                    status = "finished"
            if scope.cancelled_caught:
                who = self._cancelled_by.pop(match.id, "the server")
                status, result, error = "cancelled", None, f"cancelled by {who} while running"
        except BotError as exc:  # the bot's own description cannot be run: not retried
            status, error = "error", f"the bot cannot be run: {exc}"
            log.warning("match refused", match_id=match.id, error=str(exc))
        except (SandboxError, OSError) as exc:
            status, error, retry = "error", f"the judge could not run this match: {exc}", True
            log.error("match failed", match_id=match.id, error=str(exc))
        except Exception as exc:  # a judge bug must not take the server down
            status, error = "error", f"internal error: {type(exc).__name__}: {exc}"
            log.exception("match crashed", match_id=match.id)
        finally:
            self._cancel_scopes.pop(match.id, None)
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(shutil.rmtree, workdir, True)
        error = self.scrub(error)
        result = self.scrub(result)
        with trio.CancelScope(shield=True):
            if retry and match.attempts < self.config.max_attempts:
                delay = self.config.retry_backoff * 2 ** (match.attempts - 1)
                await self.storage.requeue_match(
                    match.id,
                    not_before=time.time() + delay,
                    error=f"attempt {match.attempts} failed, retrying in {delay:g} s: {error}",
                )
                self.running.discard(match.id)
                self._nursery.start_soon(self._wake_after, delay)
                return
            if retry:
                error += f" (gave up after {match.attempts} attempts)"
            await self._record(match, status, result, error, replay)

    async def _wake_after(self, delay: float) -> None:
        await trio.sleep(delay)
        self._wake.set()

    async def _record(
        self,
        match: Match,
        status: MatchStatus,
        result: dict[str, Any] | None,
        error: str,
        replay: Path,
    ) -> None:
        """Commit a match's end, then tell the live stream, the smoke check, the tournament."""
        rating_update = None
        if (
            match.kind == "ladder"
            and status == "finished"
            and result is not None
            and ladder.rating_relevant(result)
        ):
            final = result
            rating_update = lambda ratings: ladder.rate(ratings, final)  # noqa: E731
        await self.storage.finish_match(
            match.id,
            status,
            now=time.time(),
            result=result,
            error=error,
            rating_update=rating_update,
        )
        self.running.discard(match.id)
        final_line = await trio.to_thread.run_sync(last_line, replay)
        sealed = final_line if final_line and final_line.startswith("#result ") else None
        self.hub.finish(match.id, sealed)
        if match.kind == "smoke":
            await self._record_smoke(match, status, result, error)
        self._recorded.pop(match.id, trio.Event()).set()
        event = self._tournament_events.get(match.tournament_id or "")
        if event is not None:
            event.set()

    async def _prepare_versions(self, match: Match) -> str | None:
        """The reason when a seat's version cannot be used (gone, deleted, never built)."""
        for seat in match.seats:
            if seat.bot_id is None or seat.version is None:
                continue
            version = await self.storage.get_version(seat.bot_id, seat.version)
            if version is None:
                return f"{seat.name} does not exist any more"
            box = self.config.version_dir(seat.bot_id, seat.version) / "box"
            if not box.is_dir():
                return f"the files of {seat.name} are gone (deleted)"
            if version.launch.build and not version.built:
                return f"{seat.name} has not been built"
        return None

    # -- builds (their own pool) ---------------------------------------------
    async def _build_loop(self, nursery: trio.Nursery) -> None:
        async for bot_id, number in self._builds:
            nursery.start_soon(self._build_version, bot_id, number)

    async def _build_version(self, bot_id: int, number: int) -> None:
        """Build one uploaded version, then release its smoke match; a failure fails it."""
        async with self._build_limiter:
            version = await self.storage.get_version(bot_id, number)
            if version is None or version.state != "checking" or version.built:
                return
            assert version.launch.build
            box = self.config.version_dir(bot_id, number) / "box"
            try:
                ok, output = await self._build_with_retries(box, version.launch.build)
            except Exception as exc:  # a judge bug: the version fails, the server goes on
                log.exception("build crashed", bot_id=bot_id, version=number)
                ok, output = False, f"internal error: {type(exc).__name__}: {exc}"
            output = self.scrub(output)
            if ok:
                stored = await trio.to_thread.run_sync(tree_bytes, box)
                await self.storage.set_stored_bytes(bot_id, number, stored)
                await self.storage.set_version_state(
                    bot_id, number, "checking", message=version.message, built=True
                )
                if version.smoke_match:
                    await self.storage.hold_match(version.smoke_match, False)
                self._wake.set()
                return
            await self.storage.set_version_state(
                bot_id, number, "failed", message=f"build failed:\n{output}"
            )
            if version.smoke_match:
                await self.storage.finish_match(
                    version.smoke_match, "cancelled", now=time.time(), error="the build failed"
                )
                self.hub.finish(version.smoke_match)

    async def _build_with_retries(self, box: Path, command: str) -> tuple[bool, str]:
        attempts = self.config.max_attempts
        for attempt in range(1, attempts + 1):
            try:
                return await self.build(box, command)
            except (SandboxError, OSError) as exc:
                if attempt == attempts:
                    return False, f"the judge could not run the build ({attempts} attempts): {exc}"
                delay = self.config.retry_backoff * 2 ** (attempt - 1)
                log.warning("build could not run; retrying", error=str(exc), delay=delay)
                await trio.sleep(delay)
        raise AssertionError("unreachable")

    async def build(self, box: Path, command: str) -> tuple[bool, str]:
        """Run a build command in the sandbox under its own time limit; keep what it made.

        The sandbox shows the box read-only, so the build works on a copy in the bot's
        private /tmp and hands the result back as a .tar.gz on stdout; that archive is
        unpacked with the same checks as an upload and replaces the box.
        """
        script = (
            'work=$(mktemp -d) && cp -R . "$work" && cd "$work" && '
            f'{{ {command}\n}} >&2 && tar -czf - . ; status=$?; rm -rf "$work"; exit $status'
        )
        shell = shutil.which("sh", path="/usr/bin:/bin") or "/bin/sh"
        spec = BotSpec(name="build", argv=(shell, "-c", script), cwd=box, box=box)
        proc = await self.sandbox.start(spec, seed=0)  # SandboxError: retried by the caller
        log_bytes = bytearray()
        archive = bytearray()
        too_big = False

        async def collect_log(stream: trio.abc.ReceiveStream | None) -> None:
            if stream is None:
                return
            with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError, OSError):
                while data := await stream.receive_some(65536):
                    if len(log_bytes) < BUILD_OUTPUT:
                        log_bytes.extend(data[: BUILD_OUTPUT - len(log_bytes)])

        async def collect_archive(stream: trio.abc.ReceiveStream | None) -> None:
            nonlocal too_big
            if stream is None:
                return
            with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError, OSError):
                while data := await stream.receive_some(65536):
                    archive.extend(data)
                    if len(archive) > self.config.limits.unpacked_bytes:
                        too_big = True
                        await proc.kill()
                        return

        timed_out = False
        try:
            if proc.process.stdin is not None:
                await proc.process.stdin.aclose()
            with trio.move_on_after(self.config.build_timeout) as scope:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(collect_archive, proc.process.stdout)
                    nursery.start_soon(collect_log, proc.process.stderr)
                    await proc.process.wait()
            timed_out = scope.cancelled_caught
        finally:
            await proc.kill()
        text = log_bytes.decode(errors="replace").strip()
        if timed_out:
            return False, f"the build took longer than {self.config.build_timeout:g} s\n{text}"
        if too_big:
            return False, f"the build made more than {self.config.limits.unpacked_bytes} bytes"
        status = proc.process.returncode
        if status != 0:
            return False, f"the build exited with status {status}\n{text}"
        try:
            await trio.to_thread.run_sync(self._replace_box, box, bytes(archive))
        except UploadRefused as exc:
            return False, f"the build's result was refused: {exc}\n{text}"
        return True, text

    def _replace_box(self, box: Path, archive: bytes) -> None:
        staging = box.parent / "built"
        shutil.rmtree(staging, ignore_errors=True)
        packed = box.parent / "built.tar.gz"
        packed.write_bytes(archive)
        try:
            unpack(packed, "built.tar.gz", staging, self.config.limits)
        finally:
            packed.unlink()
        old = box.parent / "box.before-build"
        shutil.rmtree(old, ignore_errors=True)
        box.rename(old)
        staging.rename(box)
        shutil.rmtree(old, ignore_errors=True)

    async def _seat_spec(self, game: str, seat: Seat, workdir: Path) -> BotSpec:
        if seat.builtin is not None:
            return builtin_spec(game, seat.builtin).model_copy(update={"name": seat.name})
        assert seat.bot_id is not None and seat.version is not None
        version = await self.storage.get_version(seat.bot_id, seat.version)
        assert version is not None
        source = self.config.version_dir(seat.bot_id, seat.version) / "box"
        # Each match gets its own copy: whatever a bot writes never changes the stored version.
        await trio.to_thread.run_sync(lambda: shutil.copytree(source, workdir, symlinks=True))
        launch = version.launch
        if launch.kind == "python":
            # A Python 2 file is translated on first use (~0.3 s): not on the event loop.
            spec = await trio.to_thread.run_sync(from_python, workdir / launch.file, game, None)
            return spec.model_copy(update={"name": seat.name})
        try:
            argv = _resolve_program(shlex.split(launch.run))
        except ValueError as exc:
            raise BotError(f"cannot parse the run command {launch.run!r}: {exc}") from None
        if argv and "/" in argv[0] and not argv[0].startswith("/"):
            # The sandbox finds the program on the host, where the box has this absolute path.
            argv[0] = str(workdir / argv[0])
        return BotSpec(name=seat.name, argv=tuple(argv), cwd=workdir, box=workdir)

    async def _record_smoke(
        self, match: Match, status: str, result: dict[str, Any] | None, error: str
    ) -> None:
        seat = match.seats[0]
        assert seat.bot_id is not None and seat.version is not None
        version = await self.storage.get_version(seat.bot_id, seat.version)
        if version is None or version.state == "failed":
            return  # the build failed and said so already
        if status != "finished" or result is None:
            # Retries of the judge's own faults happened already (bounded, with backoff):
            # whatever ended the check now ends the version, with the reason.
            await self.storage.set_version_state(
                seat.bot_id,
                seat.version,
                "failed",
                message=f"its check could not be completed ({status}): {error}",
            )
            return
        player = result["players"][0]
        if player["outcome"] == "ok":
            await self.storage.set_version_state(
                seat.bot_id,
                seat.version,
                "ready",
                message=f"passed its check against {match.seats[1].name}: "
                f"{result.get('summary', '')}",
                initial_rating=ladder.INITIAL,
            )
            self._wake.set()
        else:
            stderr = self.scrub(player.get("stderr") or "")[-MESSAGE_STDERR:]
            message = f"failed its check: {player['outcome']}: {player.get('reason', '')}"
            if stderr:
                message += f"\nstderr:\n{stderr}"
            await self.storage.set_version_state(
                seat.bot_id, seat.version, "failed", message=message
            )

    # -- the ladder --------------------------------------------------------
    async def _ladder_loop(self) -> None:
        while True:
            try:
                await self.ladder_round()
            except Exception:
                log.exception("ladder round failed")
            await trio.sleep(self.config.ladder_interval)

    async def ladder_round(self) -> list[Match]:
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
                chosen = ladder.pick_pairing(players, ratings, played, seats, self._rng)
                if chosen is None:
                    break
                match_seats = []
                for bot in chosen:
                    assert bot.latest_version is not None
                    match_seats.append(self._seat(bot, bot.latest_version))
                    key = (bot.id, bot.latest_version)
                    played[key] = played.get(key, 0) + 1
                queued.append(
                    await self.enqueue(
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
            rating = ratings.get((bot.id, bot.latest_version))
            mu, sigma = (rating.mu, rating.sigma) if rating else ladder.INITIAL
            rows.append(
                {
                    "bot": bot.name,
                    "bot_id": bot.id,
                    "owner": bot.owner,
                    "version": bot.latest_version,
                    "enabled": bot.enabled,
                    "mu": round(mu, 3),
                    "sigma": round(sigma, 3),
                    "score": round(mu - 3 * sigma, 3),
                    "games": rating.games if rating else 0,
                    "wins": rating.wins if rating else 0,
                    "draws": rating.draws if rating else 0,
                    "losses": rating.losses if rating else 0,
                }
            )
        rows.sort(key=lambda r: (-r["score"], r["bot"]))
        for place, row in enumerate(rows, 1):
            row["rank"] = place
        return rows

    # -- tournaments (scheduled through the same queue) ---------------------
    async def create_tournament(
        self,
        user: User,
        game: str,
        refs: list[str],
        settings: dict[str, Any],
    ) -> Tournament:
        """Plan a tournament with judge.tournament and queue all its matches at once.

        ``settings`` are TourneySpec fields (options, seed, games, runs).
        """
        from judge.server import tournaments

        game = game_or_error(game)
        if "options" in settings:
            settings = {**settings, "options": validate_options(game, settings["options"])}
        if settings.get("seed") is None:
            settings = {**settings, "seed": self._rng.randrange(2**31)}
        seats = await self.seats_from_refs(game, refs)
        try:
            spec = tournaments.tourney_spec(game, seats, settings)
        except tournaments.TournamentRefused as exc:
            raise BadRequest(str(exc)) from None
        tournament_id = uuid.uuid4().hex[:16]
        now = time.time()
        matches = []
        planned = []
        for number, indices, options, seed in tournaments.plan(spec):
            match = self._new_match(
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
        await self.check_match_quota(user, len(matches))
        tournament = Tournament(
            id=tournament_id,
            game=game,
            status="running",
            created=now,
            requested_by=user.id,
            spec={
                "bots": [s.model_dump() for s in seats],
                "settings": settings,
                "format": tournaments.format_of(game),
                "plan": planned,
            },
        )
        # One transaction: a tournament never exists with only some of its matches.
        await self.storage.create_tournament(tournament, matches)
        for match, _ in matches:
            self.hub.add(match.id)
        self._wake.set()
        self._nursery.start_soon(self._follow_tournament, tournament.id)
        return tournament

    async def _follow_tournament(self, tournament_id: str) -> None:
        from judge.server.tournaments import standings

        try:
            while True:
                event = self._tournament_events[tournament_id] = trio.Event()
                matches = await self.storage.list_matches(
                    tournament_id=tournament_id, limit=1_000_000
                )
                tournament = await self.storage.get_tournament(tournament_id)
                if tournament is None or tournament.status != "running":
                    return
                table = standings(tournament, matches)
                done = all(m.status in FINAL for m in matches)
                await self.storage.update_tournament(
                    tournament_id,
                    standings=table,
                    status="finished" if done else None,
                    finished=time.time() if done else None,
                )
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
            self._tournament_events.pop(tournament_id, None)


def tree_bytes(root: Path) -> int:
    """Bytes of every file under ``root`` as stored (links count their own size)."""
    total = 0
    for base, dirs, files in os.walk(root):
        for name in dirs + files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(base, name)).st_size
    return total


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 16):
            digest.update(chunk)
    return digest.hexdigest()


def result_for(match: Match, viewer: User | None, owners: dict[int, int]) -> dict[str, Any] | None:
    """A match result with each bot's stderr shown only to that bot's owner (and the admin)."""
    if match.result is None:
        return None
    result: dict[str, Any] = json.loads(json.dumps(match.result))
    for player, seat in zip(result.get("players", []), match.seats, strict=False):
        owner = owners.get(seat.bot_id) if seat.bot_id is not None else None
        visible = viewer is not None and (
            viewer.is_admin or (owner is not None and owner == viewer.id)
        )
        if not visible:
            player.pop("stderr", None)
    return result
