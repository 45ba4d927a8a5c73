"""What is wrong with the server now, in words an operator can act on.

Two sources: ``Faults``, where the scheduler notes the writes the database or the disk
refused (and clears them when the next one succeeds), and the checks ``Checks.run`` makes
when asked: one committed write to the database, the free space of the data directory, and
running matches nobody has renewed for half a lease or more.
"""

from __future__ import annotations

import errno
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import trio

from judge.server.storage import Storage, StorageUnavailable

# Below this much free space in the data directory, the disk counts as full: a replay or a
# database page would not fit.
DISK_FULL_BYTES = 1 << 20
# An answer is reused for this long: a flood of probes costs one database write a second.
CACHE_SECONDS = 1.0
PROBE_TIMEOUT = 5.0
DISK_ERRORS = (errno.ENOSPC, errno.EDQUOT)


def describe(exc: BaseException) -> str:
    """A fault in words: what kind (disk full, unreachable, read-only), then the detail."""
    if isinstance(exc, StorageUnavailable):
        return str(exc)
    if isinstance(exc, OSError) and exc.errno in DISK_ERRORS:
        return f"disk full: {exc.strerror or exc}"
    if isinstance(exc, OSError) and exc.errno == errno.EROFS:
        return f"the disk is read-only: {exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"


def unservable(exc: BaseException) -> str | None:
    """Why a request cannot be served now, when ``exc`` is a fault of the machine (then the
    answer is 503, not 500); None for anything else."""
    if isinstance(exc, StorageUnavailable):
        return str(exc)
    if isinstance(exc, OSError) and exc.errno in (*DISK_ERRORS, errno.EROFS):
        return describe(exc)
    return None


# A fault not seen again for this long is over, even if nothing of its kind succeeded since
# (a recording given up on, and no match recorded after it).
FAULT_MEMORY = 60.0


class Faults:
    """The faults writes met lately, by what was being written; cleared by a success."""

    def __init__(self) -> None:
        # what -> (first seen, last seen, the fault in words)
        self._active: dict[str, tuple[float, float, str]] = {}

    def failed(self, what: str, exc: BaseException) -> None:
        now = time.time()
        since = self._active.get(what, (now, now, ""))[0]
        self._active[what] = (since, now, describe(exc))

    def recovered(self, what: str) -> None:
        self._active.pop(what, None)

    def active(self) -> list[str]:
        now = time.time()
        return [
            f"{what} failing for {now - since:.0f} s: {problem}"
            for what, (since, last, problem) in sorted(self._active.items())
            if now - last < FAULT_MEMORY
        ]


@dataclass
class Report:
    live: bool = True
    # Database reachable and writable, disk not full: the server can take requests.
    ready: bool = True
    problems: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.ready and not self.problems


class Checks:
    def __init__(self, storage: Storage, data: Path, faults: Faults, lease: float) -> None:
        self.storage = storage
        self.data = data
        self.faults = faults
        self.lease = lease
        self._last: tuple[float, Report] | None = None
        self._lock = trio.Lock()

    async def run(self) -> Report:
        async with self._lock:  # concurrent probes share one check
            if self._last is not None and time.monotonic() - self._last[0] < CACHE_SECONDS:
                return self._last[1]
            report = await self._check()
            self._last = (time.monotonic(), report)
            return report

    async def _check(self) -> Report:
        report = Report()
        full = await trio.to_thread.run_sync(disk_full, self.data)
        if full is not None:
            report.ready = False
            report.problems.append(full)
        database_ok = False
        with trio.move_on_after(PROBE_TIMEOUT) as timeout:
            try:
                await self.storage.probe()
                database_ok = True
            except StorageUnavailable as exc:
                report.ready = False
                report.problems.append(str(exc))
        if timeout.cancelled_caught:
            report.ready = False
            report.problems.append(f"the database is unreachable: no answer in {PROBE_TIMEOUT} s")
        if database_ok:
            try:
                report.stuck = await self.storage.stuck_matches(time.time() - self.lease / 2)
            except StorageUnavailable as exc:
                report.ready = False
                report.problems.append(str(exc))
        if report.stuck:
            report.problems.append(
                f"{len(report.stuck)} running matches not renewed for {self.lease / 2:g} s "
                f"(their server stopped, or cannot record them); they are run again once "
                f"their lease ({self.lease:g} s) has passed"
            )
        report.problems += self.faults.active()
        return report


def disk_full(path: Path) -> str | None:
    """Why nothing more can be written under ``path`` (its disk is full), or None."""
    free = _free_bytes(path)
    if free is not None and free < DISK_FULL_BYTES:
        return f"disk full: {free} bytes free in the data directory"
    return None


def _free_bytes(path: Path) -> int | None:
    try:
        stat = os.statvfs(path)
    except OSError:
        return None
    return stat.f_bavail * stat.f_frsize
