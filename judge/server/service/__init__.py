"""What the server does, independent of HTTP, split by responsibility:

- ``accounts``: users and tokens;
- ``catalog``: bots, versions, uploads, quotas, builds and smoke checks;
- ``scheduler``: the match queue, running and cancelling matches, live lines and replays;
- ``ladder``: rated matchmaking and the leaderboard;
- ``tournaments``: planned, queued and followed tournaments;
- ``contests``: contests, their entries, ladder, final round, results and archive.

``Service`` wires them over one storage, one blob store and one sandbox; the HTTP routes call
these parts, never storage.
"""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path
from typing import Any

import trio

from games import all_plugins
from judge import __version__, logs
from judge.bots import builtin_bots, toolchains
from judge.sandbox import Sandbox
from judge.server import seedkey
from judge.server.blobs import BlobStore, LocalBlobStore
from judge.server.config import ServerConfig
from judge.server.health import Checks, Report
from judge.server.records import Match, MatchStatus
from judge.server.service.accounts import Accounts
from judge.server.service.catalog import Catalog
from judge.server.service.common import (
    FINAL,
    BadRequest,
    Context,
    Forbidden,
    NotFound,
    QuotaExceeded,
    ServiceError,
    Taken,
    Unauthorized,
    hash_token,
    new_token,
    result_for,
)
from judge.server.service.contests import Contests
from judge.server.service.ladder import Ladder
from judge.server.service.scheduler import Scheduler
from judge.server.service.tournaments import Tournaments
from judge.server.storage import Storage, StorageUnavailable

__all__ = [
    "FINAL",
    "BadRequest",
    "Forbidden",
    "NotFound",
    "QuotaExceeded",
    "Service",
    "ServiceError",
    "Taken",
    "Unauthorized",
    "hash_token",
    "new_token",
    "result_for",
]

log = logs.get_logger("judge.server")


class Service:
    def __init__(
        self,
        config: ServerConfig,
        storage: Storage,
        sandbox: Sandbox | None = None,
        blobs: BlobStore | None = None,
    ) -> None:
        if sandbox is None:
            from judge.sandbox.select import default_sandbox

            sandbox = default_sandbox()
        self.config = config
        from judge.executors import open_executor

        self.ctx = Context(
            config=config,
            storage=storage,
            blobs=blobs if blobs is not None else LocalBlobStore(config.data),
            sandbox=sandbox,
            executor=open_executor(
                config.executor,
                sandbox=sandbox,
                concurrency=config.concurrency,
                tls=config.cluster_tls,
                insecure_cluster=config.insecure_cluster,
            ),
        )
        self.sandbox = sandbox
        self.accounts = Accounts(self.ctx)
        self.catalog = Catalog(self.ctx)
        self.scheduler = Scheduler(self.ctx, self.catalog)
        self.catalog.scheduler = self.scheduler
        self.ladder = Ladder(self.ctx, self.scheduler)
        self.tournaments = Tournaments(self.ctx, self.catalog, self.scheduler)
        self.contests = Contests(self.ctx, self.catalog, self.scheduler)
        self.scheduler.listeners.append(self._finished)
        self.scheduler.listeners.append(self.contests.match_finished)
        self.scheduler.listeners.append(self.ctx.metrics.match_ended)
        self.checks = Checks(storage, config.data, self.ctx.faults, config.lease)
        self.admin_token: str | None = None
        self._last_counts = (0, 0)

    async def _finished(
        self, match: Match, status: MatchStatus, result: dict[str, Any] | None, error: str
    ) -> None:
        if match.kind == "smoke":
            await self.catalog.smoke_finished(match, status, result, error)
        if match.tournament_id is not None:
            await self.tournaments.match_finished(match)

    # -- lifecycle -------------------------------------------------------
    async def open(self) -> None:
        """Prepare the working directories and storage; recover what a stopped server left."""
        await self.ctx.storage.open()
        self.ctx.seed_key = seedkey.load_or_create(self.config.data)
        if self.ctx.storage.shared:
            # Other servers may be working in there: only this process's scratch is new.
            self.ctx.work_root.mkdir(parents=True)
            self.config.uploads_dir.mkdir(parents=True, exist_ok=True)
            _remove_dead_scratch(self.config.work_dir)
        else:
            for directory in (self.config.work_dir, self.config.uploads_dir):
                shutil.rmtree(directory, ignore_errors=True)
                directory.mkdir(parents=True)
            self.ctx.work_root.mkdir()
        self.admin_token = await self.accounts.ensure_admin()
        if self.config.builtin_bots:
            added = await self.catalog.ensure_builtin_bots()
            if added:
                log.info("built-in bots joined the ladders", bots=len(added))
        await self.scheduler.recover()
        await self.catalog.recover()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with self.ctx.executor, trio.open_nursery() as nursery:
            await nursery.start(self.scheduler.run)
            await nursery.start(self.tournaments.run)
            await nursery.start(self.contests.run)
            nursery.start_soon(self.catalog.run_builds)
            if self.config.ladder:
                nursery.start_soon(self.ladder.run)
            task_status.started()

    async def close(self) -> None:
        await self.ctx.storage.close()
        shutil.rmtree(self.ctx.work_root, ignore_errors=True)

    # -- general -----------------------------------------------------------
    async def health(self) -> tuple[Report, dict[str, Any]]:
        """What is wrong now (database, disk, stuck matches), and what the server runs with."""
        report = await self.checks.run()
        return report, {
            "ok": report.ok,
            "ready": report.ready,
            "problems": report.problems,
            "stuck_matches": report.stuck,
            "version": __version__,
            "sandbox": self.sandbox.layer,
            "running": len(self.scheduler.running),
            "concurrency": self.config.concurrency,
            "toolchains": sorted(toolchains()),
            "executor": self.ctx.executor.describe(),
        }

    async def queue_counts(self) -> tuple[int, int]:
        """Matches queued and running now (for /metrics; the last known while the database
        cannot answer)."""
        try:
            queued = await self.ctx.storage.count_matches(statuses=("queued",))
            running = await self.ctx.storage.count_matches(statuses=("running",))
        except StorageUnavailable:
            return self._last_counts
        self._last_counts = (queued, running)
        return self._last_counts

    @staticmethod
    def games() -> list[dict[str, Any]]:
        return [
            {
                "name": name,
                "description": cls.description,
                "min_seats": cls.min_seats,
                "max_seats": cls.max_seats,
                "options": cls.Options.model_json_schema(),
                "tourney_settings": plugin.format.Settings.model_json_schema(),
                "builtins": list(builtin_bots(name)),
            }
            for name, plugin in all_plugins().items()
            for cls in [plugin.rules]
        ]


def _remove_dead_scratch(work: Path) -> None:
    """Scratch directories of stopped server processes on this host (named host-pid-tag)."""
    host = socket.gethostname()
    for entry in work.iterdir():
        name_host, _, rest = entry.name.rpartition("-")[0].rpartition("-")
        pid = rest
        if name_host != host or not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(entry, ignore_errors=True)
        except PermissionError:
            continue
