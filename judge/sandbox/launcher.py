"""The C launcher (launcher.c): built when the package is installed (hatch_build.py), or,
failing that, compiled on first use into a cache directory."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from judge.sandbox.base import SandboxError
from judge.sandbox.launcher_build import BUILDS, NOLIBC, PACKAGED_DIR, SOURCE, binary_name, build

__all__ = ["BUILDS", "NOLIBC", "SOURCE", "cache_dir", "launcher_binary"]

_build_lock = threading.Lock()
_built: Path | None = None


def cache_dir() -> Path:
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "botjudge"
    if os.geteuid() == 0:
        return Path("/var/cache/botjudge")
    return Path.home() / ".cache" / "botjudge"


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
