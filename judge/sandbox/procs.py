"""Starting bot processes, walking process trees, and reaping what the judge adopts.

Bots are spawned from the thread running trio: a parent-death signal fires when the
*thread* that forked the child ends, and that thread outlives every bot it starts
(``run_match`` kills its bots before it returns). A spawn there blocks the event loop
for the ~0.1 ms of fork and exec (vfork); handing it to another thread cost twice
the CPU (wake-ups and GIL hand-offs) and five times the wall time. The judge is a child
subreaper, so a bot's orphans (a double-forked daemon at the base layer, the namespaces'
pid-1 helper) come back to it; it reaps only those, never the children trio waits for
itself.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import trio

PR_SET_CHILD_SUBREAPER = 36
SLOT_UID_BASE = 60000
SLOT_COUNT = 1000

# Held while a spawn registers its pid and while orphans are scanned, so a fresh
# spawn is never mistaken for an adopted orphan.
_lock = threading.Lock()
lock = _lock  # for the fork server (forkserver.py), which registers the bots it hands over
_spawned: set[int] = set()
# Session ids of bots started by this process (each bot starts a new session).
_bot_sessions: set[int] = set()
_subreaper = False
# How long a kill waits for what a bot left behind to die.
LEFTOVER_PATIENCE = 2.0


def raise_fd_limit() -> int:
    """Raise the soft RLIMIT_NOFILE to the hard limit: the judge holds ~9 descriptors per
    running bot (its three pipes, its cgroup set's files kept open). Bots get their own
    limit from the sandbox. Where there are no rlimits (Windows): 0."""
    try:
        import resource
    except ImportError:
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def become_subreaper() -> bool:
    """Make orphaned descendants come back to this process instead of init (Linux only:
    elsewhere a bot's orphans are left to init, as only the `none` layer runs there)."""
    global _subreaper
    if not _subreaper and sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return _subreaper


def _popen(
    argv: list[str],
    stdio: tuple[int, int],
    stderr: int,
    fds: tuple[int, ...],
    cwd: str | None,
    env: dict[str, str],
) -> subprocess.Popen[bytes]:
    """Fork and exec (vfork: returns once the child has exec'd), registered as a bot."""
    with _lock:
        popen = subprocess.Popen(
            argv,
            stdin=stdio[0],
            stdout=stdio[1],
            stderr=stderr,
            start_new_session=True,
            close_fds=True,
            pass_fds=fds,
            cwd=cwd,
            env=env,
        )
        _spawned.add(popen.pid)
        _bot_sessions.add(popen.pid)
    return popen


STDIN_FD = "{stdin_fd}"
STDOUT_FD = "{stdout_fd}"


async def spawn(
    argv: list[str],
    *,
    env: dict[str, str],
    cwd: str | None,
    pipes_aside: bool = False,
    extra_fds: tuple[int, ...] = (),
) -> trio.Process:
    """Start ``argv`` in a new session with pipes on stdin, stdout and stderr.

    With ``pipes_aside`` the process gets /dev/null on stdin and stdout and the pipes on
    other descriptors, whose numbers replace STDIN_FD / STDOUT_FD in ``argv``: a wrapper
    such as the namespaces' relay then never holds the bot's pipes, so the judge sees EOF
    when the bot closes them. ``extra_fds`` are passed on at their numbers as well.
    """
    become_subreaper()
    stdin_r, stdin_w = _pipe()
    stdout_r, stdout_w = _pipe()
    stderr_r, stderr_w = _pipe()
    if pipes_aside:
        argv = [
            arg.replace(STDIN_FD, str(stdin_r)).replace(STDOUT_FD, str(stdout_w)) for arg in argv
        ]
        stdio: tuple[int, int] = (subprocess.DEVNULL, subprocess.DEVNULL)
        fds: tuple[int, ...] = (stdin_r, stdout_w)
    else:
        stdio, fds = (stdin_r, stdout_w), ()
    fds += extra_fds

    try:
        popen = _popen(argv, stdio, stderr_w, fds, cwd, env)
    except BaseException:
        for fd in (stdin_w, stdout_r, stderr_r):
            os.close(fd)
        raise
    finally:
        for fd in (stdin_r, stdout_w, stderr_w):
            os.close(fd)
    streams = (trio.lowlevel.FdStream(fd) for fd in (stdin_w, stdout_r, stderr_r))
    # trio has no public constructor for a Process around a Popen made elsewhere.
    return trio.Process._create(popen, *streams)


def _pipe() -> tuple[int, int]:
    if hasattr(os, "pipe2"):
        return os.pipe2(os.O_CLOEXEC)
    return os.pipe()  # (not inherited either, PEP 446; two more system calls: macOS)


def register_spawned_locked(pid: int) -> None:
    """A child of the judge made elsewhere (the fork server), in a session of its own;
    the caller holds ``lock`` since before the child existed for the judge."""
    _spawned.add(pid)
    _bot_sessions.add(pid)


# Called (holding the lock) before the judge's children are scanned for leftovers: a fork
# server's forks in flight get their pids registered first (judge/sandbox/forkserver.py).
_scan_hooks: list[Callable[[], None]] = []


def add_scan_hook(hook: Callable[[], None]) -> None:
    with _lock:
        _scan_hooks.append(hook)


def remove_scan_hook(hook: Callable[[], None]) -> None:
    with _lock, contextlib.suppress(ValueError):
        _scan_hooks.remove(hook)


def forget(pid: int) -> None:
    """Called once trio has reaped a bot it spawned."""
    with _lock:
        _spawned.discard(pid)


def forget_session(sid: int) -> None:
    with _lock:
        _bot_sessions.discard(sid)


# -- /proc -------------------------------------------------------------------------


def stat_fields(pid: int) -> list[str] | None:
    """Fields of /proc/PID/stat from the state on (index 0 is the state letter)."""
    # Raw os calls: this runs at every bot's kill, and pathlib costs several times more.
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        raw = os.read(fd, 4096)  # (~300 bytes; a comm of 64 at most)
    except OSError:
        return None
    finally:
        os.close(fd)
    return raw[raw.rfind(b")") + 2 :].decode().split()


def children(pid: int) -> list[int]:
    """Direct children of a process (of all its threads)."""
    found: list[int] = []
    tasks_dir = f"/proc/{pid}/task"
    try:
        tasks = os.listdir(tasks_dir)
    except OSError:
        return found
    for tid in tasks:
        # Raw os calls: this runs at every bot's kill, and pathlib costs several times more.
        try:
            fd = os.open(f"{tasks_dir}/{tid}/children", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            listed = b""
            while chunk := os.read(fd, 65536):
                listed += chunk
            found.extend(int(child) for child in listed.split())
        except (OSError, ValueError):
            continue
        finally:
            os.close(fd)
    return found


def descendants(pid: int) -> list[int]:
    result: list[int] = []
    todo = children(pid)
    while todo:
        child = todo.pop()
        result.append(child)
        todo.extend(children(child))
    return result


def proc_uid(pid: int) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def signal_all(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _is_bot_leftover(pid: int, fields: list[str], extra: set[int]) -> bool:
    if pid in extra:
        return True
    try:
        sid = int(fields[3])
    except (IndexError, ValueError):
        return False
    if sid in _bot_sessions:
        return True
    uid = proc_uid(pid)
    slot_uids = range(SLOT_UID_BASE, SLOT_UID_BASE + SLOT_COUNT)
    return os.geteuid() == 0 and uid in slot_uids


def reap_adopted(extra: Iterable[int] = ()) -> int:
    """Kill and reap the bot processes this process adopted; returns how many remain.

    A child counts as a bot's leftover if it is in a bot's session, runs as a slot
    uid, or is listed in ``extra``. Children trio spawned are never touched.
    """
    known = set(extra)
    remaining = 0
    me = os.getpid()
    with _lock:
        for hook in list(_scan_hooks):
            hook()
        for pid in children(me):
            if pid in _spawned:
                continue
            fields = stat_fields(pid)
            if fields is None or not _is_bot_leftover(pid, fields, known):
                continue
            if fields[0] == "Z":
                with contextlib.suppress(ChildProcessError):
                    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG)
            else:
                signal_all([pid], 9)
                remaining += 1
    return remaining


async def reap_adopted_until_clear(extra: Iterable[int] = (), patience: float = 2.0) -> bool:
    """Reap adopted leftovers until none remain (they die within milliseconds of SIGKILL)."""
    known = set(extra)
    if not reap_adopted(known):
        return True  # (the usual case, without a cancel scope)
    with trio.move_on_after(patience):
        while reap_adopted(known):  # noqa: ASYNC110 (polling /proc: nothing to wait on)
            await trio.sleep(0.002)
        return True
    return False


# -- what holds a bot's pipes after it is gone ----------------------------------------


def writers_remain(fd: int) -> bool:
    """Whether some process still holds the write end of the pipe read at ``fd`` (the read
    end of a pipe polls POLLHUP once no writer is left, whatever data is still unread)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return not any(event & select.POLLHUP for _, event in poller.poll(0))


def pipe_holders(fds: Iterable[int]) -> list[int]:
    """Every process (but this one) with the write end of one of the pipes read at ``fds``
    open: a /proc scan of every process this user may read, for the rare bot whose leftover
    keeps them open. (A read end is not the bot's: a process forked by the judge has it.)"""
    links = set()
    for fd in fds:
        with contextlib.suppress(OSError):
            links.add(f"pipe:[{os.fstat(fd).st_ino}]")
    me = str(os.getpid())
    holders = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or entry == me:
            continue
        try:
            open_fds = os.listdir(f"/proc/{entry}/fd")
        except OSError:
            continue  # gone, or not ours to read
        for name in open_fds:
            try:
                if os.readlink(f"/proc/{entry}/fd/{name}") in links and _writes(entry, name):
                    holders.append(int(entry))
                    break
            except OSError:
                continue
    return holders


def _writes(pid: str, fd: str) -> bool:
    with open(f"/proc/{pid}/fdinfo/{fd}") as info:
        for line in info:
            if line.startswith("flags:"):
                return int(line.split()[1], 8) & os.O_ACCMODE == os.O_WRONLY
    return False


async def kill_pipe_holders(fds: Iterable[int]) -> bool:
    """Kill what still holds the pipes read at ``fds`` (a bot's daemon in a session of its
    own, which its group's kill missed) with its descendants, and reap those that came back
    to this subreaper; True once nothing holds them."""
    fds = [fd for fd in fds if writers_remain(fd)]
    if not fds:
        return True
    killed: set[int] = set()
    with trio.move_on_after(LEFTOVER_PATIENCE):
        while holders := pipe_holders(fds):
            for holder in holders:
                tree = [holder, *descendants(holder)]
                signal_all(tree, 9)
                killed.update(tree)
            await trio.sleep(0.002)
    await reap_adopted_until_clear(killed)
    return not any(writers_remain(fd) for fd in fds)


# -- uid slots -----------------------------------------------------------------
# A slot is held through a lock file, so several judge processes on one machine never
# give two running bots the same uid.

SLOT_DIR = Path("/run/botjudge-slots")
_slot_files: dict[int, int] = {}
# Released slots whose lock this process keeps (every process of their last bot is gone):
# the next bot takes one without a mkdir, an open and a flock. (A forked child of the
# judge shares the locks' open files, so only the process that took them reuses them.)
IDLE_SLOTS = 64
_idle_slots: list[int] = []
_idle_slots_owner = os.getpid()


def acquire_slot() -> int:
    """A uid (60000 + slot) that no other running bot on this machine uses."""
    import fcntl

    global _idle_slots_owner
    with _lock:
        if _idle_slots_owner != os.getpid():
            _idle_slots.clear()  # the parent's: in use there
            _idle_slots_owner = os.getpid()
        if _idle_slots:
            return _idle_slots.pop()
        SLOT_DIR.mkdir(mode=0o700, exist_ok=True)
        for slot in range(SLOT_COUNT):
            if slot in _slot_files:
                continue
            fd = os.open(SLOT_DIR / f"{slot}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            _slot_files[slot] = fd
            return slot
    raise RuntimeError("all sandbox uid slots are in use")


def release_slot(slot: int) -> None:
    """Call it once every process of the slot's bot is gone."""
    with _lock:
        if _idle_slots_owner == os.getpid() and len(_idle_slots) < IDLE_SLOTS:
            if slot in _slot_files:
                _idle_slots.append(slot)
            return
        fd = _slot_files.pop(slot, None)
        netns = _slot_netns.pop(slot, None) if _netns_owner == os.getpid() else None
    for kept in (fd, netns):
        if kept is not None:
            os.close(kept)


# A network namespace per slot, kept for the slot's next bots (launcher -X): making one and
# tearing it down (the kernel's cleanup_net) is CPU on every bot start. It belongs to the
# judge's user namespace (the judge is root when it has slots), so no bot can change it.
CLONE_NEWNET = 0x40000000
_slot_netns: dict[int, int] = {}
_netns_owner = os.getpid()
_netns_failed = False


def slot_netns(slot: int) -> int | None:
    """The descriptor of ``slot``'s network namespace (made on its first use), or None if
    this process cannot make one. The launcher checks it holds no socket before a bot
    enters it (a socket that outlived its bot: the bot gets a new namespace instead)."""
    global _netns_owner, _netns_failed
    with _lock:
        if _netns_owner != os.getpid():  # a forked child: the parent's are the parent's
            _slot_netns.clear()
            _netns_owner, _netns_failed = os.getpid(), False
        fd = _slot_netns.get(slot)
        if fd is not None or _netns_failed or slot not in _slot_files:
            return fd
    fd = _new_netns()
    with _lock:
        if fd is None:
            _netns_failed = True
        else:
            _slot_netns[slot] = fd
    return fd


def _new_netns() -> int | None:
    """A new, empty network namespace, made by a thread of its own (unshare moves only the
    calling thread, which then ends)."""
    made: list[int] = []

    def make() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWNET) == 0:
            made.append(os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC))

    thread = threading.Thread(target=make, name="network namespace")
    thread.start()
    thread.join()
    return made[0] if made else None


PR_SET_DUMPABLE = 4


def make_judge_untraceable() -> None:
    """Mark the judge process non-dumpable: a process of the same uid without
    CAP_SYS_PTRACE (a bot of the base layer) can then neither ptrace it nor read its
    /proc files. It cannot stop the judge by attaching to it and waiting."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
