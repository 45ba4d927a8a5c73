from __future__ import annotations

import json
from typing import Any

FORMAT_VERSION = 1
MAGIC = "#judge-replay"


class ReplayFormatError(Exception):
    """A replay line that cannot be read; ``line`` is its 1-based number."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


def header_line(meta: dict[str, Any]) -> str:
    return f"{MAGIC} {json.dumps({'version': FORMAT_VERSION, **meta}, separators=(',', ':'))}\n"


def event_line(kind: str, data: dict[str, Any]) -> str:
    return f"#{kind} {json.dumps(data, separators=(',', ':'))}\n"
