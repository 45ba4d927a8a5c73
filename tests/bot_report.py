"""Reading the one JSON line a test bot writes about what it sees in its sandbox."""

from __future__ import annotations

import json

import trio

from judge.sandbox.base import BotProcess


async def read_report(proc: BotProcess) -> dict[str, object]:
    stdout = proc.process.stdout
    assert stdout is not None
    data = b""
    with trio.fail_after(30):
        while not data.endswith(b"\n"):
            chunk = await stdout.receive_some(65536)
            assert chunk, "the bot ended without a report"
            data += chunk
    return dict(json.loads(data))
