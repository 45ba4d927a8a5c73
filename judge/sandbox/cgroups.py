"""Per-bot cgroups: memory, pids and CPU limits, whole-tree kill and freeze.

Works with cgroup v1 controllers (memory, pids, cpu), a v2 hierarchy, or the hybrid
of both (v1 controllers plus a v2 mount without controllers that still offers
``cgroup.kill``, ``cgroup.freeze`` and ``cpu.stat``). Bot cgroups are created as
children of the judge's own cgroups, so any limit the judge runs under still holds.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import trio

from judge.sandbox.procs import signal_all

PREFIX = "botjudge-"
_counter = itertools.count()


@dataclass
class Hierarchy:
    """Where the judge may create bot cgroups, or why it may not."""

    v1: dict[str, Path] = field(default_factory=dict)  # controller -> the judge's cgroup dir
    v2: Path | None = None  # the judge's v2 cgroup dir
    v2_controllers: set[str] = field(default_factory=set)  # usable in v2 children
    v2_kill: bool = False  # children have cgroup.kill and cgroup.freeze
    problems: list[str] = field(default_factory=list)

    def dir_for(self, controller: str) -> tuple[str, Path] | None:
        if controller in self.v2_controllers and self.v2 is not None:
            return ("v2", self.v2)
        if controller in self.v1:
            return ("v1", self.v1[controller])
        return None

    @property
    def usable(self) -> bool:
        return self.dir_for("memory") is not None and self.dir_for("pids") is not None

    def describe(self) -> str:
        parts = []
        for controller in ("memory", "pids", "cpu"):
            where = self.dir_for(controller)
            parts.append(f"{controller}: {where[0] if where else 'no'}")
        if self.v2 is not None:
            parts.append(f"v2 kill/freeze: {'yes' if self.v2_kill else 'no'}")
        return ", ".join(parts)


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, fstype, super options) of every cgroup mount."""
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, _, right = line.partition(" - ")
        fields, extra = left.split(), right.split()
        if len(extra) >= 3 and extra[0] in ("cgroup", "cgroup2"):
            found.append((fields[4], extra[0], set(extra[2].split(","))))
    return found


def _writable_child(parent: Path) -> tuple[str | None, set[str]]:
    """(None, a child's files) if a child cgroup can be made and removed here, else (why, {})."""
    probe = parent / f"{PREFIX}probe-{os.getpid()}"
    try:
        probe.mkdir()
        files = set(os.listdir(probe))
        probe.rmdir()
    except OSError as exc:
        return f"cannot create cgroups in {parent}: {exc.strerror}", set()
    return None, files


def discover() -> Hierarchy:
    hierarchy = Hierarchy()
    try:
        membership = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = _mounts()
    except OSError as exc:
        hierarchy.problems.append(f"cannot read the cgroup layout: {exc.strerror}")
        return hierarchy
    v2_path = None
    v1_paths: dict[str, str] = {}
    for line in membership:
        hid, controllers, path = line.split(":", 2)
        if hid == "0":
            v2_path = path
        for controller in controllers.split(","):
            v1_paths[controller] = path
    for mount, fstype, options in mounts:
        if fstype == "cgroup2" and v2_path is not None:
            hierarchy.v2 = Path(mount + v2_path.rstrip("/"))
        elif fstype == "cgroup":
            for controller in ("memory", "pids", "cpu"):
                if controller in options and controller in v1_paths:
                    path = v1_paths[controller].rstrip("/")
                    hierarchy.v1[controller] = Path(mount + path)
    for controller, directory in list(hierarchy.v1.items()):
        problem, _ = _writable_child(directory)
        if problem:
            hierarchy.problems.append(f"v1 {controller}: {problem}")
            del hierarchy.v1[controller]
    if hierarchy.v2 is not None:
        problem, files = _writable_child(hierarchy.v2)
        if problem:
            hierarchy.problems.append(f"v2: {problem}")
            hierarchy.v2 = None
        else:
            hierarchy.v2_kill = "cgroup.kill" in files
            hierarchy.v2_controllers = _enable_v2_controllers(hierarchy)
    if not hierarchy.usable:
        hierarchy.problems.append("no usable memory and pids controllers")
    return hierarchy


def _enable_v2_controllers(hierarchy: Hierarchy) -> set[str]:
    assert hierarchy.v2 is not None
    try:
        available = set((hierarchy.v2 / "cgroup.controllers").read_text().split())
        enabled = set((hierarchy.v2 / "cgroup.subtree_control").read_text().split())
    except OSError:
        return set()
    wanted = {"memory", "pids", "cpu"} & available
    for controller in wanted - enabled:
        try:
            (hierarchy.v2 / "cgroup.subtree_control").write_text(f"+{controller}")
            enabled.add(controller)
        except OSError as exc:
            hierarchy.problems.append(
                f"v2 {controller}: cannot enable in {hierarchy.v2} ({exc.strerror}); run the judge "
                "in a delegated cgroup of its own (systemd-run --scope -p Delegate=yes)"
            )
    return wanted & enabled


@dataclass(frozen=True)
class CgroupLimits:
    memory_bytes: int
    pids: int
    cpu_cores: float | None


class BotCgroups:
    """The cgroups of one bot: created before the spawn, removed after the kill."""

    def __init__(self, hierarchy: Hierarchy, limits: CgroupLimits) -> None:
        self.name = f"{PREFIX}{os.getpid()}-{next(_counter)}"
        self.dirs: list[Path] = []
        self.v2: Path | None = None
        self.memory: tuple[str, Path] | None = None
        self._oom_seen = False
        try:
            self._create(hierarchy, limits)
        except OSError:
            self.remove_now()
            raise

    def _make(self, parent: Path) -> Path:
        path = parent / self.name
        if path not in self.dirs:
            path.mkdir()
            self.dirs.append(path)
        return path

    def _create(self, hierarchy: Hierarchy, limits: CgroupLimits) -> None:
        if hierarchy.v2 is not None:
            self.v2 = self._make(hierarchy.v2)
        mem = hierarchy.dir_for("memory")
        if mem is not None:
            path = self._make(mem[1])
            self.memory = (mem[0], path)
            if mem[0] == "v2":
                _write(path / "memory.max", limits.memory_bytes)
                _write_if_exists(path / "memory.swap.max", 0)
            else:
                _write(path / "memory.limit_in_bytes", limits.memory_bytes)
                _write_if_exists(path / "memory.memsw.limit_in_bytes", limits.memory_bytes)
        pids = hierarchy.dir_for("pids")
        if pids is not None:
            _write(self._make(pids[1]) / "pids.max", limits.pids)
        cpu = hierarchy.dir_for("cpu")
        if cpu is not None and limits.cpu_cores:
            path = self._make(cpu[1])
            period = 100_000
            quota = max(1000, int(limits.cpu_cores * period))
            if cpu[0] == "v2":
                _write(path / "cpu.max", f"{quota} {period}")
            else:
                _write(path / "cpu.cfs_period_us", period)
                _write(path / "cpu.cfs_quota_us", quota)

    # -- while the bot runs ------------------------------------------------------
    def oom_killed(self) -> bool:
        if self._oom_seen or self.memory is None:
            return self._oom_seen
        kind, path = self.memory
        try:
            text = (path / ("memory.events" if kind == "v2" else "memory.oom_control")).read_text()
        except OSError:
            return False
        found = re.search(r"^oom_kill (\d+)", text, re.M)
        self._oom_seen = bool(found and int(found.group(1)) > 0)
        return self._oom_seen

    def can_freeze(self) -> bool:
        return self.v2 is not None and (self.v2 / "cgroup.freeze").exists()

    def freeze(self, frozen: bool) -> None:
        if self.v2 is not None:
            _write_if_exists(self.v2 / "cgroup.freeze", 1 if frozen else 0)

    def cpu_seconds(self) -> float | None:
        if self.v2 is not None:
            try:
                text = (self.v2 / "cpu.stat").read_text()
            except OSError:
                return None
            found = re.search(r"^usage_usec (\d+)", text, re.M)
            return int(found.group(1)) / 1e6 if found else None
        return None

    def pids(self) -> set[int]:
        found: set[int] = set()
        for path in self.dirs:
            try:
                found.update(int(p) for p in (path / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                continue
        return found

    # -- the end -------------------------------------------------------------------
    def kill(self) -> None:
        """SIGKILL every process in the bot's cgroups (the whole tree, daemons included)."""
        self.oom_killed()  # remember before the cgroup goes
        with contextlib.suppress(OSError):  # signals below still do the job
            if self.v2 is not None and (self.v2 / "cgroup.kill").exists():
                _write_if_exists(self.v2 / "cgroup.kill", 1)
            self.freeze(False)
        signal_all(self.pids(), 9)

    async def kill_and_remove(self, patience: float = 2.0) -> bool:
        """Kill until empty, then remove the directories; False if something would not die."""
        with trio.move_on_after(patience):
            while True:
                self.kill()
                if not self.pids():
                    break
                await trio.sleep(0.002)
            while self.dirs:
                self.remove_now()
                if self.dirs:
                    await trio.sleep(0.002)  # rmdir right after the last exit may say EBUSY
            return True
        return False

    def remove_now(self) -> None:
        """Remove what can be removed; EBUSY (processes still leaving) is retried later."""
        for path in list(reversed(self.dirs)):
            try:
                path.rmdir()
            except FileNotFoundError:
                pass
            except OSError as exc:
                if exc.errno == errno.EBUSY:
                    continue
                # Nothing the judge can fix here; remove_stale() tries again next start.
            self.dirs.remove(path)


def _write(path: Path, value: object) -> None:
    path.write_text(f"{value}\n")


def _write_if_exists(path: Path, value: object) -> None:
    try:
        _write(path, value)
    except FileNotFoundError:
        pass
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOENT, errno.EACCES):
            raise


def remove_stale(hierarchy: Hierarchy) -> None:
    """Remove empty bot cgroups left by judges that died."""
    parents = [*hierarchy.v1.values(), *([hierarchy.v2] if hierarchy.v2 else [])]
    for parent in parents:
        try:
            entries = list(parent.glob(f"{PREFIX}*-*"))
        except OSError:
            continue
        for entry in entries:
            owner = entry.name[len(PREFIX) :].split("-")[0]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                with contextlib.suppress(OSError):
                    entry.rmdir()
