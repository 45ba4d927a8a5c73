"""The judge's side of the fork server (bots/forkserver.py): Python bots started by forking a
pre-imported interpreter instead of starting one (~11 ms of CPU each here).

The fork server is a child of the judge, started per trio run and sandbox once that run has
started a few Python bots (as warm sandboxes are). It runs the judge's own code only, sees
nothing of any bot, and forks each bot's first process as a child of the judge
(CLONE_PARENT): the judge waits for it and kills its tree exactly as a cold start's. That
process takes the launcher's steps (the launcher's own code, built as a shared object), so
the bot ends up in fresh namespaces, cgroups, file system and uid, under no_new_privs,
Landlock and seccomp, before any of its code is loaded. See docs/security.md, "Warm
sandboxes".
"""

from __future__ import annotations

import array
import contextlib
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import trio

from judge.sandbox import procs

ENV_FORK_SERVER = "BOTJUDGE_FORK_SERVER"  # 0: Python bots start without it
SCRIPT = Path(__file__).resolve().parent.parent.parent / "bots" / "forkserver.py"
ANSWER_TIMEOUT = 2.0  # a fork server that does not answer in time is given up
# A request's first byte says which descriptors follow the four (launcher.c, FORK_*): "@"
# plus 1 for a v2 cgroup, 2 for a network namespace, 4 for a template mount namespace.
FORK_BASE = ord("@")
FORK_BITS = (1, 2, 4)


class ForkServerGone(Exception):
    """The fork server died or misbehaved: the start goes on without it."""


class ForkServer:
    """One fork server process and the socket to it."""

    def __init__(self, popen: subprocess.Popen[bytes], sock: socket.socket) -> None:
        self.popen = popen
        self.sock = sock
        self.ready = False
        self.broken = False
        self.modules: frozenset[str] = frozenset()  # top-level names it imported ahead
        self._pending: deque[_Request] = deque()  # forks asked for, not answered yet
        self._reading = False  # a task waits for the socket (the others for it)
        self._reader: trio.CancelScope | None = None
        procs.add_scan_hook(self._drain_locked)

    @property
    def pid(self) -> int:
        return self.popen.pid

    @classmethod
    def spawn(
        cls, library: Path, mode: str, flags: tuple[str, ...], env: dict[str, str]
    ) -> ForkServer:
        """Starts one with the interpreter's ``flags`` and ``env`` (its bots' own: see
        IsolatedSandbox._fork_kind); it imports in the background (see is_ready)."""
        procs.become_subreaper()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            argv = [sys.executable, *flags, str(SCRIPT), str(library), str(os.getpid())]
            argv += [str(theirs.fileno()), mode]
            with procs.lock:
                popen = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    start_new_session=True,
                    close_fds=True,
                    pass_fds=(theirs.fileno(),),
                    cwd="/",
                    # (its libraries bound at start, not lazily in each bot: bots/forkserver.py)
                    env={**env, "LD_BIND_NOW": "1"},
                )
                # Trio does not wait for it; and a bot forked but never handed over (the
                # server died before answering) is in its session: reaped as a leftover.
                procs.register_spawned_locked(popen.pid)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        return cls(popen, ours)

    def is_ready(self) -> bool:
        """Has it imported everything (it says so once)? Never blocks."""
        if self.ready or self.broken:
            return self.ready
        try:
            said = self.sock.recv(1 << 20, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return False
        except OSError:
            said = b""
        if said.startswith(b"R"):
            self.ready = True
            self.modules = frozenset(os.fsdecode(name) for name in said[1:].split(b"\0"))
        else:
            self.broken = True
        return self.ready

    async def fork(
        self, words: bytes, cgroup_fd: int = -1, netns_fd: int = -1, mntns_fd: int = -1
    ) -> trio.Process:
        """A bot's first process (it becomes the launcher's relay, as a cold start's is),
        with pipes on its stdin, stdout and stderr; ``words`` are the launcher's options, the
        program's words and its environment; with ``cgroup_fd`` (a v2 cgroup's directory) the
        process starts in that cgroup; ``netns_fd`` (its slot's network namespace) is handed
        to it (the options then say -X 6), and so is ``mntns_fd``, a template mount namespace
        (-M 7). The fork's round trip is awaited (the judge's other
        matches go on meanwhile), shielded and within ANSWER_TIMEOUT; the pid is registered
        before anything may look for leftovers (procs.reap_adopted drains pending answers
        first). Raises ForkServerGone."""
        pipes = [os.pipe2(os.O_CLOEXEC) for _ in range(4)]  # stdin, stdout, stderr, words
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1], pipes[3][0]]
        ours = [pipes[0][1], pipes[1][0], pipes[2][0], pipes[3][1]]
        request = _Request()
        try:
            try:
                with procs.lock:
                    if self.broken:
                        raise ForkServerGone("broken")
                    named = (cgroup_fd, netns_fd, mntns_fd)
                    extras = [fd for fd in named if fd >= 0]
                    bits = sum(bit for bit, fd in zip(FORK_BITS, named, strict=True) if fd >= 0)
                    fds = array.array("i", theirs + extras).tobytes()
                    kind = bytes([FORK_BASE + bits])
                    self.sock.sendmsg([kind], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
                    self._pending.append(request)
            except OSError as exc:
                raise ForkServerGone(str(exc)) from exc
            finally:
                for fd in theirs:
                    os.close(fd)
            try:
                with trio.CancelScope(shield=True), trio.move_on_after(ANSWER_TIMEOUT):
                    await self._answer(request)
            except (trio.ClosedResourceError, OSError) as exc:  # closed meanwhile
                self._give_up(f"{type(exc).__name__}: {exc}")
            if request.pid is None:
                self._give_up(request.error or f"no answer within {ANSWER_TIMEOUT:g} s")
                raise ForkServerGone(request.error or "no answer")
            popen = _Adopted(request.pid)
        except BaseException:
            self.broken = True
            for fd in ours:
                os.close(fd)  # a child it forked reads no words and ends
            raise
        # Now, and only now, the start's words: the child was waiting for them (a pipe holds
        # 64 KiB, the launcher's options and a bot's words are far less: this never waits).
        try:
            _write_all(ours[3], words)
        except OSError:
            pass  # the child died: the judge sees its relay end like a cold one's
        finally:
            os.close(ours[3])
        streams = (trio.lowlevel.FdStream(fd) for fd in ours[:3])
        return trio.Process._create(popen, *streams)

    async def _answer(self, request: _Request) -> None:
        """Until ``request`` has its answer: one waiting task reads the socket at a time
        (answers come in the order of the requests), the others wait to be woken."""
        while not request.done:
            if self._reading:
                request.wake = trio.Event()
                await request.wake.wait()
                continue
            self._reading = True
            try:
                # (cancelled by _drain_locked, should it take the answers meanwhile)
                with trio.CancelScope() as self._reader:
                    await trio.lowlevel.wait_readable(self.sock)
                with procs.lock:
                    self._take_answers_locked(block=False)
            finally:
                self._reading = False
                self._reader = None
                for other in self._pending:  # (the next one reads, if its answer is not in)
                    if other.wake is not None:
                        other.wake.set()

    def _take_answers_locked(self, *, block: bool) -> None:
        """The answers there (``block``: every pending one, within ANSWER_TIMEOUT), each for
        the oldest request, its pid registered. The caller holds procs.lock."""
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while self._pending:
            try:
                if block:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise TimeoutError
                    self.sock.settimeout(left)
                    try:
                        answer = self.sock.recv(4)
                    finally:
                        self.sock.settimeout(None)
                else:
                    answer = self.sock.recv(4, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return
            except TimeoutError:
                self._give_up_locked(f"no answer within {ANSWER_TIMEOUT:g} s")
                return
            except OSError as exc:
                self._give_up_locked(str(exc))
                return
            request = self._pending.popleft()
            pid = struct.unpack("i", answer)[0] if len(answer) == 4 else -1
            if pid <= 0:
                request.error = f"answered {answer!r}"
                self._give_up_locked(request.error)
            else:
                request.pid = pid
                procs.register_spawned_locked(pid)
            request.done = True
            if request.wake is not None:
                request.wake.set()

    def _drain_locked(self) -> None:
        """Before procs scans the judge's children: the pid of every fork in flight."""
        if self._pending:
            self._take_answers_locked(block=True)
            if self._reader is not None:
                self._reader.cancel()

    def _give_up(self, why: str) -> None:
        with procs.lock:
            self._give_up_locked(why)

    def _give_up_locked(self, why: str) -> None:
        """Broken: every request in flight fails (a child forked for one is in the fork
        server's session, reaped as a leftover)."""
        self.broken = True
        while self._pending:
            request = self._pending.popleft()
            request.error = request.error or why
            request.done = True
            if request.wake is not None:
                request.wake.set()

    def close(self) -> None:
        """Ends it (its bots are not its children: they live on)."""
        procs.remove_scan_hook(self._drain_locked)
        self._give_up("closed")
        with contextlib.suppress(RuntimeError):  # (outside a trio run: nobody waits on it)
            trio.lowlevel.notify_closing(self.sock)
        with contextlib.suppress(OSError):
            self.sock.close()
        with contextlib.suppress(ProcessLookupError):
            self.popen.send_signal(signal.SIGKILL)
        self.popen.wait()
        procs.forget(self.popen.pid)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


@dataclass
class _Request:
    pid: int | None = None
    error: str | None = None
    done: bool = False
    wake: trio.Event | None = None


class _Adopted(subprocess.Popen[bytes]):
    """A Popen for a child this process did not fork itself (the fork server did, for it):
    trio waits for it and signals it like any other."""

    def __init__(self, pid: int) -> None:  # fields only: nothing is spawned
        self.args = ["(fork server)"]
        self.pid = pid
        self.returncode = None
        self.stdin = self.stdout = self.stderr = None
        self._child_created = True
        self._waitpid_lock = threading.Lock()
        self._sigint_wait_secs = 0.25
        self._communication_started = False
        self._input = None
        self._closed_child_pipe_fds = True
        self.text_mode = False
        self.encoding = self.errors = None
