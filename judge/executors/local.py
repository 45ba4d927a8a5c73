"""The local executor: one judge process per core (trio-parallel), each playing a batch of
matches at once (the worker side is judge.parallel.run_batch).

Replay lines of a job with sinks are written raw by the worker to a file in this executor's
scratch directory and followed here (every 50 ms at most), then relayed to the job's sinks
and its replay file; a job without sinks gets its replay written by the worker directly.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import trio
import trio_parallel  # type: ignore[import-untyped]

from judge.executors.base import Executor, ExecutorError, LineRelay, MatchJob, ResultCallback
from judge.models import MatchResult, MatchSpec
from judge.parallel import ParallelStats, default_workers, run_batch

FOLLOW_INTERVAL = 0.05


def end_with_parent() -> bool:
    """(In each worker, at its start.) A worker whose judge died (kill -9) ends too, and its
    bots with it (their launcher's parent-death signal), rather than play on as an orphan."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
    return False


class LocalExecutor(Executor):
    """``workers`` processes (default: one per core), each up to ``per_worker`` matches at once.

    Matches are handed out in batches (``batch_size``, default ``per_worker``) so a fast
    worker takes more of them. ``sandbox_layer`` names the layer every worker uses (None: the
    strongest available, or $BOTJUDGE_SANDBOX). ``pin_cpus`` pins each worker and its bots to
    a core of its own (batch-scheduled): best on a machine the judge has to itself.
    Workers start with the executor (pass a ``worker_context`` to share them across
    executors) and end with it.
    """

    name = "local"

    def __init__(
        self,
        *,
        workers: int | None = None,
        per_worker: int = 8,
        batch_size: int | None = None,
        sandbox_layer: str | None = None,
        log_level: str = "warning",
        pin_cpus: bool = False,
        worker_context: trio_parallel.WorkerContext | None = None,
        stats: ParallelStats | None = None,
    ) -> None:
        if per_worker < 1:
            raise ValueError("per_worker must be at least 1")
        self.workers = workers or default_workers()
        self.per_worker = per_worker
        self.batch_size = batch_size or per_worker
        self.sandbox_layer = sandbox_layer
        self.log_level = log_level
        self.pin_cpus = pin_cpus
        self.stats = stats
        self._shared_context = worker_context
        self._context: trio_parallel.WorkerContext | None = worker_context
        self._context_cm: object | None = None
        self._limiter = trio.CapacityLimiter(self.workers)
        self._scratch: Path | None = None
        self._streams = 0

    @property
    def slots(self) -> int:
        return self.workers * self.per_worker

    def describe(self) -> str:
        return f"local ({self.workers} judge processes x {self.per_worker})"

    async def open(self) -> None:
        self._scratch = Path(tempfile.mkdtemp(prefix="botjudge-local-"))
        if self._shared_context is None:
            # Own workers, ended on the way out: cached ones would outlive us as stray children.
            manager = trio_parallel.open_worker_context(init=end_with_parent)
            self._context = await manager.__aenter__()
            self._context_cm = manager

    async def aclose(self) -> None:
        manager, self._context_cm = self._context_cm, None
        if manager is not None:
            await manager.__aexit__(None, None, None)  # type: ignore[attr-defined]
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    async def run(self, job: MatchJob) -> MatchResult:
        results: list[MatchResult] = []
        await self.run_many([job], lambda _, result: results.append(result))
        return results[0]

    async def run_many(
        self,
        jobs: Sequence[MatchJob],
        on_result: ResultCallback,
        *,
        concurrency: int | None = None,
    ) -> None:
        if self._context is None or self._scratch is None:
            raise ExecutorError("the local executor is not open (use it in `async with`)")
        size = self.batch_size
        if concurrency is not None:
            # No more in flight than asked: fewer workers busy, batches no larger than that.
            size = min(size, max(1, concurrency))
        limit = math.ceil(concurrency / size) if concurrency else self.workers
        limiter = trio.CapacityLimiter(max(1, min(limit, self.workers)))
        async with trio.open_nursery() as nursery:
            for start in range(0, len(jobs), size):
                nursery.start_soon(
                    self._run_batch, list(jobs[start : start + size]), limiter, on_result
                )

    async def _run_batch(
        self,
        batch: list[MatchJob],
        limiter: trio.CapacityLimiter,
        on_result: ResultCallback,
    ) -> None:
        # A batch waiting for a worker opens nothing and follows nothing: a tourney queues
        # every batch at once, and a replay file per queued match would run the judge out
        # of descriptors (and following them all costs CPU for every match).
        async with limiter:
            returned, cpu, bots_cpu, pid, cpus = await self._play(batch)
        if self.stats is not None:
            self.stats.judge_cpu_s += cpu
            self.stats.bots_cpu_s += bots_cpu
            self.stats.batches += 1
            self.stats.worker_pids.add(pid)
            self.stats.worker_cpus[pid] = cpus
        for job, text in zip(batch, returned, strict=True):
            result = MatchResult.model_validate_json(text)
            if job.replay_path is not None:
                result = result.model_copy(update={"replay": str(job.replay_path)})
            on_result(job, result)

    async def _play(
        self, batch: list[MatchJob]
    ) -> tuple[list[str], float, float, int, tuple[int, ...]]:
        """One batch on a worker, its lines followed back to the sinks of the jobs with any."""
        assert self._context is not None and self._scratch is not None
        replay_paths: list[str | None] = []
        stream_paths: list[str | None] = []
        relays: list[tuple[Path, LineRelay] | None] = []
        done = trio.Event()
        try:
            for job in batch:
                if job.replay_path is not None:
                    await trio.Path(job.replay_path).parent.mkdir(parents=True, exist_ok=True)
                if job.sinks:
                    self._streams += 1
                    stream = self._scratch / f"{self._streams}.lines"
                    stream_paths.append(str(stream))
                    replay_paths.append(None)
                    relays.append((stream, LineRelay(job)))
                else:
                    stream_paths.append(None)
                    replay_paths.append(str(job.replay_path) if job.replay_path else None)
                    relays.append(None)
            async with trio.open_nursery() as nursery:
                for entry in relays:
                    if entry is not None:
                        nursery.start_soon(_follow, *entry, done)
                try:
                    returned: tuple[list[str], float, float, int, tuple[int, ...]]
                    returned = await self._context.run_sync(
                        run_batch,
                        [job.spec.model_dump_json() for job in batch],
                        self.per_worker,
                        self.sandbox_layer,
                        replay_paths,
                        stream_paths,
                        self.log_level,
                        self.pin_cpus,
                        any(job.batch_scheduling for job in batch),
                        limiter=self._limiter,
                        kill_on_cancel=True,
                    )
                finally:
                    done.set()
        finally:
            for entry in relays:
                if entry is not None:
                    entry[1].close()
                    entry[0].unlink(missing_ok=True)
        return returned


async def _follow(path: Path, relay: LineRelay, done: trio.Event) -> None:
    """Relay the complete lines of a file the worker is writing, until the batch is done."""
    offset = 0
    partial = b""
    while True:
        finished = done.is_set()
        try:
            with path.open("rb") as file:
                file.seek(offset)
                data = file.read()
        except FileNotFoundError:
            data = b""
        offset += len(data)
        if data:
            lines = (partial + data).split(b"\n")
            partial = lines.pop()
            relay.deliver(relay.delivered, [line.decode(errors="replace") + "\n" for line in lines])
        if finished:
            return
        with trio.move_on_after(FOLLOW_INTERVAL):
            await done.wait()


async def run_matches(
    specs: Sequence[MatchSpec],
    *,
    workers: int | None = None,
    per_worker: int = 8,
    batch_size: int | None = None,
    sandbox_layer: str | None = None,
    replay_dir: Path | None = None,
    on_result: Callable[[int, MatchResult], None] | None = None,
    stats: ParallelStats | None = None,
    log_level: str = "warning",
    pin_cpus: bool = False,
    worker_context: trio_parallel.WorkerContext | None = None,
) -> list[MatchResult]:
    """Play every spec on a :class:`judge.executors.local.LocalExecutor`; results in the
    specs' order (``on_result(index, result)`` as they finish).

    Replays go to ``replay_dir/<match_id or index>.replay``. See the executor for the rest.
    """
    if per_worker < 1:
        raise ValueError("per_worker must be at least 1")
    if replay_dir is not None:
        await trio.Path(replay_dir).mkdir(parents=True, exist_ok=True)
    jobs = [
        MatchJob(
            spec,
            replay_path=replay_dir / f"{spec.match_id or i}.replay"
            if replay_dir is not None
            else None,
            tag=i,
        )
        for i, spec in enumerate(specs)
    ]
    results: list[MatchResult | None] = [None] * len(specs)
    executor = LocalExecutor(
        workers=workers,
        per_worker=per_worker,
        batch_size=batch_size,
        sandbox_layer=sandbox_layer,
        log_level=log_level,
        pin_cpus=pin_cpus,
        worker_context=worker_context,
        stats=stats,
    )

    def finished(job: MatchJob, result: MatchResult) -> None:
        assert isinstance(job.tag, int)
        results[job.tag] = result
        if on_result is not None:
            on_result(job.tag, result)

    async with executor:
        await executor.run_many(jobs, finished)
    return [r for r in results if r is not None]
