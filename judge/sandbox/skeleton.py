"""A prepared read-only piece of a namespaced bot's file system: /etc.

Every bind costs the launcher a mount and a remount, so instead of a handful of /etc
files bound one by one the judge keeps a snapshot directory of those entries (rebuilt
when one of them changes), bound as /etc in one go.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import threading
import time
from pathlib import Path

from judge.sandbox.base import cache_dir

# The /etc entries a bot sees, where the host has them.
ETC_ENTRIES = ("ld.so.cache", "alternatives", "localtime", "nsswitch.conf", "passwd", "group")
STALE_AFTER = 24 * 3600  # old /etc snapshots are removed after a day unused
RECHECK_EVERY = 1.0  # seconds between looks at the host's /etc entries

_lock = threading.Lock()
# etc dir -> (when last looked at, its entries' signature, the snapshot or None)
_etc: dict[Path, tuple[float, tuple[object, ...], Path | None]] = {}


def _signature(etc: Path) -> tuple[object, ...]:
    found: list[object] = []
    for name in ETC_ENTRIES:
        try:
            info = (etc / name).stat()  # follows links: localtime is a link to zoneinfo
        except OSError:
            continue
        found.append((name, info.st_ino, info.st_mtime_ns, info.st_size, info.st_mode))
    return tuple(found)


def etc_snapshot(etc: Path = Path("/etc")) -> Path | None:
    """A directory holding copies of ETC_ENTRIES, current to within RECHECK_EVERY seconds.

    None if it cannot be made (then the caller binds the entries one by one).
    """
    now = time.monotonic()
    cached = _etc.get(etc)
    if cached is not None and now - cached[0] < RECHECK_EVERY:
        return cached[2]
    signature = _signature(etc)
    target = cache_dir() / (
        "etc-" + hashlib.sha256(repr((str(etc), signature)).encode()).hexdigest()[:16]
    )
    if cached is not None and cached[1] == signature and cached[2] == target:
        _etc[etc] = (now, signature, cached[2])
        return cached[2]
    with _lock:
        try:
            if not target.is_dir():
                _build_etc(etc, target)
            _remove_stale_snapshots(target)
        except OSError:
            target_or_none: Path | None = None
        else:
            target_or_none = target
        _etc[etc] = (now, signature, target_or_none)
        return target_or_none


def _build_etc(etc: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(mode=0o755)
    try:
        for name in ETC_ENTRIES:
            source = etc / name
            if not source.exists():
                continue
            if source.is_dir():
                # /etc/alternatives: links into /usr, kept as links.
                shutil.copytree(source, partial / name, symlinks=True)
            else:
                shutil.copy2(source, partial / name)  # localtime: the zone file itself
        partial.chmod(0o755)
        os.rename(partial, target)
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
        if not target.is_dir():  # another judge may have won the race
            raise


def _remove_stale_snapshots(current: Path) -> None:
    cutoff = time.time() - STALE_AFTER
    for old in current.parent.glob("etc-*"):
        with contextlib.suppress(OSError):
            if old != current and old.stat().st_mtime < cutoff:
                shutil.rmtree(old)
