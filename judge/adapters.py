"""How a .py bot file is run: a protocol bot as it is, or an original-project bot via an adapter."""

from __future__ import annotations

from pathlib import Path

from judge.bots import python_argv


def argv_for(path: Path, game: str, adapter: str | None) -> list[str]:
    # Adapters for the original projects' bot styles plug in here (see docs/adapters.md).
    return python_argv(path)
