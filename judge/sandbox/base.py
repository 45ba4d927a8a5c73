from __future__ import annotations

import contextlib
import os
import signal
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

import trio

from judge.models import BotSpec

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
# What a namespaced bot sees of the file system besides its own directory (and, for built-in
# and .py bots, the judge's Python and bots/ library): read-only system directories (/bin,
# /lib... are /usr's on merged-/usr systems), a snapshot of a few /etc files, its own /dev and
# /proc, and a private, empty /tmp (not listed: a command naming a host /tmp path is refused
# rather than shown an empty directory). A bot's run or build command may name no other path.
VISIBLE_SYSTEM: tuple[str, ...] = (
    "/usr",
    "/opt",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/dev",
    "/proc",
)

# Isolation layers from weakest to strongest; each includes everything before it.
LAYERS: tuple[str, ...] = ("none", "base", "namespaces", "cgroups")
LAYER_SUMMARY: dict[str, str] = {
    "none": "no isolation: own session and a minimal environment (development only)",
    "base": "a supervising launcher: rlimits, no_new_privs, parent-death signal, tree kill",
    "namespaces": "base + the launcher's own user/pid/net/mount/ipc/uts namespaces (only the "
    "bot's box and read-only system directories visible, private /tmp), seccomp, Landlock, "
    "a uid per slot when root",
    "cgroups": "namespaces + per-bot cgroups: memory limit, pids limit, CPU quota, "
    "cgroup kill and freeze",
}


def layer_rank(layer: str) -> int:
    """Position of a layer in LAYERS; ValueError for an unknown name."""
    try:
        return LAYERS.index(layer)
    except ValueError:
        raise ValueError(f"unknown sandbox layer {layer!r} (layers: {', '.join(LAYERS)})") from None


@dataclass(frozen=True)
class SandboxLimits:
    """Per-bot limits. Deadlines are the runner's; these are backstops and fairness."""

    cpu_seconds: int = 600  # total CPU per bot process tree (RLIMIT_CPU, per process)
    file_size_mb: int = 64
    open_files: int = 256
    memory_mb: int = 1024  # cgroup memory limit (OOM kill -> outcome "memory")
    pids: int = 128
    cpu_cores: float | None = 1.0  # cgroup CPU quota per bot
    tmp_mb: int = 64  # private /tmp inside the namespaces; /dev/shm gets a quarter
    # Address-space limit for runtimes that tolerate one, when no memory cgroup applies.
    address_space_mb: int = 4096


def cache_dir() -> Path:
    """Where the judge keeps what it makes once (launcher builds, Python 2 translations)."""
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "botjudge"
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # (no geteuid: Windows)
        return Path("/var/cache/botjudge")
    return Path.home() / ".cache" / "botjudge"


class SandboxError(Exception):
    """The sandbox could not start a bot, or cannot provide a required layer."""


def minimal_env(bot: BotSpec, *, seed: int, home: Path | None) -> dict[str, str]:
    """The whole environment a bot sees: nothing of the judge's leaks through."""
    env = {
        "PATH": SAFE_PATH,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": str(home or "/tmp"),
        "JUDGE_SEED": str(seed),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.update(bot.env)
    return env


def exit_status(pid: int) -> int | None:
    """Exit status of an unreaped child without reaping it (negative: killed by that signal);
    None where there is no waitid (macOS before Python 3.13: the Popen's poll tells)."""
    if not hasattr(os, "waitid"):
        return None
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return None
    if info is None or info.si_pid == 0:
        return None
    if info.si_code == os.CLD_EXITED:
        return info.si_status
    return -info.si_status


class BotProcess(ABC):
    """A started bot: its process (pipes on stdin/stdout/stderr) and the means to end it."""

    process: trio.Process

    @property
    def pid(self) -> int:
        return self.process.pid

    def exit_status(self) -> int | None:
        """The status if the bot has exited, without reaping it, else None."""
        if self.process.returncode is not None:
            return self.process.returncode
        return exit_status(self.process.pid)

    @abstractmethod
    async def kill(self) -> None:
        """Kill the bot and everything it started, then reap. Idempotent."""

    def pause(self) -> None:
        """Stop the bot's whole tree from running (between its turns)."""
        self._signal_tree(signal.SIGSTOP)

    def resume(self) -> None:
        self._signal_tree(signal.SIGCONT)

    def _signal_tree(self, sig: int) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)

    def memory_exceeded(self) -> bool:
        """Whether the bot was killed for its memory use (layers with memory limits)."""
        return False

    def cpu_seconds(self) -> float | None:
        return None


class Sandbox(ABC):
    """Starts bots. ``layer`` names the isolation level and is recorded in results."""

    layer: str = "none"

    @abstractmethod
    async def start(self, bot: BotSpec, *, seed: int) -> BotProcess: ...

    def describe(self) -> str:
        return self.layer
