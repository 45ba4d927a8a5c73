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
from pathlib import Path

import trio

from judge.sandbox import procs

ENV_FORK_SERVER = "BOTJUDGE_FORK_SERVER"  # 0: Python bots start without it
SCRIPT = Path(__file__).resolve().parent.parent.parent / "bots" / "forkserver.py"
ANSWER_TIMEOUT = 2.0  # a fork server that does not answer in time is given up


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
                    env=env,
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

    def fork(self, words: bytes, cgroup_fd: int = -1) -> trio.Process:
        """A bot's first process (it becomes the launcher's relay, as a cold start's is),
        with pipes on its stdin, stdout and stderr; ``words`` are the launcher's options, the
        program's words and its environment; with ``cgroup_fd`` (a v2 cgroup's directory) the
        process starts in that cgroup. Blocks for the fork's round trip (well under a
        millisecond): the pid is registered before anything else may look for leftovers.
        Raises ForkServerGone."""
        pipes = [os.pipe2(os.O_CLOEXEC) for _ in range(4)]  # stdin, stdout, stderr, words
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1], pipes[3][0]]
        ours = [pipes[0][1], pipes[1][0], pipes[2][0], pipes[3][1]]
        pid = -1
        try:
            with procs.lock:
                try:
                    self.sock.settimeout(ANSWER_TIMEOUT)
                    sent = theirs + ([cgroup_fd] if cgroup_fd >= 0 else [])
                    fds = array.array("i", sent).tobytes()
                    self.sock.sendmsg([b"F"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
                    answer = self.sock.recv(4)
                except OSError as exc:
                    raise ForkServerGone(str(exc)) from exc
                finally:
                    for fd in theirs:
                        os.close(fd)
                if len(answer) != 4 or struct.unpack("i", answer)[0] <= 0:
                    raise ForkServerGone(f"answered {answer!r}")
                pid = struct.unpack("i", answer)[0]
                procs.register_spawned_locked(pid)
            popen = _Adopted(pid)
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

    def close(self) -> None:
        """Ends it (its bots are not its children: they live on)."""
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
