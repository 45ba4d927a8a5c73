"""The C launcher (launcher.c): built when the package is installed (hatch_build.py), or,
failing that, compiled on first use into a cache directory."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from judge.sandbox.base import SandboxError, cache_dir
from judge.sandbox.launcher_build import (
    BUILDS,
    NOLIBC,
    PACKAGED_DIR,
    SOURCE,
    binary_name,
    build,
    build_library,
    library_name,
)

__all__ = ["BUILDS", "NOLIBC", "SOURCE", "cache_dir", "launcher_binary", "launcher_library"]

_build_lock = threading.Lock()
_built: Path | None = None
_library: tuple[Path | None, str] | None = None


def launcher_binary() -> Path:
    """Path of the launcher: the one the install built, else one built now (needs cc)."""
    global _built
    if _built is not None and _built.exists():
        return _built
    with _build_lock:
        name = binary_name()
        packaged = PACKAGED_DIR / name
        if packaged.is_file() and os.access(packaged, os.X_OK):
            _built = packaged
            return packaged
        target = cache_dir() / name
        if not target.exists():
            problem = build(target)
            if problem is not None:
                raise SandboxError(problem)
        _built = target
        return target


def launcher_library() -> Path | None:
    """The launcher built as a shared object for the fork server (the install's, else one
    built now), or None if it cannot be had: bots then start as without a fork server."""
    global _library
    if _library is not None and (_library[0] is None or _library[0].exists()):
        return _library[0]
    with _build_lock:
        name = library_name()
        packaged = PACKAGED_DIR / name
        if packaged.is_file():
            _library = (packaged, "")
            return packaged
        target = cache_dir() / name
        problem = None if target.exists() else build_library(target)
        _library = (None, problem) if problem is not None else (target, "")
        return _library[0]
