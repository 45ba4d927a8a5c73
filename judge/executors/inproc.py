"""The in-process executor: every match in this trio judge (the embedded default)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence

from judge.executors.base import Executor, MatchJob, ResultCallback
from judge.models import MatchResult
from judge.sandbox import Sandbox


class InProcessExecutor(Executor):
    """Matches run in this process's trio loop, ``concurrency`` at a time."""

    name = "inproc"

    def __init__(self, *, sandbox: Sandbox | None = None, concurrency: int | None = None) -> None:
        self.sandbox = sandbox
        self.concurrency = concurrency or max(1, os.cpu_count() or 1)
        # Jobs that want this thread batch-scheduled (the policy is the thread's: one for all).
        self._batch_jobs = 0
        self._batch_mode: contextlib.ExitStack | None = None
        self._batch_took = False
        # Matches running now, and whether run_many promised they come one at a time.
        self._running = 0
        self._one_at_a_time = False

    @property
    def slots(self) -> int:
        return self.concurrency

    async def open(self) -> None:
        if self.sandbox is None:
            from judge.sandbox.select import default_sandbox

            self.sandbox = default_sandbox()

    def describe(self) -> str:
        layer = self.sandbox.layer if self.sandbox is not None else "?"
        return f"inproc ({self.concurrency} at once, sandbox {layer})"

    async def run(self, job: MatchJob) -> MatchResult:
        from judge.runner import run_match

        batch = job.batch_scheduling and self._enter_batch()
        # A match that plays alone runs co-located with its bots (run_match's colocate);
        # matches that share this judge thread must not be tied to one core.
        colocate = self._one_at_a_time and self._running == 0
        self._running += 1
        try:
            return await run_match(
                job.spec,
                sandbox=self.sandbox,
                replay_path=job.replay_path,
                sinks=job.sinks,
                batch_scheduled=batch,
                colocate=colocate,
            )
        finally:
            self._running -= 1
            if job.batch_scheduling:
                self._leave_batch()

    async def run_many(
        self,
        jobs: Sequence[MatchJob],
        on_result: ResultCallback,
        *,
        concurrency: int | None = None,
    ) -> None:
        alone = len(jobs) == 1 or max(1, concurrency or self.in_flight) == 1
        self._one_at_a_time = alone and self._running == 0
        try:
            await super().run_many(jobs, on_result, concurrency=concurrency)
        finally:
            self._one_at_a_time = False

    def _enter_batch(self) -> bool:
        from judge.parallel import batch_scheduled

        if self._batch_jobs == 0:
            self._batch_mode = contextlib.ExitStack()
            self._batch_took = self._batch_mode.enter_context(batch_scheduled())
        self._batch_jobs += 1
        return self._batch_took

    def _leave_batch(self) -> None:
        self._batch_jobs -= 1
        if self._batch_jobs == 0 and self._batch_mode is not None:
            self._batch_mode.close()
            self._batch_mode = None
