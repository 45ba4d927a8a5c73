"""The isolating layers: base (a supervising launcher), namespaces, cgroups.

Process chain per bot (the launcher is judge/sandbox/launcher.c; no other program)::

    base:        judge -> launcher -s (rlimits, nnp, supervisor) -> bot
    namespaces:  judge -> launcher (rlimits; new namespaces; stays as a relay)
                       -> its pid 1 (builds the bot's file system, drops the uid; reaps)
                       -> bot (Landlock, seccomp, then exec)
    cgroups:     as namespaces, after the launcher joined the bot's cgroups
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.machinery
import os
import re
import shutil
import signal
import sys
from collections import Counter, OrderedDict, deque
from collections.abc import Awaitable, Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import trio

from judge.models import BotSpec
from judge.sandbox import procs, skeleton, templates
from judge.sandbox.base import (
    SAFE_PATH,
    BotProcess,
    Sandbox,
    SandboxError,
    SandboxLimits,
    layer_rank,
    minimal_env,
)
from judge.sandbox.cgroups import BotCgroups, CgroupLimits, Hierarchy
from judge.sandbox.forkserver import ENV_FORK_SERVER, ForkServer, ForkServerGone
from judge.sandbox.launcher import launcher_binary, launcher_library

KILL_GRACE = 1.0
# Warm sandboxes kept per sandbox and trio run (BOTJUDGE_SANDBOX_POOL; 0: none).
ENV_POOL = "BOTJUDGE_SANDBOX_POOL"
DEFAULT_POOL = 4
WARM_AFTER = 4  # starts of a run before its pool is filled (a single match uses none)
GO_MAX = 60_000
FORKED_NETNS_FD = 6  # where a forked child holds its slot's network namespace (launcher.c)
FORKED_MNTNS_FD = 7  # and its template mount namespace
BOTS_DIR = Path(__file__).resolve().parent.parent.parent / "bots"
GAMES_DIR = BOTS_DIR.parent / "games"
FORK_SERVER_RESPAWNS = 3  # fork servers a run starts again after one died; then none
# A bot's PYTHON* settings a fork server can share (it is started with them): the adapters'.
FORK_SERVER_SETTINGS = ("PYTHONPATH", "PYTHONHASHSEED")
# A warm Python bot: the judge's Python, as built-in bots run, waiting to be told its script.
WARM_PYTHON = (
    sys.executable,
    "-S",
    "-s",
    str(BOTS_DIR / "warm.py"),
)  # the launcher reads up to 64 KiB; a pipe holds that without blocking
WATCHED_WRAPPERS = 6
PREPARED_CACHE_SIZE = 256  # bot specs whose paths are remembered per sandbox
MB = 1024 * 1024
# Shown read-only inside the namespaces; nothing else of the host is.
SYSTEM_DIRS = ("/usr", "/opt")
MERGED_USR_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = skeleton.ETC_ENTRIES
# Directories that are never a bot's own box: binding one would show the host's shared files.
SHARED_DIRS = {
    "/",
    "/tmp",
    "/var/tmp",
    "/dev",
    "/dev/shm",
    "/run",
    "/home",
    "/root",
    "/etc",
    "/proc",
    "/sys",
    "/var",
    "/usr",
    "/work",
}
# Runtimes that reserve large address ranges up front and fail under RLIMIT_AS.
NO_ADDRESS_LIMIT = (
    "node",
    "nodejs",
    "java",
    "dotnet",
    "mono",
    "go",
    "deno",
    "bun",
    "julia",
    "erl",
    "beam.smp",
    "ghc",
    "luajit",
    "pypy",
    "pypy3",
    "sbcl",
    "ruby",
)


def _find_program(program: str, env: dict[str, str], cwd: Path | None) -> Path | None:
    if os.sep in program:
        path = Path(program) if cwd is None else cwd / program  # "./bot" is in the bot's dir
        return path if path.exists() else None
    found = shutil.which(program, path=env.get("PATH", SAFE_PATH))
    return Path(found) if found else None


def _interpreter_names(program: Path) -> set[str]:
    """The program's name, and for a script its #! interpreter (through env)."""
    names = {program.name, program.resolve().name}
    try:
        with program.open("rb") as handle:
            first = handle.readline(256)
    except OSError:
        return names
    if first.startswith(b"#!"):
        words = first[2:].decode(errors="replace").split()
        names.update(Path(word).name for word in words[:2])
    return names


SHELLS = ("sh", "bash", "dash")


def _programs_in_script(argv: tuple[str, ...]) -> set[str]:
    """For ``sh -c SCRIPT`` (a server's build), the names of the programs the script may run:
    javac or go started by a shell need the JDK's /etc settings and no address limit as much
    as when they are the command."""
    if len(argv) < 3 or Path(argv[0]).name not in SHELLS or argv[1] != "-c":
        return set()
    return {Path(word).name for word in re.findall(r"[^\s;&|(){}<>'\"`$=]+", argv[2])}


def _is_under(path: Path, parents: list[Path]) -> bool:
    return any(path == parent or parent in path.parents for parent in parents)


def _no_address_limit(names: set[str]) -> bool:
    return any(name.startswith(runtime) for name in names for runtime in NO_ADDRESS_LIMIT)


def _file_identity(path: Path) -> tuple[int, int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_mode)


@dataclass
class _Prepared:
    """A bot's program and the paths it must see, worked out once per bot spec."""

    program: Path
    identity: tuple[int, int, int] | None  # the program file when this was worked out
    cwd: Path | None
    interpreters: set[str]
    binds: list[str] = field(default_factory=list)  # host paths shown read-only, in place
    script_names: frozenset[str] | None = None  # module names the script's directory holds
    fork_mode: str | None = None  # the kind of fork server for what it is shown
    # (with cgroups, the judge's pid) -> its forked starts' shared options, as sent
    forked_words: dict[tuple[bool, int], tuple[int, bytes]] = field(default_factory=dict)
    tree_args: list[str] | None = None  # its tree's launcher options (its template's key)

    def still_valid(self) -> bool:
        """The program is the same file as before (one stat: a replaced bot is redone)."""
        return _file_identity(self.program) == self.identity


class SupervisedProcess(BotProcess):
    """A bot under the base layer's supervising launcher (the process we hold)."""

    def __init__(self, process: trio.Process) -> None:
        self.process = process
        self._killed = False

    def pause(self) -> None:
        self._send(signal.SIGUSR1)

    def resume(self) -> None:
        self._send(signal.SIGUSR2)

    def _send(self, sig: int) -> None:
        if self.process.returncode is None:
            procs.signal_all([self.process.pid], sig)

    async def kill(self) -> None:
        pid = self.process.pid
        with trio.CancelScope(shield=True):
            if not self._killed:
                self._killed = True
                # The supervisor kills the tree below it, then itself.
                self._send(signal.SIGTERM)
                self._send(signal.SIGCONT)
                with trio.move_on_after(KILL_GRACE):
                    await self.process.wait()
                if self.process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(pid, signal.SIGKILL)
            await self.process.wait()
            procs.forget(pid)
            await procs.reap_adopted_until_clear()
            procs.forget_session(pid)


class NamespacedProcess(BotProcess):
    """A bot in its own namespaces; the process we hold is the launcher left as a relay."""

    def __init__(self, process: trio.Process, cgroups: BotCgroups | None, slot: int | None) -> None:
        self.process = process
        self.cgroups = cgroups
        self.slot = slot
        self.started = "cold"  # or "warm" (a sandbox made ahead), "forked" (the fork server)
        self._killed = False
        self._paused: list[int] = []

    def pause(self) -> None:
        cgroups = self.cgroups
        if cgroups is not None and cgroups.can_freeze():
            # No exit check first (a waitpid each): freezing what is left of a bot that has
            # exited is harmless, and its kill thaws it.
            cgroups.freeze(True)
        elif self.process.returncode is None:
            self._paused = [self.process.pid, *procs.descendants(self.process.pid)]
            procs.signal_all(self._paused, signal.SIGSTOP)

    def resume(self) -> None:
        if self.cgroups is not None and self.cgroups.can_freeze():
            self.cgroups.freeze(False)
        else:
            stopped = set(self._paused) | set(procs.descendants(self.process.pid))
            procs.signal_all(stopped, signal.SIGCONT)
            self._paused = []

    def memory_exceeded(self) -> bool:
        return self.cgroups is not None and self.cgroups.oom_killed()

    def cpu_seconds(self) -> float | None:
        return self.cgroups.cpu_seconds() if self.cgroups is not None else None

    async def kill(self) -> None:
        pid = self.process.pid
        with trio.CancelScope(shield=True):
            watched: list[int] = []
            if not self._killed:
                self._killed = True
                # The namespace's pid 1 ends a moment after the relay we hold, and only once
                # everything in its namespace is gone. A pidfd says when, instead of
                # polling /proc every few ms for the orphans the judge adopts.
                watched = _pidfds(_wrappers(pid))
                if self.cgroups is not None:
                    self.cgroups.kill()
                for fd in watched:
                    with contextlib.suppress(OSError):
                        signal.pidfd_send_signal(fd, signal.SIGKILL)
                # pid 1 dies with the relay (parent-death signal), the namespace with pid 1.
                procs.signal_all([pid], signal.SIGKILL)
            if self.process.returncode is None:  # (else no wait: trio's takes a lock, yields)
                await self.process.wait()
            procs.forget(pid)
            if watched:  # (mostly none: a bot that ended by itself left nothing below it)
                with trio.move_on_after(KILL_GRACE):
                    for fd in watched:
                        await trio.lowlevel.wait_readable(fd)
                for fd in watched:
                    os.close(fd)
            if self.cgroups is not None:
                await self.cgroups.kill_until_empty()
            await procs.reap_adopted_until_clear()
            if self.cgroups is not None:
                self.cgroups.release()
            procs.forget_session(pid)
            if self.slot is not None:
                procs.release_slot(self.slot)
                self.slot = None


def _wrappers(pid: int) -> list[int]:
    """The processes just below the one the judge holds: pid 1 of the bot's namespace (and
    the second relay at the cgroups layer); a few at most, whatever the bot has started."""
    found = procs.children(pid)
    for child in list(found):
        found += procs.children(child)
    return found[:WATCHED_WRAPPERS]


def _pidfds(pids: list[int]) -> list[int]:
    fds = []
    for pid in pids:
        with contextlib.suppress(OSError):
            fds.append(os.pidfd_open(pid))
    return fds


class IsolatedSandbox(Sandbox):
    """One of the layers "base", "namespaces", "cgroups" (see LAYERS)."""

    def __init__(
        self,
        layer: str = "namespaces",
        limits: SandboxLimits | None = None,
        hierarchy: Hierarchy | None = None,
        pool: int | None = None,
        fork_server: bool | None = None,
    ) -> None:
        if layer_rank(layer) < layer_rank("base"):
            raise ValueError("IsolatedSandbox starts at the base layer; use PlainSandbox")
        if layer == "cgroups" and (hierarchy is None or not hierarchy.usable):
            raise SandboxError("the cgroups layer needs usable memory and pids cgroups")
        self.layer = layer
        self.limits = limits or SandboxLimits()
        self.hierarchy = hierarchy
        self.use_slot_uids = os.geteuid() == 0
        procs.make_judge_untraceable()
        procs.raise_fd_limit()
        self._prepared: OrderedDict[tuple[object, ...], _Prepared] = OrderedDict()
        if pool is None:
            pool = int(os.environ.get(ENV_POOL, DEFAULT_POOL))
        self.pool_size = max(0, pool) if layer != "base" else 0
        self._pools: trio.lowlevel.RunVar[dict[object, _WarmPool]] = trio.lowlevel.RunVar(
            "warm sandboxes"
        )
        if fork_server is None:
            fork_server = os.environ.get(ENV_FORK_SERVER) != "0"
        # Part of the pool: BOTJUDGE_SANDBOX_POOL=0 turns it off too.
        self.fork_server = fork_server and self.pool_size > 0 and layer != "base"
        self._forkers: trio.lowlevel.RunVar[dict[object, _ForkSlot]] = trio.lowlevel.RunVar(
            "fork servers"
        )
        # With keep_fork_servers(): this process's fork servers, whatever the run.
        self._kept_forkers: dict[object, _ForkSlot] | None = None
        self._kept_by = 0
        self.forked: Counter[str] = Counter()  # bots started by a fork server, by its kind

    def describe(self) -> str:
        uid = ", a uid per slot (60000+)" if self.use_slot_uids and self.layer != "base" else ""
        return f"{self.layer}{uid}"

    # -- argv ------------------------------------------------------------------------
    def _rlimits(self, prepared: _Prepared | None, with_memory_cgroup: bool) -> list[str]:
        """The bot's rlimits; with ``prepared`` None, all but the address-space limit (which
        depends on the runtime: a warm start sends it with the bot, see _address_limit)."""
        lim = self.limits
        args = [
            "-r",
            f"cpu:{lim.cpu_seconds}:{lim.cpu_seconds + 1}",
            "-r",
            f"fsize:{lim.file_size_mb * MB}:{lim.file_size_mb * MB}",
            "-r",
            f"nofile:{lim.open_files}:{lim.open_files}",
            "-r",
            "core:0:0",
        ]
        if prepared is not None:
            args += self._address_limit(prepared, with_memory_cgroup)
        return args

    def _address_limit(self, prepared: _Prepared, with_memory_cgroup: bool) -> list[str]:
        if with_memory_cgroup or _no_address_limit(prepared.interpreters):
            return []
        size = self.limits.address_space_mb * MB
        return ["-r", f"as:{size}:{size}"]

    async def start(self, bot: BotSpec, *, seed: int) -> BotProcess:
        if not bot.argv:
            raise SandboxError(f"cannot start {bot.name}: empty command")
        launcher = launcher_binary()
        prepared = self._prepare(bot, seed, launcher)
        if self.layer == "base":
            return await self._start_base(bot, seed, launcher, prepared)
        return await self._start_namespaced(bot, seed, launcher, prepared)

    def _prepare(self, bot: BotSpec, seed: int, launcher: Path) -> _Prepared:
        """What a start needs of the bot's files, cached: the same bot starts many times."""
        cwd = bot.cwd or bot.box
        env_probe = minimal_env(bot, seed=seed, home=None)
        key = (bot.argv, cwd, bot.box, bot.readonly_paths, env_probe["PATH"], launcher)
        cached = self._prepared.get(key)
        if cached is not None and cached.still_valid():
            self._prepared.move_to_end(key)
            return cached
        program = _find_program(bot.argv[0], env_probe, cwd)
        if program is None:
            raise SandboxError(f"cannot start {bot.name}: {bot.argv[0]!r} not found")
        runtimes = _interpreter_names(program) | _programs_in_script(bot.argv)
        prepared = _Prepared(program, _file_identity(program), cwd, runtimes)
        if self.layer != "base":
            host_paths = self._host_paths(bot, program, cwd)
            if self.use_slot_uids:
                for path in host_paths:
                    _check_world_readable(bot, path)
            prepared.binds = [str(path) for path in host_paths]
        self._prepared[key] = prepared
        if len(self._prepared) > PREPARED_CACHE_SIZE:
            self._prepared.popitem(last=False)
        return prepared

    async def _start_base(
        self, bot: BotSpec, seed: int, launcher: Path, prepared: _Prepared
    ) -> BotProcess:
        cwd = prepared.cwd
        argv = [
            str(launcher),
            *self._rlimits(prepared, False),
            "-p",
            str(os.getpid()),
            "-n",
            "-s",
            # A bot left uid 0 (no namespaces here) keeps no capability over the judge.
            *(["-C"] if os.geteuid() == 0 else []),
            "--",
            *bot.argv,
        ]
        try:
            process = await procs.spawn(
                argv, env=minimal_env(bot, seed=seed, home=cwd), cwd=str(cwd) if cwd else None
            )
        except OSError as exc:
            raise SandboxError(f"cannot start {bot.name}: {exc.strerror or exc}") from exc
        return SupervisedProcess(process)

    def _host_paths(self, bot: BotSpec, program: Path, cwd: Path | None) -> list[Path]:
        """Host directories (and files) the bot must see read-only, outermost first."""
        wanted: list[Path] = []
        if bot.box is not None:
            wanted.append(bot.box)
        if cwd is not None:
            wanted.append(cwd)
        wanted.extend(bot.readonly_paths)
        resolved = program.resolve()
        if Path(bot.argv[0]) == Path(sys.executable) or resolved == Path(sys.executable).resolve():
            wanted += [Path(sys.prefix), Path(sys.base_prefix)]
        # Nothing else: no path a bot's command names is shown unless it is in the box or
        # in a directory the judge chose (readonly_paths, e.g. the CLI's --allow-path).
        system = [Path(d) for d in SYSTEM_DIRS]
        chosen: list[Path] = []
        for path in sorted({Path(os.path.abspath(p)) for p in wanted}, key=lambda p: len(p.parts)):
            # /bin/x is /usr/bin/x on merged-/usr systems: judge a path by where it leads.
            if _is_under(Path(os.path.realpath(path)), system) or _is_under(path, chosen):
                continue
            if str(path) in SHARED_DIRS:
                raise SandboxError(
                    f"cannot start {bot.name}: {path} would be shown to the bot whole; "
                    "put the bot in a directory of its own"
                )
            chosen.append(path)
        return chosen

    def _tree_args(
        self,
        binds: list[str],
        cwd: Path | None,
        runtimes: AbstractSet[str] = frozenset(),
        *,
        warm: bool = False,
    ) -> list[str]:
        """The launcher's options that build the bot's file system; ``binds`` shown read-only."""
        lim = self.limits
        args = ["-N", *_system_binds()]
        java = any(name.startswith("java") for name in runtimes)
        # A prepared directory is bound read-only whole, so nothing can be mounted inside it.
        etc = None if java else skeleton.etc_snapshot()
        if etc is not None:
            args += ["-E", str(etc)]
        else:
            for name in ETC_FILES:  # each bind costs; skip what this host lacks
                if os.path.exists(f"/etc/{name}"):
                    args += ["-B", f"/etc/{name}"]
        if java:
            for java_dir in Path("/etc").glob("java*"):  # the JDK's config lives there
                args += ["-B", str(java_dir)]
        args += ["-T", f"{lim.tmp_mb}m", "-H", f"{max(1, lim.tmp_mb // 4)}m"]
        for source in binds:
            args += ["-B", source]
        if not warm:  # a warm sandbox gets its working directory with the bot
            args += ["-c", str(cwd) if cwd else "/tmp"]
        return args

    # -- warm sandboxes (see _WarmPool) ---------------------------------------------------
    def _pool(self, key: object, make: Callable[[], Awaitable[_Warm]]) -> _WarmPool:
        """This trio run's pool of warm sandboxes of one kind (made by ``make``)."""
        try:
            pools = self._pools.get()
        except LookupError:
            pools = {}
            self._pools.set(pools)
        pool = pools.get(key)
        if pool is None:
            pool = pools[key] = _WarmPool(self.pool_size, make)
            trio.lowlevel.spawn_system_task(self._keep_warm, pool, name="warm sandboxes")
        return pool

    def _warm_pool(self, prepared: _Prepared) -> _WarmPool | None:
        """The pool for a bot that can start in a warm sandbox: every bot's tree is the same
        but for its own binds, except Java's (its /etc is made file by file)."""
        if self.pool_size == 0 or any(name.startswith("java") for name in prepared.interpreters):
            return None
        if skeleton.etc_snapshot() is None:
            return None
        return self._pool("any", lambda: self._spawn_warm(launcher_binary()))

    def warm_pids(self) -> set[int]:
        """The launchers of this run's unused warm sandboxes (no bot's, nothing of a bot's
        runs there yet)."""
        found = set()
        with contextlib.suppress(LookupError):
            pools = self._pools.get()
            found = {entry.bot.pid for pool in pools.values() for entry in pool.ready}
        return found | self.fork_server_pids()

    def fork_server_pids(self) -> set[int]:
        """This run's fork servers (they run the judge's code only, never a bot's)."""
        slots = self._fork_slots(create=False)
        return {slot.server.pid for slot in slots.values() if slot.server is not None}

    def keep_fork_servers(self) -> None:
        """Keep fork servers from one trio run to the next, until this process ends: for a
        worker process that plays batch after batch of matches, each batch a run of its
        own (the local and Dask executors), which would otherwise start and import one
        anew for every batch. (By default they end with their run.)"""
        if self._kept_forkers is None or self._kept_by != os.getpid():
            self._kept_forkers, self._kept_by = {}, os.getpid()
            atexit.register(self.close_fork_servers)

    def close_fork_servers(self) -> None:
        """End the fork servers kept across runs (a forked child leaves its parent's)."""
        if self._kept_forkers is None or self._kept_by != os.getpid():
            return
        for slot in self._kept_forkers.values():
            if slot.server is not None:
                slot.server.close()
        self._kept_forkers.clear()

    def _fork_slots(self, create: bool = True) -> dict[object, _ForkSlot]:
        if self._kept_forkers is not None and self._kept_by == os.getpid():
            return self._kept_forkers
        try:
            return self._forkers.get()
        except LookupError:
            slots: dict[object, _ForkSlot] = {}
            if create:
                self._forkers.set(slots)
            return slots
        except RuntimeError:  # outside a trio run: none of a run's
            if create:
                raise
            return {}

    async def _keep_warm(self, pool: _WarmPool) -> None:
        """Refills the pool after each hand-out; ends its sandboxes unused when the run ends."""
        try:
            while True:
                while len(pool.ready) < pool.target:
                    pool.ready.append(await pool.make())
                pool.wake = trio.Event()
                await pool.wake.wait()
        except Exception as exc:  # the pool is an optimisation: starts go on cold
            pool.size = pool.target = 0
            print(f"warm sandboxes disabled: {exc}", file=sys.stderr)
        finally:
            with trio.CancelScope(shield=True):
                while pool.ready:
                    await pool.ready.popleft().discard()

    async def _spawn_warm(self, launcher: Path) -> _Warm:
        """A sandbox made ahead: namespaces, cgroups, slot uid, limits and the whole file
        system but the bot's own binds; its pid 1 waits for the bot on a pipe (launcher -W).
        Used once, by one bot, then killed like any other."""
        go_read, go_write = os.pipe2(os.O_CLOEXEC)
        try:
            process, cgroups, slot = await self._spawn_launcher(
                "a warm sandbox",
                launcher,
                None,
                ["-W", str(go_read)],
                {"PATH": SAFE_PATH},
                (go_read,),
            )
        except BaseException:
            os.close(go_write)
            raise
        finally:
            os.close(go_read)
        return _Warm(NamespacedProcess(process, cgroups, slot), go_write)

    def _go_words(self, bot: BotSpec, seed: int, prepared: _Prepared, cgroups: bool) -> bytes:
        words = [word for path in prepared.binds for word in ("-B", path)]
        words += ["-c", str(prepared.cwd) if prepared.cwd else "/tmp"]
        words += self._address_limit(prepared, cgroups)
        words += ["--", str(len(bot.argv)), *bot.argv]
        env = minimal_env(bot, seed=seed, home=Path("/tmp"))
        words += [f"{key}={value}" for key, value in env.items()]
        return b"".join(os.fsencode(word) + b"\0" for word in words)

    # -- warm Python (bots/warm.py) -------------------------------------------------------
    def _warm_python(self, bot: BotSpec, prepared: _Prepared, launcher: Path) -> _WarmPool | None:
        """The pool for a Python bot that can be a warm interpreter: `python -S -s SCRIPT` run
        by the judge's Python, no box or working directory of its own, bots/ among what it
        is shown (built-ins: bots/, games/, the judge's Python), no PYTHON* setting of its
        own. One pool per set of directories shown."""
        if self.pool_size == 0 or len(bot.argv) < 4 or bot.argv[:3] != WARM_PYTHON[:3]:
            return None
        if not bot.argv[3].endswith(".py") or prepared.cwd is not None:
            return None
        if any(key.startswith("PYTHON") for key in bot.env):
            return None
        spec = BotSpec(name="warm python", argv=WARM_PYTHON, readonly_paths=bot.readonly_paths)
        warm = self._prepare(spec, 0, launcher)
        if set(warm.binds) != set(prepared.binds) or warm.interpreters != prepared.interpreters:
            return None
        if not _is_under(BOTS_DIR, [Path(path) for path in warm.binds]):
            return None  # bots/warm.py must be there to run

        async def make() -> _Warm:
            process, cgroups, slot = await self._spawn_launcher(
                spec.name,
                launcher,
                warm,
                ["--", *WARM_PYTHON],
                minimal_env(spec, seed=0, home=Path("/tmp")),
                (),
            )
            return _Warm(NamespacedProcess(process, cgroups, slot), -1)

        return self._pool(("python", tuple(sorted(warm.binds))), make)

    async def _start_warm_python(
        self, bot: BotSpec, seed: int, pool: _WarmPool, launcher: Path
    ) -> BotProcess | None:
        entry = pool.take()
        pool.wake.set()
        if entry is None:
            return None
        entry.bot.started = "warm"
        env = minimal_env(bot, seed=seed, home=Path("/tmp"))
        words = ["/tmp", str(len(bot.argv) - 3), *bot.argv[3:]]
        words += [f"{key}={value}" for key, value in env.items()]
        block = b"\0".join(os.fsencode(word) for word in words)
        stdin = entry.bot.process.stdin
        assert stdin is not None
        try:
            await stdin.send_all(b"%08d" % len(block) + block)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await entry.discard()
            return None
        return entry.bot

    # -- the fork server (judge/sandbox/forkserver.py) -------------------------------------
    def _fork_kind(self, bot: BotSpec, prepared: _Prepared) -> _ForkKind | None:
        """The fork server this bot can be forked by, or None: `python [-S] -s SCRIPT.py` run
        by the judge's Python, with no PYTHON* setting but PYTHONPATH and PYTHONHASHSEED
        (the fork server is started with the same flags and those settings). Only what the
        bot is shown may be imported ahead ("stdlib", "bots", "games")."""
        argv = bot.argv
        if not self.fork_server or len(argv) < 3 or argv[0] != WARM_PYTHON[0]:
            return None
        at = 1
        while at < len(argv) and argv[at] in ("-S", "-s") and argv[at] not in argv[1:at]:
            at += 1
        if "-s" not in argv[1:at] or at >= len(argv) or not argv[at].endswith(".py"):
            return None
        python_env = tuple(sorted((k, v) for k, v in bot.env.items() if k.startswith("PYTHON")))
        if any(key not in FORK_SERVER_SETTINGS for key, _ in python_env):
            return None
        if prepared.fork_mode is None:  # (what it is shown: the same for every start)
            shown = [Path(path) for path in prepared.binds]
            # A script beside a bots.py (the games' adapters) would import its own.
            own = self._script_names(argv[at], prepared) & {"bots", "games"}
            if own or not _is_under(BOTS_DIR, shown):
                prepared.fork_mode = "stdlib"
            else:
                prepared.fork_mode = "games" if _is_under(GAMES_DIR, shown) else "bots"
        return _ForkKind(prepared.fork_mode, tuple(argv[1:at]), python_env, at)

    def _fork_server(self, kind: _ForkKind) -> ForkServer | None:
        """This run's fork server of ``kind`` if it is ready; started after the run's first
        WARM_AFTER starts of such bots (a single match starts none)."""
        slots = self._fork_slots()
        slot = slots.setdefault(kind[:3], _ForkSlot())
        slot.starts += 1
        server = slot.server
        if server is not None and server.broken:
            server.close()
            slot.server = server = None
        if server is None:
            if slot.starts <= WARM_AFTER or slot.spawned > FORK_SERVER_RESPAWNS:
                return None
            library = launcher_library()
            if library is None:
                slot.spawned = FORK_SERVER_RESPAWNS + 1
                return None
            spec = BotSpec(name="fork server", argv=WARM_PYTHON)
            env = {**minimal_env(spec, seed=0, home=Path("/tmp")), **dict(kind.python_env)}
            try:
                slot.server = ForkServer.spawn(library, kind.mode, kind.flags, env)
            except OSError as exc:
                print(f"fork server not started: {exc}", file=sys.stderr)
                slot.spawned = FORK_SERVER_RESPAWNS + 1
                return None
            slot.spawned += 1
            if slots is not self._kept_forkers:
                trio.lowlevel.spawn_system_task(_end_with_run, slot.server, name="fork server")
            return None  # it imports meanwhile
        return server if server.is_ready() else None

    def _may_fork(self, server: ForkServer, script: str, prepared: _Prepared) -> bool:
        """The script's directory (its sys.path[0]) holds no module named like one the fork
        server imported ahead: a cold start would import the bot's own."""
        return not (self._script_names(script, prepared) & server.modules)

    def _script_names(self, script: str, prepared: _Prepared) -> frozenset[str]:
        if prepared.script_names is None:
            path = Path(script)
            if not path.is_absolute():
                path = (prepared.cwd or Path("/tmp")) / path
            prepared.script_names = frozenset(_module_names(path.parent))
        return prepared.script_names

    async def _start_forked(
        self, bot: BotSpec, seed: int, launcher: Path, prepared: _Prepared
    ) -> BotProcess | None:
        kind = self._fork_kind(bot, prepared)
        server = self._fork_server(kind) if kind is not None else None
        if server is None or kind is None:
            return None
        if not self._may_fork(server, bot.argv[kind.script_at], prepared):
            return None
        cgroups, slot = self._acquire(bot.name)
        v2_fd = -1
        try:
            clone_into = self.hierarchy is not None and self.hierarchy.clone_into
            if cgroups is not None and cgroups.v2 is not None and clone_into:
                # Forked straight into it: no relay outside (launcher.c, -G). (The set keeps
                # the descriptor open for its next bots.)
                v2_fd = cgroups.directory_fd()
            netns = procs.slot_netns(slot) if slot is not None else None
            # (a template is entered as root only: with a slot uid)
            mntns = self._template(prepared, launcher) if slot is not None else None
            own = self._own_args(
                cgroups,
                slot,
                born_in_v2=v2_fd >= 0,
                netns_fd=None if netns is None else FORKED_NETNS_FD,
                mntns_fd=None if mntns is None else FORKED_MNTNS_FD,
            )
            count, shared = self._forked_shared_words(prepared, cgroups is not None)
            program = bot.argv[kind.script_at :]
            env = minimal_env(bot, seed=seed, home=Path("/tmp"))
            rest = [str(len(program)), *program, *(f"{k}={v}" for k, v in env.items())]
            encoded = [os.fsencode(word) for word in rest]
            if any(b"\0" in word for word in encoded):
                raise ForkServerGone("a NUL in the bot's words")  # (cold: exec refuses it)
            head = [str(1 + len(own) + count), str(launcher), *own]
            block = b"".join(os.fsencode(word) + b"\0" for word in head) + shared
            block += b"\0".join(encoded)
            if len(block) >= GO_MAX:  # more than the child reads (launcher.c): start cold
                raise ForkServerGone("too many words")
            process = await server.fork(
                block, v2_fd, -1 if netns is None else netns, -1 if mntns is None else mntns
            )
        except ForkServerGone:
            self._release(cgroups, slot)
            return None  # started another way
        except BaseException:
            self._release(cgroups, slot)
            raise
        forked = NamespacedProcess(process, cgroups, slot)
        forked.started = "forked"
        self.forked[kind.mode] += 1
        return forked

    async def _start_namespaced(
        self, bot: BotSpec, seed: int, launcher: Path, prepared: _Prepared
    ) -> BotProcess:
        forked = await self._start_forked(bot, seed, launcher, prepared)
        if forked is not None:
            return forked
        python = self._warm_python(bot, prepared, launcher)
        if python is not None:
            started = await self._start_warm_python(bot, seed, python, launcher)
            if started is not None:
                return started
        pool = self._warm_pool(prepared) if python is None else None
        if pool is not None:
            entry = pool.take()
            if entry is None:
                entry = await self._spawn_warm(launcher)
            pool.wake.set()
            words = self._go_words(bot, seed, prepared, entry.bot.cgroups is not None)
            if len(words) <= GO_MAX and b"\0" not in b"".join(map(os.fsencode, bot.argv)):
                try:
                    os.write(entry.go_fd, words)
                except OSError:  # its pid 1 died before it got a bot: start one cold
                    await entry.discard()
                else:
                    os.close(entry.go_fd)
                    entry.bot.started = "warm"
                    return entry.bot
            else:
                await entry.discard()
        process, cgroups, slot = await self._spawn_launcher(
            bot.name,
            launcher,
            prepared,
            ["--", *bot.argv],
            minimal_env(bot, seed=seed, home=Path("/tmp")),
            (),
        )
        return NamespacedProcess(process, cgroups, slot)

    async def _spawn_launcher(
        self,
        name: str,
        launcher: Path,
        prepared: _Prepared | None,
        tail: list[str],
        env: dict[str, str],
        extra_fds: tuple[int, ...],
    ) -> tuple[trio.Process, BotCgroups | None, int | None]:
        """The namespaced launcher for ``prepared``'s bot, or with None the part every bot
        shares (a warm sandbox; ``tail`` then names the descriptor the rest comes on)."""
        cgroups, slot = self._acquire(name)
        try:
            netns = procs.slot_netns(slot) if slot is not None else None
            outer = self._outer_args(launcher, prepared, cgroups, slot, netns_fd=netns) + tail
            if netns is not None:
                extra_fds += (netns,)
            process = await procs.spawn(
                outer, env=env, cwd="/", pipes_aside=True, extra_fds=extra_fds
            )
        except BaseException as exc:
            self._release(cgroups, slot)
            if isinstance(exc, OSError):
                raise SandboxError(f"cannot start {name}: {exc.strerror or exc}") from exc
            raise
        return process, cgroups, slot

    def _acquire(self, name: str) -> tuple[BotCgroups | None, int | None]:
        """A bot's slot uid (as root) and its cgroups (at the cgroups layer)."""
        try:
            slot = procs.acquire_slot() if self.use_slot_uids else None
        except (RuntimeError, OSError) as exc:
            raise SandboxError(f"cannot start {name}: {exc}") from exc
        cgroups: BotCgroups | None = None
        if self.layer == "cgroups":
            assert self.hierarchy is not None
            lim = self.limits
            try:
                cgroups = BotCgroups(
                    self.hierarchy, CgroupLimits(lim.memory_mb * MB, lim.pids, lim.cpu_cores)
                )
            except BaseException as exc:
                self._release(None, slot)
                if isinstance(exc, OSError):
                    raise SandboxError(f"cannot start {name}: {exc.strerror or exc}") from exc
                raise
        return cgroups, slot

    def _release(self, cgroups: BotCgroups | None, slot: int | None) -> None:
        if cgroups is not None:
            cgroups.release()
        if slot is not None:
            procs.release_slot(slot)

    def _outer_args(
        self,
        launcher: Path,
        prepared: _Prepared | None,
        cgroups: BotCgroups | None,
        slot: int | None,
        *,
        netns_fd: int | None = None,
    ) -> list[str]:
        """The launcher's options for a namespaced bot (all but the program); with
        ``netns_fd`` it enters the slot's kept network namespace (procs.slot_netns)."""
        own = self._own_args(cgroups, slot, born_in_v2=False, netns_fd=netns_fd)
        return [str(launcher), *own, *self._shared_args(prepared, cgroups is not None)]

    def _own_args(
        self,
        cgroups: BotCgroups | None,
        slot: int | None,
        *,
        born_in_v2: bool,
        netns_fd: int | None,
        mntns_fd: int | None = None,
    ) -> list[str]:
        """The options that differ from start to start: the cgroups, the slot's uid, its
        network namespace, a template mount namespace; with ``born_in_v2`` the first
        process starts in the v2 cgroup already (the fork server's)."""
        own: list[str] = []
        if cgroups is not None:
            assert self.hierarchy is not None
            clone_into = self.hierarchy.clone_into
            for directory in cgroups.dirs:
                entered_by_clone = clone_into and directory == cgroups.v2
                if not (entered_by_clone and born_in_v2):
                    own += ["-G" if entered_by_clone else "-g", str(directory)]
        if slot is not None:
            uid = procs.SLOT_UID_BASE + slot
            own += ["-u", f"{uid}:{uid}"]
            # Per uid, so it bounds this bot alone (pid 1 counts too).
            own += ["-r", f"nproc:{self.limits.pids + 4}:{self.limits.pids + 4}"]
        if netns_fd is not None:
            own += ["-X", str(netns_fd)]
        if mntns_fd is not None:
            own += ["-M", str(mntns_fd)]
        return own

    def _shared_args(self, prepared: _Prepared | None, cgroups: bool) -> list[str]:
        """The options every start of ``prepared``'s bot has: rlimits, the judge's pid, the
        file system, the restrictions."""
        shared = self._rlimits(prepared, cgroups)
        shared += ["-p", str(os.getpid())]
        if prepared is None:
            shared += self._tree_args([], None, warm=True)
        else:
            shared += self._tree_args(prepared.binds, prepared.cwd, prepared.interpreters)
        shared += [
            "-n",
            "-L",
            "-w",
            "/tmp",
            "-w",
            "/dev/shm",
            "-S",
            "-i",
            f"{procs.STDIN_FD}:{procs.STDOUT_FD}",
        ]
        return shared

    def _template(self, prepared: _Prepared, launcher: Path) -> int | None:
        """The template mount namespace of this bot's tree (judge/sandbox/templates.py)."""
        if prepared.tree_args is None:
            prepared.tree_args = self._tree_args(
                prepared.binds, None, prepared.interpreters, warm=True
            )
        return templates.template_fd(launcher, prepared.tree_args)

    def _forked_shared_words(self, prepared: _Prepared, cgroups: bool) -> tuple[int, bytes]:
        """_shared_args for a forked start (its pipes are on 3 and 4), NUL-terminated, and
        their count: worked out once per bot spec and process (~60 us a start otherwise)."""
        key = (cgroups, os.getpid())
        cached = prepared.forked_words.get(key)
        if cached is None:
            shared = [
                arg.replace(procs.STDIN_FD, "3").replace(procs.STDOUT_FD, "4")
                for arg in self._shared_args(prepared, cgroups)
            ]
            encoded = b"".join(os.fsencode(arg) + b"\0" for arg in shared)
            cached = prepared.forked_words[key] = (len(shared), encoded)
        return cached


class _ForkKind(NamedTuple):
    """A kind of fork server: what it imports ahead, its interpreter's flags and PYTHON*
    settings (a bot's must be the same), and where the bot's script is in its command."""

    mode: str
    flags: tuple[str, ...]
    python_env: tuple[tuple[str, str], ...]
    script_at: int


@dataclass
class _ForkSlot:
    """A run's fork server of one kind: how many starts asked, how many were spawned."""

    server: ForkServer | None = None
    starts: int = 0
    spawned: int = 0


async def _end_with_run(server: ForkServer) -> None:
    try:
        await trio.sleep_forever()
    finally:
        server.close()


@dataclass
class _Warm:
    """A warm sandbox: its launcher (held as the bot it will be) and the pipe to its pid 1."""

    bot: NamespacedProcess
    go_fd: int  # -1 for a warm Python, which is told on its stdin

    async def discard(self) -> None:
        if self.go_fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.go_fd)  # pid 1 reads EOF and ends
        await self.bot.kill()


class _WarmPool:
    """Warm sandboxes of one IsolatedSandbox in one trio run. Its size follows demand: after
    the run's first WARM_AFTER starts (cold), each start that finds it empty asks for one
    more, up to ``size``. A run of one match (`judge match`, a Dask task) never makes one it
    would not use; a tourney wastes at most ``size`` at its end."""

    def __init__(self, size: int, make: Callable[[], Awaitable[_Warm]]) -> None:
        self.size = size
        self.make = make
        self.starts = 0
        self.target = 0
        self.ready: deque[_Warm] = deque()
        self.wake = trio.Event()

    def take(self) -> _Warm | None:
        self.starts += 1
        if self.ready:
            return self.ready.popleft()
        if self.starts > WARM_AFTER:
            self.target = min(self.size, self.target + 1)
        return None


def _module_names(directory: Path) -> set[str]:
    """What ``import NAME`` could find in ``directory``: modules by their suffixes, and
    (erring on the side of a cold start) every subdirectory."""
    suffixes = importlib.machinery.all_suffixes()
    names = set()
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            if entry.is_dir():
                names.add(entry.name)
            for suffix in suffixes:
                if entry.name.endswith(suffix):
                    names.add(entry.name[: -len(suffix)])
    return names


_system_cache: list[str] | None = None


def _system_binds() -> list[str]:
    """Launcher options showing SYSTEM_DIRS and the merged-/usr links (looked up once)."""
    global _system_cache
    if _system_cache is None:
        args: list[str] = []
        for directory in SYSTEM_DIRS:
            if Path(directory).is_dir():
                args += ["-B", directory]
        for link in MERGED_USR_LINKS:
            path = Path(link)
            if path.is_symlink():
                args += ["-l", f"{link}:{os.readlink(path)}"]
            elif path.is_dir():
                args += ["-B", link]
        _system_cache = args
    return list(_system_cache)


def _check_world_readable(bot: BotSpec, path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise SandboxError(f"cannot start {bot.name}: {path}: {exc.strerror}") from None
    needed = 0o005 if path.is_dir() else 0o004
    if mode & needed != needed:
        raise SandboxError(
            f"cannot start {bot.name}: {path} is not readable by the sandbox's unprivileged uid "
            f"(mode {mode & 0o777:o}); make it world-readable (chmod o+rX)"
        )
