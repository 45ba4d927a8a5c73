"""Prepared read-only pieces of a namespaced bot's filesystem: /etc and /dev.

bubblewrap pays a mount, a re-read of /proc/self/mountinfo and a remount for every bind,
so a handful of /etc files bound one by one and ``--dev`` (a tmpfs, six device binds and
a devpts) cost about 1.5 ms of every bot start. Instead the judge keeps a snapshot
directory of those /etc entries (rebuilt when one of them changes) and, as root, a
directory with the same six device nodes: one bind each.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import threading
import time
from pathlib import Path

from judge.sandbox.launcher import cache_dir

# The /etc entries a bot sees, where the host has them.
ETC_ENTRIES = ("ld.so.cache", "alternatives", "localtime", "nsswitch.conf", "passwd", "group")
# (name, major, minor): what bwrap's --dev offers, as character devices with mode 0666.
DEVICES = (("null", 1, 3), ("zero", 1, 5), ("full", 1, 7), ("random", 1, 8),
           ("urandom", 1, 9), ("tty", 5, 0))
DEV_LINKS = (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
             ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"))
STALE_AFTER = 24 * 3600  # old /etc snapshots are removed after a day unused
RECHECK_EVERY = 1.0  # seconds between looks at the host's /etc entries

_lock = threading.Lock()
# etc dir -> (when last looked at, its entries' signature, the snapshot or None)
_etc: dict[Path, tuple[float, tuple[object, ...], Path | None]] = {}
_dev: Path | bool | None = False  # False: not tried yet; None: unusable here


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


def dev_directory() -> Path | None:
    """A directory with the device nodes bots may use, or None (not root, or a nodev disk)."""
    global _dev
    if _dev is not False:
        return _dev if isinstance(_dev, Path) else None
    with _lock:
        if _dev is False:
            _dev = _make_dev() if os.geteuid() == 0 else None
    return _dev if isinstance(_dev, Path) else None


def _make_dev() -> Path | None:
    target = cache_dir() / "dev"
    try:
        if not _dev_is_complete(target):
            partial = target.with_name(f"dev.{os.getpid()}.tmp")
            shutil.rmtree(partial, ignore_errors=True)
            partial.mkdir(mode=0o755)
            for name, major, minor in DEVICES:
                os.mknod(partial / name, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
                os.chmod(partial / name, 0o666)  # mknod honours the umask
            for name, link in DEV_LINKS:
                os.symlink(link, partial / name)
            (partial / "shm").mkdir(mode=0o755)  # a mount point for the private /dev/shm
            partial.chmod(0o755)
            shutil.rmtree(target, ignore_errors=True)
            os.rename(partial, target)
        if os.statvfs(target).f_flag & os.ST_NODEV:
            return None  # device nodes would not work from this disk
        with (target / "null").open("wb") as null:
            null.write(b"x")
    except OSError:
        return None
    return target


def _dev_is_complete(target: Path) -> bool:
    for name, major, minor in DEVICES:
        try:
            info = (target / name).lstat()
        except OSError:
            return False
        if not stat.S_ISCHR(info.st_mode) or info.st_rdev != os.makedev(major, minor):
            return False
        if info.st_uid != 0 or stat.S_IMODE(info.st_mode) != 0o666:
            return False
    try:
        info = target.lstat()
    except OSError:
        return False
    return info.st_uid == 0 and stat.S_IMODE(info.st_mode) == 0o755 and (target / "shm").is_dir()
