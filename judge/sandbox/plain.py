from __future__ import annotations

import contextlib
import os
import signal

import trio

from judge.models import BotSpec
from judge.sandbox import procs
from judge.sandbox.base import BotProcess, Sandbox, SandboxError, minimal_env


class PlainProcess(BotProcess):
    def __init__(self, process: trio.Process) -> None:
        self.process = process
        self._killed = False
        self._cleared = False

    async def kill(self) -> None:
        if self._cleared:
            return  # killed, reaped, and nothing of it left: a second kill has nothing to do
        if not self._killed:
            self._killed = True
            # The leader is not reaped yet, so its pid (the group id) cannot be reused.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        with trio.CancelScope(shield=True):
            await self.process.wait()
            procs.forget(self.process.pid)
            # What the bot left in its session came back to the judge (a subreaper).
            self._cleared = await procs.reap_adopted_until_clear()
            procs.forget_session(self.process.pid)
            # A daemon in a session of its own holding the bot's stdout or stderr: the
            # judge would wait on those pipes, and no other layer's kill reaches it here.
            cleared = await procs.kill_pipe_holders(self._open_pipes())
            self._cleared = self._cleared and cleared

    def _open_pipes(self) -> list[int]:
        """The read ends of the bot's stdout and stderr the judge has not closed yet."""
        pipes = (self.process.stdout, self.process.stderr)
        fds = [p.fileno() for p in pipes if isinstance(p, trio.lowlevel.FdStream)]
        return [fd for fd in fds if fd >= 0]  # (-1 once closed)


class PlainSandbox(Sandbox):
    """No isolation beyond an own session and a minimal environment (development only)."""

    layer = "none"

    async def start(self, bot: BotSpec, *, seed: int) -> BotProcess:
        cwd = bot.cwd or bot.box
        try:
            process = await procs.spawn(
                list(bot.argv),
                cwd=str(cwd) if cwd else None,
                env=minimal_env(bot, seed=seed, home=cwd),
            )
        except OSError as exc:
            raise SandboxError(f"cannot start {bot.name}: {exc.strerror or exc}") from exc
        return PlainProcess(process)
