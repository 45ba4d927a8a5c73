from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import IO


def open_for_writing(path: Path) -> IO[str]:
    """Plain, .gz or .zst by suffix; compressed streams use fast levels."""
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "wb", compresslevel=1), encoding="utf-8")
    if path.suffix == ".zst":
        import zstandard

        raw = zstandard.ZstdCompressor(level=1).stream_writer(open(path, "wb"), closefd=True)
        return io.TextIOWrapper(raw, encoding="utf-8")
    return open(path, "w", encoding="utf-8", buffering=1 << 16)


class ReplayWriter:
    """Streams replay lines to a file, flushed after every turn so readers can follow it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = open_for_writing(path)
        self._compressed = path.suffix in (".gz", ".zst")

    def __call__(self, line: str) -> None:
        self._file.write(line)
        if not self._compressed:
            self._file.flush()

    def close(self) -> None:
        self._file.close()
