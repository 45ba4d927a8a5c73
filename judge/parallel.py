"""The worker side of the local executor (judge.executors.local) and the CPU helpers.

One trio judge process saturates one core (the per-turn work is Python), so the local
executor splits matches over one worker process per core (trio-parallel); each runs a batch
of matches at once with the ordinary :func:`judge.runner.run_match` (``run_batch``).
Here too: pinning a worker and its bots to a core, SCHED_BATCH, the fd limit.

Specs and results cross the process boundary as JSON (pydantic), and the sandbox as its
layer name: a worker builds its own sandbox, so nothing unpicklable travels.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from judge.cpus import allowed_cpus, claim_cpu
from judge.models import MatchResult, MatchSpec
from judge.sandbox.procs import raise_fd_limit

if TYPE_CHECKING:
    from judge.sandbox import Sandbox

ResultCallback = Callable[[int, MatchResult], None]


@dataclass
class ParallelStats:
    """What the workers report back: the CPU time of the judges and of the bots they reaped."""

    judge_cpu_s: float = 0.0
    bots_cpu_s: float = 0.0
    batches: int = 0
    worker_pids: set[int] = field(default_factory=set)
    # The CPUs each worker could run on during its last batch (one, when pinned).
    worker_cpus: dict[int, tuple[int, ...]] = field(default_factory=dict)


def default_workers() -> int:
    """One judge process per core this process may run on."""
    return max(1, len(allowed_cpus()))


class _CpuClaim:
    """This worker's claim on one CPU: a lock file held for the worker's life."""

    fd: int | None = None
    cpu: int | None = None
    everywhere: set[int] | None = None


def set_affinity(cpus: set[int]) -> None:
    """Set the CPUs of every thread of this process; bots inherit them from the thread
    that spawns them (trio spawns from a cached worker thread)."""
    for task in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(task), cpus)
        except (ProcessLookupError, PermissionError):
            continue  # a thread that just ended


def pin_to_free_cpu() -> int | None:
    """Pin this process (and the bots it starts later) to a CPU no other worker holds.

    A bot's wake-up on its judge's CPU costs a few µs; across CPUs, on a VM, tens of µs of
    both sides' CPU time, so one judge per core with its own bots on that core halves the
    CPU a turn costs. None if every CPU is taken (then it stays unpinned).
    """
    if not hasattr(os, "sched_setaffinity"):  # (not Linux: no pinning)
        return None
    if _CpuClaim.cpu is not None:
        set_affinity({_CpuClaim.cpu})
        return _CpuClaim.cpu
    _CpuClaim.everywhere = set(os.sched_getaffinity(0))
    claim = claim_cpu(sorted(_CpuClaim.everywhere))
    if claim is not None:
        _CpuClaim.fd, _CpuClaim.cpu = claim.fd, claim.cpu
        set_affinity({claim.cpu})
        return claim.cpu
    return None


def unpin() -> None:
    """Back to every CPU (a cached worker may have been pinned by an earlier batch)."""
    if _CpuClaim.everywhere is not None:
        set_affinity(_CpuClaim.everywhere)


def batch_scheduling(enabled: bool) -> bool:
    """Run this thread (the judge's trio thread) and the bots it starts as SCHED_BATCH, or
    back to normal.

    A batch-scheduled bot woken by the judge's write does not preempt the judge, so the
    judge writes every mover's message, yields its core once (the runner does when its
    thread is batch-scheduled) and finds every answer there: one switch to the bots and
    back per turn instead of one per bot. Bots keep their share of the CPU; they only wait
    for the running task to yield or its slice to end instead of preempting it. Only for a
    judge pinned with its bots to a core of its own, where they run on that yield.
    """
    if not hasattr(os, "SCHED_BATCH"):  # (Linux's)
        return False
    policy = os.SCHED_BATCH if enabled else os.SCHED_OTHER
    try:
        os.sched_setscheduler(0, policy, os.sched_param(0))
    except OSError:
        return False
    return enabled


@contextlib.contextmanager
def batch_scheduled() -> Iterator[bool]:
    """This thread, and the bots it starts meanwhile, batch-scheduled for the block (see
    ``batch_scheduling``); the previous policy comes back after. Yields whether it took."""
    try:
        previous = os.sched_getscheduler(0)
    except (OSError, AttributeError):  # (AttributeError: not Linux)
        yield False
        return
    took = batch_scheduling(True)
    try:
        yield took
    finally:
        if took:
            with contextlib.suppress(OSError):
                os.sched_setscheduler(0, previous, os.sched_param(0))


_sandboxes: dict[str | None, Sandbox] = {}


def _sandbox_for(layer: str | None) -> Sandbox:
    """This worker's sandbox of ``layer``, one for all its batches (each batch is a trio run
    of its own): its fork servers, started once, then serve every batch after."""
    sandbox = _sandboxes.get(layer)
    if sandbox is None:
        from judge.sandbox.select import default_sandbox

        sandbox = _sandboxes[layer] = default_sandbox(layer)
        if sandbox.layer != "none":  # (the launcher's layers, Linux's: not imported elsewhere)
            from judge.sandbox.isolated import IsolatedSandbox

            if isinstance(sandbox, IsolatedSandbox):
                sandbox.keep_fork_servers()
    return sandbox


class LineFile:
    """A line sink writing raw replay lines to a file another process follows (the local
    executor's way to stream them back): flushed at once for judge lines, else every 50 ms."""

    FLUSH_INTERVAL = 0.05

    def __init__(self, path: Path) -> None:
        self.file = path.open("w", encoding="utf-8", errors="backslashreplace")
        self.flushed = time.monotonic()

    def __call__(self, line: str) -> None:
        self.file.write(line)
        now = time.monotonic()
        if line.startswith("#") or now - self.flushed >= self.FLUSH_INTERVAL:
            self.file.flush()
            self.flushed = now

    def close(self) -> None:
        self.file.close()


async def _run_batch_async(
    specs: list[MatchSpec],
    concurrency: int,
    layer: str | None,
    paths: list[str | None],
    streams: list[str | None],
    batch: bool,
) -> list[MatchResult]:
    from judge.runner import run_match

    sandbox = _sandbox_for(layer)
    limiter = trio.CapacityLimiter(max(1, concurrency))
    results: list[MatchResult | None] = [None] * len(specs)

    async def play(position: int, spec: MatchSpec) -> None:
        async with limiter:
            path, stream = paths[position], streams[position]
            sink = LineFile(Path(stream)) if stream else None
            try:
                results[position] = await run_match(
                    spec,
                    sandbox=sandbox,
                    replay_path=Path(path) if path else None,
                    sinks=[sink] if sink else [],
                    batch_scheduled=batch,
                )
            finally:
                if sink is not None:
                    sink.close()

    async with trio.open_nursery() as nursery:
        for position, spec in enumerate(specs):
            nursery.start_soon(play, position, spec)
    return [r for r in results if r is not None]


def run_batch(
    spec_json: list[str],
    concurrency: int,
    layer: str | None,
    replay_paths: list[str | None],
    stream_paths: list[str | None],
    log_level: str,
    pin_cpus: bool = False,
    batch_mode: bool = False,
) -> tuple[list[str], float, float, int, tuple[int, ...]]:
    """Runs in a worker process: play the batch; results as JSON, judge and bots CPU seconds.

    A match's replay goes to its ``replay_paths`` entry, or its raw lines to its
    ``stream_paths`` entry (a :class:`LineFile` the caller follows).

    A pinned worker runs batch-scheduled (its bots share its core); ``batch_mode`` asks for
    it unpinned too (arena matches, where every bot moves every turn).
    """
    from judge import logs

    logs.configure(log_level)
    raise_fd_limit()
    if pin_cpus:
        batch = batch_scheduling(pin_to_free_cpu() is not None or batch_mode)
    else:
        unpin()
        batch = batch_scheduling(batch_mode)
    specs = [MatchSpec.model_validate_json(text) for text in spec_json]
    began = time.process_time()
    children = _children_cpu()
    results = trio.run(
        _run_batch_async, specs, concurrency, layer, replay_paths, stream_paths, batch
    )
    judge_cpu = time.process_time() - began
    bots_cpu = _children_cpu() - children
    cpus = tuple(sorted(allowed_cpus()))
    return [r.model_dump_json() for r in results], judge_cpu, bots_cpu, os.getpid(), cpus


def _children_cpu() -> float:
    try:
        import resource
    except ImportError:  # (Windows)
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


__all__ = [
    "ParallelStats",
    "batch_scheduled",
    "batch_scheduling",
    "default_workers",
    "pin_to_free_cpu",
    "raise_fd_limit",
    "run_batch",
    "set_affinity",
    "unpin",
]
