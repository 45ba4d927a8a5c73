"""The server's seed key: mixed into every match's seed, so nobody without it (a bot, a user
who chose the seed) can derive a match's secret from its seed (games/seeds.py).

32 random bytes, hex, in ``seed.key`` of the data directory, made on first start (0600);
servers sharing the data directory share it. Losing it changes nothing already played:
every replay reveals its own secret.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from games.seeds import SECRET_BYTES

FILE_NAME = "seed.key"


class SeedKeyError(RuntimeError):
    """The key file exists but cannot be used: the server must not start on another key
    (a RuntimeError: `judge serve` says it in one line)."""


def load_or_create(data: Path) -> bytes:
    path = data / FILE_NAME
    if not path.exists():
        _create(path)
    try:
        text = path.read_text().strip()
        key = bytes.fromhex(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SeedKeyError(f"cannot read the seed key {path}: {exc}") from None
    if len(key) != SECRET_BYTES:
        raise SeedKeyError(
            f"the seed key {path} is not {SECRET_BYTES} bytes in hex; move it away to start "
            "with a new one"
        )
    return key


def _create(path: Path) -> None:
    """Written aside, then linked into place: a server starting at the same moment either
    finds the whole key or makes its own link fail and reads this one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{FILE_NAME}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(SECRET_BYTES) + "\n")
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(partial, path)
    finally:
        partial.unlink(missing_ok=True)
