"""Bytecode of the judge's own modules, written at install time (standard library only: the
package's build hook, hatch_build.py, loads this file by its path).

Python compiles a module it has no valid bytecode for at every import when it may not write
the bytecode itself: PYTHONDONTWRITEBYTECODE set, or a tree it cannot write (a built-in bot
runs as another user). Compiling is about half of a one-turn ``judge match``'s CPU then
(docs/performance.md); third-party packages are compiled by ``uv sync --compile-bytecode``.
"""

from __future__ import annotations

import compileall
import importlib.util
import py_compile
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The packages of pyproject.toml's wheel.
PACKAGES = ("judge", "protocol", "replays", "bots", "games")
# Bot examples and starter kits run as scripts, whose bytecode Python never reads.
SCRIPTS_ONLY = re.compile(r"[/\\](examples|kits)[/\\]")


def compile_sources(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> bool:
    """Checked-hash bytecode: still valid after a checkout rewrites a file's time, and never
    used for a file whose content changed since (Python compiles that one, as without).
    False if a file did not compile (it will fail at its import as it would anyway)."""
    ok = True
    for package in packages:
        ok &= bool(
            compileall.compile_dir(
                root / package,
                quiet=2,
                rx=SCRIPTS_ONLY,
                invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
            )
        )
    return ok


def has_current_bytecode(source: Path) -> bool:
    """Whether Python would load ``source`` from its ``__pycache__`` rather than compile it."""
    try:
        data = (Path(importlib.util.cache_from_source(str(source)))).read_bytes()[:16]
        text = source.read_bytes()
        stat = source.stat()
    except (OSError, NotImplementedError):  # (NotImplementedError: an interpreter without .pyc)
        return False
    if len(data) < 16 or data[:4] != importlib.util.MAGIC_NUMBER:
        return False
    flags = int.from_bytes(data[4:8], "little")
    if flags & 1:  # hash-based: valid while the content is the same
        return data[8:16] == importlib.util.source_hash(text)
    return (
        int.from_bytes(data[8:12], "little") == int(stat.st_mtime) & 0xFFFFFFFF
        and int.from_bytes(data[12:16], "little") == stat.st_size & 0xFFFFFFFF
    )
