"""Bots and their versions: uploads (checked, within quotas), builds (their own pool),
smoke checks, and how a stored version starts in a match."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import math
import shlex
import shutil
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from games import all_games
from judge import logs
from judge.analysis import SourceAnalysis, analyse
from judge.bots import BotError, builtin_bots, builtin_spec, from_python
from judge.models import BotSpec
from judge.sandbox import Sandbox, SandboxError
from judge.sandbox.base import SAFE_PATH
from judge.server import ladder as rating
from judge.server.blobs import tree_key
from judge.server.records import Bot, Launch, Match, MatchStatus, Seat, User, Version
from judge.server.service.common import (
    BadRequest,
    Context,
    Forbidden,
    NotFound,
    QuotaExceeded,
    Taken,
    check_name,
    game_or_error,
    smoke_options,
)
from judge.server.storage import Conflict
from judge.server.uploads import UploadRefused, check_filename, launch_for, unpack

if TYPE_CHECKING:
    from judge.server.service.scheduler import Scheduler

log = logs.get_logger("judge.server")

BUILD_OUTPUT = 16384
# Uploads' source analyses running at once (each bounded by config.source).
ANALYSES_AT_ONCE = 2
MESSAGE_STDERR = 2000
# The account that owns every game's built-in bots on a server's ladders.
BUILTIN_USER = "builtin"


def seat_of(bot: Bot, version: int) -> Seat:
    return Seat(bot_id=bot.id, version=version, name=f"{bot.name}@{version}")


class Catalog:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.config = ctx.config
        self.storage = ctx.storage
        self.blobs = ctx.blobs
        self.scheduler: Scheduler  # wired by Service
        self._build_limiter = trio.CapacityLimiter(ctx.config.build_concurrency)
        self._analysis_limiter = trio.CapacityLimiter(ANALYSES_AT_ONCE)
        self._builds_send, self._builds = trio.open_memory_channel[tuple[int, int]](math.inf)

    async def recover(self) -> None:
        """Builds a stopped server left undone: their smoke matches wait for them again."""
        for version in await self.storage.unbuilt_versions():
            if version.smoke_match:
                await self.storage.hold_match(version.smoke_match, True)
            self._builds_send.send_nowait((version.bot_id, version.version))

    async def run_builds(self) -> None:
        async with trio.open_nursery() as nursery:
            async for bot_id, number in self._builds:
                nursery.start_soon(self._build_guarded, bot_id, number)

    async def _build_guarded(self, bot_id: int, number: int) -> None:
        try:
            await self._build_version(bot_id, number)
        except Exception:  # the database or disk failed around the build: the server goes on
            # (the version stays checking; its build runs again on the next start)
            log.exception("build bookkeeping failed", bot_id=bot_id, version=number)

    # -- reading -----------------------------------------------------------------
    async def bot_or_404(self, ref: str) -> Bot:
        bot = await self.storage.get_bot(int(ref)) if ref.isdigit() else None
        if bot is None:
            bot = await self.storage.bot_by_name(ref)
        if bot is None or bot.deleted:
            raise NotFound(f"no bot {ref!r}")
        return bot

    async def list_bots(self, game: str | None, owner_id: int | None) -> list[Bot]:
        bots = await self.storage.list_bots(game=game, owner_id=owner_id)
        return [bot.model_copy(update={"status": await self.status_of(bot)}) for bot in bots]

    async def status_of(self, bot: Bot) -> str:
        """Listed, or else what its newest version is doing (a failed one says failed)."""
        if bot.latest_version is not None:
            return "listed"
        versions = await self.storage.list_versions(bot.id)
        if not versions:
            return "no version"
        newest = max(versions, key=lambda v: v.version)
        return "checking" if newest.state == "checking" else "failed"

    @staticmethod
    def may_see_messages(viewer: User | None, bot: Bot) -> bool:
        return viewer is not None and (viewer.id == bot.owner_id or viewer.is_admin)

    async def bot_detail(self, ref: str, viewer: User | None) -> tuple[Bot, list[Version]]:
        bot = await self.bot_or_404(ref)
        versions = await self.storage.list_versions(bot.id)
        if not self.may_see_messages(viewer, bot):
            # check messages carry the bot's stderr: its owner's business only
            versions = [
                v.model_copy(update={"message": ""}) if v.state == "failed" else v for v in versions
            ]
        return bot, versions

    async def version_detail(self, ref: str, raw: str, viewer: User | None) -> Version:
        bot = await self.bot_or_404(ref)
        version = await self.storage.get_version(bot.id, int(raw)) if raw.isdigit() else None
        if version is None:
            raise NotFound(f"{bot.name} has no version {raw}")
        if version.state == "failed" and not self.may_see_messages(viewer, bot):
            version = version.model_copy(update={"message": ""})
        return version

    async def owners(self, match: Match) -> dict[int, int]:
        owners = {}
        for seat in match.seats:
            if seat.bot_id is not None and seat.bot_id not in owners:
                bot = await self.storage.get_bot(seat.bot_id)
                if bot is not None:
                    owners[seat.bot_id] = bot.owner_id
        return owners

    # -- changing ----------------------------------------------------------------
    @staticmethod
    def require_owner(user: User, bot: Bot) -> None:
        if bot.owner_id != user.id and not user.is_admin:
            raise Forbidden(
                f"bot {bot.name!r} belongs to {bot.owner}; you can only change your own bots"
            )

    async def set_enabled(self, user: User, ref: str, enabled: bool) -> Bot:
        bot = await self.bot_or_404(ref)
        self.require_owner(user, bot)
        updated = await self.storage.update_bot(bot.id, enabled=enabled)
        assert updated is not None
        return updated

    async def delete_bot(self, user: User, ref: str) -> Bot:
        bot = await self.bot_or_404(ref)
        self.require_owner(user, bot)
        updated = await self.storage.update_bot(bot.id, enabled=False, deleted=True)
        assert updated is not None
        await self.blobs.delete_trees(f"bots/{bot.id}")
        return updated

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

    async def upload(
        self,
        user: User,
        *,
        upload: Path,
        filename: str,
        size: int,
        bot_ref: str | None = None,
        name: str | None = None,
        game: str | None = None,
    ) -> tuple[Bot, Version]:
        """Check an uploaded file, store it as a new version, build it, queue its smoke match.

        ``bot_ref`` names an existing bot (a new version); otherwise ``name`` and ``game``
        make a new bot."""
        bot = await self.bot_or_404(bot_ref) if bot_ref is not None else None
        if bot is not None:
            self.require_owner(user, bot)
        try:
            filename = check_filename(filename)
        except UploadRefused as exc:
            raise BadRequest(str(exc)) from None
        if bot is None:
            name, game = name or "", game or ""
            check_name(name, "bot name")
            game = game_or_error(game)
            if not builtin_bots(game):
                raise BadRequest(f"{game} has no built-in bot to check new bots against")
            if await self.storage.bot_by_name(name) is not None:
                raise Taken(f"the bot name {name!r} is taken")
        await self.check_quotas(user, new_bot=bot is None, bot=bot)
        bot_game = bot.game if bot is not None else game
        assert bot_game is not None
        staging = self.config.uploads_dir / uuid.uuid4().hex
        box = staging / "box"
        try:
            digest = await trio.to_thread.run_sync(_sha256, upload)
            await trio.to_thread.run_sync(unpack, upload, filename, box, self.config.limits)
            launch = await trio.to_thread.run_sync(launch_for, box, filename)
            if launch.kind == "python":
                analysis = await self.analyse(box / filename, bot_game)
                launch = launch.model_copy(update={"analysis": analysis})
            from judge.server.blobs import tree_bytes

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
            await self.blobs.put_tree(tree_key(bot.id, version.version), box)
        except (UploadRefused, BotError) as exc:
            raise BadRequest(str(exc)) from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        needs_build = bool(launch.build)
        smoke = await self.scheduler.enqueue(
            game=bot.game,
            kind="smoke",
            seats=[seat_of(bot, version.version)],
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

    async def analyse(self, path: Path, game: str) -> SourceAnalysis:
        """What a .py file is (judge/analysis.py): a bounded child in a thread, a few at
        once, so neither the event loop nor the server's memory pays for the source."""
        limits = self.config.source
        analysed = await trio.to_thread.run_sync(
            functools.partial(analyse, path, game, None, limits), limiter=self._analysis_limiter
        )
        return analysed.analysis

    # -- seats of matches ------------------------------------------------------------
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
            seats.append(seat_of(bot, number))
        return seats

    async def unusable(self, match: Match) -> str | None:
        """The reason when a seat's version cannot be used (gone, deleted, never built)."""
        for seat in match.seats:
            if seat.bot_id is None or seat.version is None:
                continue
            version = await self.storage.get_version(seat.bot_id, seat.version)
            if version is None:
                return f"{seat.name} does not exist any more"
            if version.launch.kind == "builtin":
                continue  # no files: the game's own code
            if not await self.blobs.has_tree(tree_key(seat.bot_id, seat.version)):
                return f"the files of {seat.name} are gone (deleted)"
            if version.launch.build and not version.built:
                return f"{seat.name} has not been built"
        return None

    async def seat_spec(self, game: str, seat: Seat, workdir: Path) -> BotSpec:
        """How a seat starts, on a private copy of its files in ``workdir``."""
        if seat.builtin is not None:
            return builtin_spec(game, seat.builtin).model_copy(update={"name": seat.name})
        assert seat.bot_id is not None and seat.version is not None
        version = await self.storage.get_version(seat.bot_id, seat.version)
        assert version is not None
        launch = version.launch
        if launch.kind == "builtin":
            return builtin_spec(game, launch.run).model_copy(update={"name": seat.name})
        # Each match gets its own copy: whatever a bot writes never changes the stored version.
        await self.blobs.checkout_tree(tree_key(seat.bot_id, seat.version), workdir)
        if launch.kind == "python":
            # Decided at its upload: a Python 3 file is not read again. A Python 2 file's
            # translation, or a version stored before analyses were, comes from the cache of
            # analyses (else its bounded child), in a thread: never on the event loop.
            start = functools.partial(
                from_python,
                workdir / launch.file,
                game,
                None,
                self.config.bot_python,
                analysis=launch.analysis,
                limits=self.config.source,
            )
            spec = await trio.to_thread.run_sync(start)
            return spec.model_copy(update={"name": seat.name})
        try:
            argv = _resolve_program(shlex.split(launch.run))
        except ValueError as exc:
            raise BotError(f"cannot parse the run command {launch.run!r}: {exc}") from None
        if argv and "/" in argv[0] and not argv[0].startswith("/"):
            # The sandbox finds the program on the host, where the box has this absolute path.
            argv[0] = str(workdir / argv[0])
        return BotSpec(name=seat.name, argv=tuple(argv), cwd=workdir, box=workdir)

    async def ensure_builtin_bots(self) -> list[str]:
        """Every game's built-in bots as listed, rated bots of the user ``builtin``, so a new
        server's ladders have matches and ratings at once. Only those missing are added (a
        new game's, or all on a new database); one an admin deleted stays deleted."""
        owner = await self._builtin_user()
        added = []
        for game in sorted(all_games()):
            for name in builtin_bots(game):
                bot_name = f"{game}-{name}"
                if await self.storage.bot_by_name(bot_name) is not None:
                    continue
                try:
                    bot = await self.storage.create_bot(bot_name, owner.id, game)
                except Conflict:
                    continue
                version = await self.storage.add_version(
                    bot.id,
                    filename="(built-in)",
                    size=0,
                    sha256="",
                    launch=Launch(kind="builtin", run=name),
                )
                await self.storage.set_version_state(
                    bot.id,
                    version.version,
                    "ready",
                    message=f"{game}'s built-in bot {name!r}",
                    initial_rating=rating.INITIAL,
                )
                added.append(bot_name)
        return added

    async def _builtin_user(self) -> User:
        for user in await self.storage.list_users():
            if user.name == BUILTIN_USER:
                return user
        try:
            return await self.storage.create_user(BUILTIN_USER)
        except Conflict:  # another server on the database made it just now
            return await self._builtin_user()

    async def smoke_finished(
        self, match: Match, status: MatchStatus, result: dict[str, Any] | None, error: str
    ) -> None:
        """A smoke match ended: the version is ready, or failed with the reason."""
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
                initial_rating=rating.INITIAL,
            )
            self.scheduler.wake()
        else:
            stderr = self.ctx.scrub(player.get("stderr") or "")[-MESSAGE_STDERR:]
            message = f"failed its check: {player['outcome']}: {player.get('reason', '')}"
            if stderr:
                message += f"\nstderr:\n{stderr}"
            await self.storage.set_version_state(
                seat.bot_id, seat.version, "failed", message=message
            )

    # -- builds (their own pool) ---------------------------------------------
    async def _build_version(self, bot_id: int, number: int) -> None:
        """Build one uploaded version, then release its smoke match; a failure fails it."""
        async with self._build_limiter:
            version = await self.storage.get_version(bot_id, number)
            if version is None or version.state != "checking" or version.built:
                return
            assert version.launch.build
            try:
                ok, output = await self._build_with_retries(bot_id, number, version.launch.build)
            except Exception as exc:  # a judge bug: the version fails, the server goes on
                log.exception("build crashed", bot_id=bot_id, version=number)
                ok, output = False, f"internal error: {type(exc).__name__}: {exc}"
            output = self.ctx.scrub(output)
            self.ctx.metrics.build_finished(ok)
            if ok:
                await self.storage.set_version_state(
                    bot_id, number, "checking", message=version.message, built=True
                )
                if version.smoke_match:
                    await self.storage.hold_match(version.smoke_match, False)
                self.scheduler.wake()
                return
            await self.storage.set_version_state(
                bot_id, number, "failed", message=f"build failed:\n{output}"
            )
            if version.smoke_match:
                await self.scheduler.end_unstarted(version.smoke_match, "the build failed")

    async def _build_with_retries(self, bot_id: int, number: int, command: str) -> tuple[bool, str]:
        attempts = self.config.max_attempts
        for attempt in range(1, attempts + 1):
            try:
                return await self._build_once(bot_id, number, command)
            except (SandboxError, OSError) as exc:
                if attempt == attempts:
                    return False, f"the judge could not run the build ({attempts} attempts): {exc}"
                delay = self.config.retry_backoff * 2 ** (attempt - 1)
                log.warning("build could not run; retrying", error=str(exc), delay=delay)
                await trio.sleep(delay)
        raise AssertionError("unreachable")

    async def _build_once(self, bot_id: int, number: int, command: str) -> tuple[bool, str]:
        key = tree_key(bot_id, number)
        work = self.ctx.work_root / f"build{uuid.uuid4().hex[:12]}"
        box = work / "0"
        try:
            await self.blobs.checkout_tree(key, box)
            ok, text, archive = await self.build(box, command)
            if not ok:
                return False, text
            built = work / "built"
            try:
                await trio.to_thread.run_sync(self._unpack_build, work, archive, built)
            except UploadRefused as exc:
                return False, f"the build's result was refused: {exc}\n{text}"
            stored = await self.blobs.replace_tree(key, built)
            await self.storage.set_stored_bytes(bot_id, number, stored)
            return True, text
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(shutil.rmtree, work, True)

    def _unpack_build(self, work: Path, archive: bytes, built: Path) -> None:
        packed = work / "built.tar.gz"
        packed.write_bytes(archive)
        try:
            unpack(packed, "built.tar.gz", built, self.config.limits)
        finally:
            packed.unlink()

    async def build(self, box: Path, command: str) -> tuple[bool, str, bytes]:
        """Run a build command in the sandbox under its own time limit: (ok, log, archive)."""
        return await sandboxed_build(
            self.ctx.sandbox,
            box,
            command,
            seconds=self.config.build_timeout,
            limit=self.config.limits.unpacked_bytes,
        )


def _resolve_program(argv: list[str]) -> list[str]:
    if argv and "/" not in argv[0]:
        # On the bot's PATH, as the bot would find it: the server's own PATH may lead to
        # directories the sandbox does not show.
        found = shutil.which(argv[0], path=SAFE_PATH)
        if found:
            argv[0] = found
    return argv


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 16):
            digest.update(chunk)
    return digest.hexdigest()


async def sandboxed_build(
    sandbox: Sandbox, box: Path, command: str, *, seconds: float, limit: int
) -> tuple[bool, str, bytes]:
    """Run a build command in the sandbox under its own time limit: (ok, log, archive).

    The sandbox shows the box read-only, so the build works on a copy in the bot's
    private /tmp and hands the result back as a .tar.gz on stdout; that archive is
    unpacked with the same checks as an upload and replaces the stored files.
    """
    script = (
        'work=$(mktemp -d) && cp -R . "$work" && cd "$work" && '
        f'{{ {command}\n}} >&2 && tar -czf - . ; status=$?; rm -rf "$work"; exit $status'
    )
    shell = shutil.which("sh", path="/usr/bin:/bin") or "/bin/sh"
    spec = BotSpec(name="build", argv=(shell, "-c", script), cwd=box, box=box)
    proc = await sandbox.start(spec, seed=0)  # SandboxError: retried by the caller
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
                if len(archive) > limit:
                    too_big = True
                    await proc.kill()
                    return

    timed_out = False
    try:
        if proc.process.stdin is not None:
            await proc.process.stdin.aclose()
        with trio.move_on_after(seconds) as scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(collect_archive, proc.process.stdout)
                nursery.start_soon(collect_log, proc.process.stderr)
                await proc.process.wait()
        timed_out = scope.cancelled_caught
    finally:
        await proc.kill()
    text = log_bytes.decode(errors="replace").strip()
    if timed_out:
        return False, f"the build took longer than {seconds:g} s\n{text}", b""
    if too_big:
        return False, f"the build made more than {limit} bytes", b""
    status = proc.process.returncode
    if status != 0:
        return False, f"the build exited with status {status}\n{text}", b""
    return True, text, bytes(archive)
