"""Writing replays while a match runs, so that readers can follow them.

A plain file is flushed after every line. A compressed file is flushed (gzip sync flush,
zstd block end) after every judge line and whenever ``flush_interval`` has passed since
the last flush: flushing every turn would cost compression most of its gain (an rps turn
line compresses to ~3 bytes, a flush adds 5-10), so a follower sees a compressed replay's
turns at most one turn plus ``flush_interval`` late.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from replays.codecs import CompressedSink, compression_of
from replays.format import RESULT_KIND, seal_result_line

FLUSH_INTERVAL = 0.1
RESULT_PREFIX = f"#{RESULT_KIND} ".encode()


def open_for_writing(path: Path) -> CompressedSink:
    """Plain, .gz or .zst by suffix; compressed streams use fast levels."""
    return CompressedSink(path)


class ReplayWriter:
    """A line sink for ``run_match``: writes every line, seals the result with a checksum."""

    def __init__(self, path: Path, *, flush_interval: float = FLUSH_INTERVAL) -> None:
        self.path = path
        self.compression = compression_of(path)
        self.flush_interval = flush_interval
        self._sink = CompressedSink(path)
        self._digest = hashlib.sha256()
        self._last_flush = time.monotonic()
        self.closed = False

    def __call__(self, line: str) -> None:
        # Never fail a match over an unencodable character; verify would show the line.
        data = line.encode("utf-8", errors="backslashreplace")
        if not data.endswith(b"\n"):
            data += b"\n"
        if data.startswith(RESULT_PREFIX):
            self._digest.update(data)
            data = seal_result_line(data, self._digest.hexdigest())
        else:
            self._digest.update(data)
        self._sink.write(data)
        # Plain: every line. Compressed: judge lines at once, turns in batches.
        due = time.monotonic() - self._last_flush >= self.flush_interval
        if self.compression == "plain" or data.startswith(b"#") or due:
            self.flush()

    def flush(self) -> None:
        self._sink.flush()
        self._last_flush = time.monotonic()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._sink.close()
