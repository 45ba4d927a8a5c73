"""Per-bot cgroups: memory, pids and CPU limits, whole-tree kill and freeze.

Works with cgroup v1 controllers (memory, pids, cpu), a v2 hierarchy, or the hybrid
of both (v1 controllers plus a v2 mount without controllers that still offers
``cgroup.kill``, ``cgroup.freeze`` and ``cpu.stat``). Bot cgroups are created as
children of the judge's own cgroups, so any limit the judge runs under still holds, and
reused bot after bot (see _CgroupSet); the launcher joins them (launcher.c says how).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import itertools
import os
import re
import threading
from collections import OrderedDict
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
    # Bots enter their v2 cgroup by clone3(CLONE_INTO_CGROUP), not by a cgroup.procs write.
    clone_into: bool = True
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
            if not self.clone_into:
                parts.append("v2 joined through cgroup.procs (clone3 into a cgroup fails here)")
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


@dataclass
class _CgroupSet:
    """One bot's worth of cgroup directories, used by one bot after another.

    Creating and removing them (a mkdir, limit writes and an rmdir per hierarchy) was a
    fixed cost of every start and kill; a released set goes back to a pool instead,
    empty, thawed, with its CPU quota refreshed and its counters remembered as the next
    bot's zero.
    """

    owner: int  # the judge process that made it (a forked child must not share it)
    dirs: list[Path]
    v2: Path | None
    memory: tuple[str, Path] | None
    cpu: tuple[str, Path, str] | None  # (kind, dir, quota line to rewrite on release)
    can_kill: bool
    can_freeze: bool
    v2_has_limits: bool  # memory, pids or cpu live in the v2 directory too
    oom_kills: int = 0  # the memory cgroup's OOM kill count when the set was released
    cpu_usec: int = 0  # its CPU time then
    # Its files, kept open: a bot's start and end read and write a few each (idle bots are
    # frozen and thawed at every turn of a game with one mover at a time), and an open and a
    # close around each read or write cost as much as the read or write itself.
    files: dict[str, int] = field(default_factory=dict)
    # Their paths as text, by directory and name: a pathlib join and its str() cost several
    # times the freeze write itself, and idle bots are frozen and thawed every turn.
    names: dict[tuple[Path, str], str] = field(default_factory=dict)

    def file(self, directory: Path, name: str) -> str:
        """The path of ``name`` in ``directory`` (one of the set's), as text."""
        key = (directory, name)
        path = self.names.get(key)
        if path is None:
            path = self.names[key] = str(directory / name)
        return path

    def _fd(self, path: Path | str, flags: int) -> int:
        key = path if isinstance(path, str) else str(path)
        fd = self.files.get(key)
        if fd is None:
            fd = self.files[key] = os.open(key, flags | os.O_CLOEXEC)
        return fd

    def read(self, path: Path | str) -> str:
        """A file's text, read again from its start (OSError as a read of the file)."""
        try:
            fd = self._fd(path, os.O_RDONLY)
            text = b""
            while chunk := os.pread(fd, 65536, len(text)):
                text += chunk
        except OSError:
            self.close_file(path)
            raise
        return text.decode()

    def write(self, path: Path | str, value: object) -> None:
        try:
            os.write(self._fd(path, os.O_WRONLY), f"{value}\n".encode())
        except OSError:
            self.close_file(path)
            raise

    def directory_fd(self) -> int:
        """The v2 directory, opened O_PATH (what clone3 enters); the set keeps it."""
        assert self.v2 is not None
        return self._fd(self.v2, os.O_PATH | os.O_DIRECTORY)

    def write_freeze(self, frozen: bool) -> None:
        if self.v2 is None:
            return
        path = self.file(self.v2, "cgroup.freeze")
        try:
            os.write(self._fd(path, os.O_WRONLY), b"1\n" if frozen else b"0\n")
        except OSError as exc:
            self.close_file(path)
            if exc.errno not in (errno.EINVAL, errno.ENOENT, errno.EACCES, errno.ENODEV):
                raise

    def close_file(self, path: Path | str) -> None:
        fd = self.files.pop(path if isinstance(path, str) else str(path), None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def close_files(self) -> None:
        for fd in self.files.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self.files.clear()
        self.names.clear()


IDLE_SETS = 32  # released sets kept for reuse, per judge process
_idle: OrderedDict[tuple[object, ...], list[_CgroupSet]] = OrderedDict()
_idle_lock = threading.Lock()
_exit_hook = False


def _pool_key(hierarchy: Hierarchy, limits: CgroupLimits) -> tuple[object, ...]:
    v1 = tuple(sorted((name, str(path)) for name, path in hierarchy.v1.items()))
    return (v1, str(hierarchy.v2), tuple(sorted(hierarchy.v2_controllers)), limits)


def _take_idle(key: tuple[object, ...]) -> _CgroupSet | None:
    with _idle_lock:
        sets = _idle.get(key)
        while sets:
            found = sets.pop()
            if found.owner == os.getpid():
                return found
    return None


def _give_back(key: tuple[object, ...], cgroup_set: _CgroupSet) -> None:
    global _exit_hook
    evicted: list[_CgroupSet] = []
    with _idle_lock:
        _idle.setdefault(key, []).append(cgroup_set)
        _idle.move_to_end(key)
        total = sum(len(sets) for sets in _idle.values())
        for sets in _idle.values():  # least recently used limits first
            while sets and total > IDLE_SETS:
                evicted.append(sets.pop(0))
                total -= 1
        if not _exit_hook:
            atexit.register(remove_idle)
            _exit_hook = True
    for old in evicted:
        old.close_files()
        _rmdir_all(old.dirs)


def remove_idle() -> None:
    """Remove this process's pooled (empty) bot cgroups; runs at exit."""
    with _idle_lock:
        sets = [s for group in _idle.values() for s in group if s.owner == os.getpid()]
        _idle.clear()
    for cgroup_set in sets:
        cgroup_set.close_files()
        _rmdir_all(cgroup_set.dirs)
    _remove_later([])


def _rmdir_all(dirs: list[Path]) -> list[Path]:
    """rmdir each directory; returns those still there (EBUSY: processes still leaving)."""
    left = []
    for path in reversed(dirs):
        try:
            path.rmdir()
        except FileNotFoundError:
            pass
        except OSError as exc:
            if exc.errno == errno.EBUSY:
                left.append(path)
            # Otherwise nothing the judge can fix; remove_stale() tries again next start.
    left.reverse()
    return left


def _make_set(hierarchy: Hierarchy, limits: CgroupLimits) -> _CgroupSet:
    name = f"{PREFIX}{os.getpid()}-{next(_counter)}"
    dirs: list[Path] = []

    def make(parent: Path) -> Path:
        path = parent / name
        if path not in dirs:
            path.mkdir()
            dirs.append(path)
        return path

    try:
        v2 = make(hierarchy.v2) if hierarchy.v2 is not None else None
        memory = None
        mem = hierarchy.dir_for("memory")
        if mem is not None:
            path = make(mem[1])
            memory = (mem[0], path)
            if mem[0] == "v2":
                _write(path / "memory.max", limits.memory_bytes)
                _write_if_exists(path / "memory.swap.max", 0)
            else:
                _write(path / "memory.limit_in_bytes", limits.memory_bytes)
                _write_if_exists(path / "memory.memsw.limit_in_bytes", limits.memory_bytes)
        pids = hierarchy.dir_for("pids")
        if pids is not None:
            _write(make(pids[1]) / "pids.max", limits.pids)
        cpu = None
        where = hierarchy.dir_for("cpu")
        if where is not None and limits.cpu_cores:
            path = make(where[1])
            period = 100_000
            quota = max(1000, int(limits.cpu_cores * period))
            if where[0] == "v2":
                cpu = (where[0], path, f"{quota} {period}")
                _write(path / "cpu.max", cpu[2])
            else:
                _write(path / "cpu.cfs_period_us", period)
                cpu = (where[0], path, str(quota))
                _write(path / "cpu.cfs_quota_us", quota)
    except OSError:
        _rmdir_all(dirs)
        raise
    can_kill = v2 is not None and (v2 / "cgroup.kill").exists()
    can_freeze = v2 is not None and (v2 / "cgroup.freeze").exists()
    v2_has_limits = any(
        (where := hierarchy.dir_for(name)) is not None and where[0] == "v2"
        for name in ("memory", "pids", "cpu")
    )
    made = _CgroupSet(os.getpid(), dirs, v2, memory, cpu, can_kill, can_freeze, v2_has_limits)
    made.oom_kills = _read_counter(made, "oom")
    return made


def _read_counter(cgroup_set: _CgroupSet, which: str) -> int:
    if which == "oom":
        if cgroup_set.memory is None:
            return 0
        kind, path = cgroup_set.memory
        file = cgroup_set.file(path, "memory.events" if kind == "v2" else "memory.oom_control")
        pattern = "oom_kill"
    else:
        if cgroup_set.v2 is None:
            return 0
        file, pattern = cgroup_set.file(cgroup_set.v2, "cpu.stat"), "usage_usec"
    try:
        text = cgroup_set.read(file)
    except OSError:
        return 0
    found = re.search(rf"^{pattern} (\d+)", text, re.M)
    return int(found.group(1)) if found else 0


class BotCgroups:
    """The cgroups of one bot: ready before the spawn, emptied and released after the kill."""

    def __init__(self, hierarchy: Hierarchy, limits: CgroupLimits) -> None:
        self._key = _pool_key(hierarchy, limits)
        self._set = _take_idle(self._key) or _make_set(hierarchy, limits)
        self.dirs = self._set.dirs
        self.v2 = self._set.v2
        self.memory = self._set.memory
        self._released = False
        self._oom_seen = False
        self._frozen = False
        self._v2_killed = False
        self._emptied = False  # found empty once: it stays so
        self._final_cpu: float | None = None

    def directory_fd(self) -> int:
        """The v2 directory, opened O_PATH: the set's own descriptor (do not close it)."""
        return self._set.directory_fd()

    # -- while the bot runs ------------------------------------------------------
    def oom_killed(self) -> bool:
        if self._oom_seen or self._released or self.memory is None:
            return self._oom_seen
        self._oom_seen = _read_counter(self._set, "oom") > self._set.oom_kills
        return self._oom_seen

    def can_freeze(self) -> bool:
        return self._set.can_freeze and not self._released

    def freeze(self, frozen: bool) -> None:
        if self.v2 is not None and not self._released:
            self._set.write_freeze(frozen)
            self._frozen = frozen

    def cpu_seconds(self) -> float | None:
        if self._released:
            return self._final_cpu
        if self.v2 is None:
            return None
        return (_read_counter(self._set, "cpu") - self._set.cpu_usec) / 1e6

    def pids(self) -> set[int]:
        return set() if self._released else self._listed()

    def _listed(self, strict: bool = False) -> set[int]:
        """The bot's processes; with ``strict``, OSError or ValueError if a list could not be
        read (rather than taking it for empty)."""
        found: set[int] = set()
        # Every process of the bot is in its v2 cgroup (it is entered first) when there is one.
        for path in self.dirs[:1] if self.v2 is not None else self.dirs:
            try:
                found.update(
                    int(p) for p in self._set.read(self._set.file(path, "cgroup.procs")).split()
                )
            except (OSError, ValueError):
                if strict:
                    raise
                continue
        return found

    # -- the end -------------------------------------------------------------------
    def kill(self) -> None:
        """SIGKILL every process in the bot's cgroups (the whole tree, daemons included)."""
        if self._released:
            return
        try:
            alive = self._listed(strict=True)
        except (OSError, ValueError):  # not known to be empty: kill as if it were not
            alive = set()
        else:
            if not alive:
                # Nothing to kill (the bot ended by itself): a write to cgroup.kill now would
                # only make the v2 directory unfit for the next bot (see _renew_killed_v2).
                # Nothing can enter an empty set: only its own processes could fork into it.
                self._emptied = True
                return
        with contextlib.suppress(OSError):  # signals below still do the job
            # Once is enough: the kernel also kills what is forked after the write.
            if self._set.can_kill and self.v2 is not None and not self._v2_killed:
                self._v2_killed = True
                _write_if_exists(self.v2 / "cgroup.kill", 1)
            if self._frozen:
                self.freeze(False)
        signal_all(alive, 9)

    async def kill_until_empty(self, patience: float = 2.0) -> bool:
        """Kill until no process is left in the cgroups; False if something would not die."""
        if self._emptied:
            return True
        with trio.move_on_after(patience):
            while self.pids():
                self.kill()
                if not self.pids():
                    break
                await trio.sleep(0.002)
            return True
        return False

    def release(self) -> None:
        """Give the cgroups back for the next bot if they are empty, else remove what can be.

        Call it once the bot's processes are reaped: a zombie still counts in pids.current.
        """
        if self._released:
            return
        cgroup_set = self._set
        oom_kills = _read_counter(cgroup_set, "oom")
        self._oom_seen = self._oom_seen or oom_kills > cgroup_set.oom_kills
        self._released = True
        try:
            if self._frozen and self.v2 is not None:  # (raises if it fails: not reused)
                cgroup_set.write(cgroup_set.file(self.v2, "cgroup.freeze"), 0)
            usage = _read_counter(cgroup_set, "cpu")
            self._final_cpu = (usage - cgroup_set.cpu_usec) / 1e6 if self.v2 else None
            empty = self._emptied or not self._listed(strict=True)
            if empty and self._renew_killed_v2(cgroup_set):
                # (Found empty before the first read: nothing was OOM-killed since.)
                cgroup_set.oom_kills = (
                    oom_kills if self._emptied else _read_counter(cgroup_set, "oom")
                )
                cgroup_set.cpu_usec = 0 if self._v2_killed else usage  # a fresh v2 starts at 0
                if cgroup_set.cpu is not None:
                    # Rewriting the quota refills it: a killed spinner leaves no throttling.
                    kind, path, line = cgroup_set.cpu
                    quota = cgroup_set.file(path, "cpu.max" if kind == "v2" else "cpu.cfs_quota_us")
                    cgroup_set.write(quota, line)
                _give_back(self._key, cgroup_set)
                return
        except (OSError, ValueError):
            pass
        # Not empty, or in a state the judge does not know: not reused.
        cgroup_set.close_files()
        _remove_later(_rmdir_all(self.dirs))

    def _renew_killed_v2(self, cgroup_set: _CgroupSet) -> bool:
        """After cgroup.kill, a fresh v2 directory; False if the set cannot be reused.

        The kernel compares a cgroup's kill count with the forking process's own cgroup,
        so every clone3(CLONE_INTO_CGROUP) into a cgroup that was ever killed is killed.
        """
        old = cgroup_set.v2
        if not self._v2_killed or old is None:
            return True
        cgroup_set.close_files()
        if cgroup_set.v2_has_limits or _rmdir_all([old]):  # a pure v2 host: nothing to keep
            return False
        fresh = old.with_name(f"{PREFIX}{os.getpid()}-{next(_counter)}")
        fresh.mkdir()
        cgroup_set.dirs[cgroup_set.dirs.index(old)] = fresh
        cgroup_set.v2 = fresh
        return True


_leftovers: list[Path] = []


def _remove_later(dirs: list[Path]) -> None:
    """Directories that would not go yet (EBUSY) are retried at the next release and at exit."""
    with _idle_lock:
        _leftovers.extend(dirs)
        retry, _leftovers[:] = list(_leftovers), []
    left = _rmdir_all(retry)
    with _idle_lock:
        _leftovers.extend(left)


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
