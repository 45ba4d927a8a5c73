from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import IO


def open_text(path: Path) -> IO[str]:
    """Open a replay for reading, decompressing .gz and .zst transparently."""
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="replace")
    if path.suffix == ".zst":
        import zstandard

        raw = zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)
        return io.TextIOWrapper(raw, encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")
