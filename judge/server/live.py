"""Live replay lines of queued and running matches, fanned out to any number of watchers.

Every line of a match gets an index (0 = header). A watcher that joins late reads the replay
file written so far and then the live lines, skipping indices it already has; a watcher that
falls too far behind is dropped and resumes from its last index (SSE ``Last-Event-ID``).
The ``#result`` line is held back until the result is committed to storage.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import IO

import trio

from replays.reader import open_text

WATCHER_BUFFER = 4096
RESULT_PREFIX = "#result "

Line = tuple[int, str]


class LiveMatch:
    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self.started = False
        self.count = 0
        self.held: str | None = None
        self.watchers: list[trio.MemorySendChannel[Line]] = []
        self.closed = False

    def reset(self) -> None:
        """A new attempt starts from nothing: watchers so far restart too."""
        for send in self.watchers:
            send.close()
        self.watchers = []
        self.count = 0
        self.held = None
        self.started = False

    def restart(self) -> None:
        """The match starts over on another worker: watchers restart, lines come again."""
        self.reset()
        self.started = True

    def sink(self, line: str) -> None:
        """Runs after the replay writer has written ``line`` (it is the first sink)."""
        if line.startswith(RESULT_PREFIX):
            self.held = line
            return
        self._broadcast(line)

    def _broadcast(self, line: str) -> None:
        item = (self.count, line.rstrip("\n"))
        self.count += 1
        for send in list(self.watchers):
            try:
                send.send_nowait(item)
            except trio.WouldBlock:
                self.watchers.remove(send)
                send.close()
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self.watchers.remove(send)

    def watch(self) -> trio.MemoryReceiveChannel[Line]:
        send, receive = trio.open_memory_channel[Line](WATCHER_BUFFER)
        if self.closed:
            send.close()
        else:
            self.watchers.append(send)
        return receive

    def close(self, final_line: str | None = None) -> None:
        """After the commit: release the result line and end every watcher's stream.

        ``final_line`` is the result line as the replay file has it (the writer seals it
        with a checksum), so that the stream and the file agree byte for byte.
        """
        if self.held is not None:
            self._broadcast(final_line if final_line is not None else self.held)
            self.held = None
        self.closed = True
        for send in self.watchers:
            send.close()
        self.watchers = []


class Hub:
    def __init__(self) -> None:
        self.matches: dict[str, LiveMatch] = {}

    def add(self, match_id: str) -> LiveMatch:
        live = self.matches.get(match_id)
        if live is None:
            live = self.matches[match_id] = LiveMatch(match_id)
        return live

    def get(self, match_id: str) -> LiveMatch | None:
        return self.matches.get(match_id)

    def finish(self, match_id: str, final_line: str | None = None) -> None:
        live = self.matches.pop(match_id, None)
        if live is not None:
            live.close(final_line)


BATCH = 4096


class ReplayLines:
    """Complete lines of a replay file, read in batches (constant memory for any size).

    A partial last line is still being written and is left for the live stream.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.handle: IO[str] | None = None
        self.done = False

    def batch(self) -> list[str]:
        if self.done:
            return []
        lines: list[str] = []
        try:
            if self.handle is None:
                self.handle = open_text(self.path)
            for line in self.handle:
                if not line.endswith("\n"):
                    self.done = True
                    break
                lines.append(line[:-1])
                if len(lines) >= BATCH:
                    return lines
            else:
                self.done = True
        except (OSError, EOFError):
            self.done = True  # missing, or a truncated compressed file: what was read stands
        if self.done:
            self.close()
        return lines

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


def complete_lines(path: Path) -> Iterator[str]:
    """Every complete line of a replay file, synchronously."""
    reader = ReplayLines(path)
    try:
        while batch := reader.batch():
            yield from batch
    finally:
        reader.close()


def last_line(path: Path, limit: int = 1 << 20) -> str | None:
    """The last complete line of a plain replay file (read from its end)."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, 2)
            chunk = 4096
            while True:
                start = max(0, size - chunk)
                handle.seek(start)
                data = handle.read(size - start)
                body = data[:-1] if data.endswith(b"\n") else None
                if body is None:
                    return None
                newline = body.rfind(b"\n")
                if newline >= 0 or start == 0:
                    return body[newline + 1 :].decode("utf-8", errors="replace")
                if chunk >= limit:
                    return None
                chunk *= 4
    except OSError:
        return None


async def lines_of(
    hub: Hub,
    match_id: str,
    stored: Callable[[], AsyncIterator[list[str]]],
    after: int = -1,
) -> AsyncIterator[Line]:
    """Every line of a match with an index above ``after``: stored so far, then live."""
    live = hub.get(match_id)
    receive = live.watch() if live is not None else None
    sent = after
    if live is None or live.started:
        index = -1
        async for batch in stored():
            for line in batch:
                index += 1
                if index > sent:
                    sent = index
                    yield index, line
    if receive is None:
        return
    async with receive:
        async for index, line in receive:
            if index > sent:
                sent = index
                yield index, line


async def batches_of(
    hub: Hub,
    match_id: str,
    stored: Callable[[], AsyncIterator[list[str]]],
    after: int = -1,
) -> AsyncIterator[tuple[int, list[str]]]:
    """``lines_of`` in batches: (index of the batch's last line, lines), each batch every line
    there is at the moment (up to BATCH), so a watcher far behind catches up in a few steps
    instead of one event per line."""
    live = hub.get(match_id)
    receive = live.watch() if live is not None else None
    sent = after
    if live is None or live.started:
        index = -1
        async for stored_batch in stored():
            fresh = stored_batch[max(0, sent - index) :] if sent > index else stored_batch
            index += len(stored_batch)
            if fresh and index > sent:
                sent = index
                yield index, fresh
    if receive is None:
        return
    async with receive:
        while True:
            try:
                first = await receive.receive()
            except trio.EndOfChannel:
                return
            batch = [first]
            while len(batch) < BATCH:
                try:
                    batch.append(receive.receive_nowait())
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
            fresh_lines = [line for i, line in batch if i > sent]
            if fresh_lines:
                sent = batch[-1][0]
                yield sent, fresh_lines
