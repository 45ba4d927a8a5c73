"""The executor seam: where matches run, behind one small interface (like httpx's transports).

A caller hands an executor :class:`MatchJob` s (a match spec, where its replay should land,
line sinks) and gets each :class:`judge.models.MatchResult` back as its match finishes (``run`` one,
``run_many`` with a callback per result in the order they finish).
Replay lines reach the job's sinks in the caller's process while the match runs, wherever it
runs. Cancelling the caller's trio scope cancels the matches it was waiting for.

Implementations: ``inproc`` (this trio judge), ``local`` (one judge process per core) and
``dask`` (the workers of a Dask cluster). :func:`judge.executors.open_executor` picks one by
name or URL.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self

import trio

from judge.models import MatchResult, MatchSpec
from replays import ReplayWriter

LineSink = Callable[[str], None]


class ExecutorError(Exception):
    """The executor itself failed (a lost cluster, a dead worker pool); never a bot's doing."""


@dataclass
class MatchJob:
    """One match to play and where its output goes (in the caller's process)."""

    spec: MatchSpec
    # Where the finished replay lands; written while the match runs, so it can be followed.
    replay_path: Path | None = None
    # Called with every replay line, in order, while the match runs.
    sinks: Sequence[LineSink] = ()
    # Called when the match starts over elsewhere (its worker died): lines come again.
    on_restart: Callable[[], None] | None = None
    # Run the judge thread and the bots it starts SCHED_BATCH (judge.parallel.batch_scheduling):
    # for games where every bot moves every turn and the judge has a core to itself.
    batch_scheduling: bool = False
    # The caller's own reference (a planned match, a database row).
    tag: object = field(default=None, compare=False)


ResultCallback = Callable[["MatchJob", MatchResult], None]


class Executor(ABC):
    """Runs matches somewhere. Use as ``async with``; ``run`` one, or ``run_many``."""

    name: str = "executor"

    @property
    @abstractmethod
    def slots(self) -> int:
        """Matches it runs at once (the caller needs no more in flight than this)."""

    @property
    def in_flight(self) -> int:
        """Matches ``as_completed`` keeps submitted at once by default."""
        return self.slots

    async def open(self) -> None:  # noqa: B027 (most executors have nothing to open)
        """Start what the executor needs (worker processes, a cluster connection)."""

    async def aclose(self) -> None:  # noqa: B027
        """Stop what ``open`` started."""

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        with trio.CancelScope(shield=True):
            await self.aclose()

    @abstractmethod
    async def run(self, job: MatchJob) -> MatchResult:
        """Play one match to the end; cancelling the caller cancels the match."""

    def describe(self) -> str:
        return self.name

    async def run_many(
        self,
        jobs: Sequence[MatchJob],
        on_result: ResultCallback,
        *,
        concurrency: int | None = None,
    ) -> None:
        """Play every job; ``on_result(job, result)`` as each match finishes (in this task's
        trio thread, in the order they finish).

        At most ``concurrency`` (default ``in_flight``) matches are in flight. Cancelling
        the caller cancels the matches still running; an executor failure cancels the rest
        and raises.
        """
        limiter = trio.CapacityLimiter(max(1, concurrency or self.in_flight))

        async def play(job: MatchJob) -> None:
            async with limiter:
                result = await self.run(job)
            on_result(job, result)

        async with trio.open_nursery() as nursery:
            for job in jobs:
                nursery.start_soon(play, job)


class LineRelay:
    """The caller's end of a match that runs elsewhere: the lines that come back, in order,
    to the job's sinks and to its replay file (written here, so it can be followed)."""

    def __init__(self, job: MatchJob) -> None:
        self.job = job
        self.delivered = 0
        self.writer: ReplayWriter | None = None
        self._open_writer()

    def _open_writer(self) -> None:
        if self.job.replay_path is not None:
            self.writer = ReplayWriter(self.job.replay_path)

    def deliver(self, start: int, lines: Sequence[str]) -> None:
        """Lines ``start``, ``start + 1``... of the match; those already delivered are skipped."""
        skip = self.delivered - start
        if skip < 0:
            raise ExecutorError(f"replay lines of {self.job.spec.match_id} arrived with a gap")
        for line in lines[skip:]:
            if self.writer is not None:
                self.writer(line)
            for sink in self.job.sinks:
                sink(line)
            self.delivered += 1

    def restart(self) -> None:
        """The match starts over (another worker): its lines will come again from the first."""
        self.close()
        self.delivered = 0
        if self.job.on_restart is not None:
            self.job.on_restart()
        self._open_writer()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
