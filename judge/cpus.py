"""CPU claims and affinity: keeping a judge and its bots on one core.

On a VM a bot woken on another vCPU costs tens of µs of both sides' CPU time per exchange
(an idle vCPU is woken by an interrupt that leaves the hypervisor), against a few µs when
the bot runs on the judge's own core. A judge claims a core with a lock file, so that
several judges on one machine (the local executor's workers, two CLI matches) never pile
onto the same core while another stays idle.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass

from judge.sandbox.procs import descendants


def allowed_cpus() -> set[int]:
    """The CPUs this process may run on (every CPU where there is no affinity: not Linux)."""
    try:
        return set(os.sched_getaffinity(0))
    except AttributeError:
        return set(range(os.cpu_count() or 1))


def lock_path(cpu: int) -> str:
    return os.path.join(tempfile.gettempdir(), f"botjudge-cpu-{cpu}.lock")


@dataclass
class CpuClaim:
    """A core this process holds (its lock file stays locked until ``release``)."""

    cpu: int
    fd: int

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # (closing the file drops its lock)
            self.fd = -1


def claim_cpu(candidates: list[int]) -> CpuClaim | None:
    """The first of ``candidates`` no other judge holds, claimed; None if all are held (or
    there are no file locks: Windows)."""
    try:
        import fcntl
    except ImportError:
        return None
    for cpu in candidates:
        try:  # (not through a symlink someone else put in the shared temporary directory)
            fd = os.open(
                lock_path(cpu), os.O_CREAT | os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600
            )
        except OSError:
            continue  # a lock file this judge cannot open: that core is not ours to claim
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return CpuClaim(cpu, fd)
    return None


def current_cpu() -> int | None:
    """The CPU this thread last ran on (field 39 of /proc/thread-self/stat)."""
    try:
        with open("/proc/thread-self/stat", "rb") as stat:
            raw = stat.read()
        return int(raw[raw.rfind(b")") + 2 :].split()[36])
    except (OSError, ValueError, IndexError):
        return None


def set_tree_affinity(pid: int, cpus: set[int]) -> None:
    """Every thread of ``pid`` and of its descendants may run on ``cpus`` only.

    Best effort: a process that just ended, or one this judge may not change, is skipped;
    a thread started while the tree is walked keeps the affinity it inherited."""
    for member in [pid, *descendants(pid)]:
        try:
            tasks = os.listdir(f"/proc/{member}/task")
        except OSError:
            continue
        for task in tasks:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(int(task), cpus)
