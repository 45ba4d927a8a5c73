"""Bot artifacts that travel to other machines, content-addressed.

A bot's box (its own directory) is packed into a deterministic tar (sorted names, no times,
no owners), named by the SHA-256 of that tar: the same files give the same name on any
machine, a changed bot a new one. A spec is made portable by replacing the paths that differ
between machines with tokens: its box, the judge's own tree (built-in bots, adapters) and the
Python interpreter. A worker unpacks each box once into its cache (``unpacked``) and gives
every match a copy of it of its own (``BoxCopies``): one that an earlier match of that worker
process left exactly as it was made, else a fresh one, so nothing a bot writes reaches another
match.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import os
import shutil
import stat
import sys
import tarfile
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from judge.botfiles import BOTS_DIR
from judge.models import BotSpec, MatchSpec

JUDGE_ROOT = BOTS_DIR.parent
BOX_TOKEN = "@botjudge-box:{}@"
JUDGE_TOKEN = "@botjudge-judge@"
PYTHON_TOKEN = "@botjudge-python@"


def pack_box(box: Path) -> bytes:
    """The box as a deterministic tar: the same files make the same bytes."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for root, dirs, files in os.walk(box):
            dirs.sort()
            for name in sorted(dirs) + sorted(files):
                path = Path(root) / name
                info = tar.gettarinfo(str(path), arcname=str(path.relative_to(box)))
                info.mtime = 0
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                info.pax_headers = {}
                if info.isfile():
                    with path.open("rb") as data:
                        tar.addfile(info, data)
                elif info.isdir() or info.issym():
                    tar.addfile(info)
    return buffer.getvalue()


def box_hash(packed: bytes) -> str:
    return hashlib.sha256(packed).hexdigest()


def _swap(text: str, replacements: list[tuple[str, str]]) -> str:
    """Replace the first matching path prefix (whole path components only)."""
    for old, new in replacements:
        if text == old or text.startswith(old.rstrip("/") + "/"):
            return new + text[len(old.rstrip("/")) :] if text != old else new
    return text


def _map_paths(spec: BotSpec, replacements: list[tuple[str, str]]) -> BotSpec:
    data = spec.model_dump(mode="json")

    def swap_path(value: str | None) -> str | None:
        return None if value is None else _swap(value, replacements)

    data["argv"] = [_swap(arg, replacements) for arg in data["argv"]]
    data["cwd"] = swap_path(data["cwd"])
    data["box"] = swap_path(data["box"])
    data["readonly_paths"] = [_swap(p, replacements) for p in data["readonly_paths"]]
    data["env"] = {
        key: os.pathsep.join(_swap(part, replacements) for part in value.split(os.pathsep))
        for key, value in data["env"].items()
    }
    return BotSpec.model_validate(data)


def portable_bot(spec: BotSpec, digest: str | None) -> BotSpec:
    """The bot with machine-specific paths as tokens (``digest``: its packed box's hash)."""
    replacements: list[tuple[str, str]] = []
    if spec.box is not None and digest is not None:
        replacements.append((str(spec.box), BOX_TOKEN.format(digest)))
    replacements += [(str(JUDGE_ROOT), JUDGE_TOKEN), (sys.executable, PYTHON_TOKEN)]
    return _map_paths(spec, replacements)


def local_bot(spec: BotSpec, boxes: dict[str, Path]) -> BotSpec:
    """The inverse on a worker: tokens become this machine's paths (``boxes``: hash -> copy)."""
    replacements = [(BOX_TOKEN.format(digest), str(path)) for digest, path in boxes.items()]
    replacements += [(JUDGE_TOKEN, str(JUDGE_ROOT)), (PYTHON_TOKEN, sys.executable)]
    return _map_paths(spec, replacements)


def portable_match(spec: MatchSpec, digests: dict[Path, str]) -> str:
    """The match spec as JSON with every bot made portable (``digests``: box -> hash)."""
    bots = [portable_bot(bot, digests.get(bot.box) if bot.box else None) for bot in spec.bots]
    return spec.model_copy(update={"bots": bots}).model_dump_json()


def cache_root() -> Path:
    """Where a worker keeps unpacked boxes ($BOTJUDGE_BOX_CACHE, else under the temp dir,
    which any sandbox uid can walk; the user's cache dir may not be)."""
    configured = os.environ.get("BOTJUDGE_BOX_CACHE")
    if configured:
        return Path(configured)
    return Path(tempfile.gettempdir()) / f"botjudge-boxes-{os.getuid()}"


def unpacked(digest: str, packed: bytes) -> tuple[Path, bool]:
    """The box unpacked in this machine's cache (once per hash); True if it was there already.

    Several worker processes of one machine share the cache: a lock file per hash makes one
    of them unpack and the others wait for it.
    """
    root = cache_root()
    target = root / digest
    if target.is_dir():
        return target, True
    root.mkdir(parents=True, exist_ok=True, mode=0o755)
    with open(root / f"{digest}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_dir():
            return target, True
        if box_hash(packed) != digest:
            raise ValueError(f"bot artifact {digest[:12]} arrived corrupt (its hash differs)")
        staging = Path(tempfile.mkdtemp(prefix=f".{digest[:12]}-", dir=root))
        with tarfile.open(fileobj=io.BytesIO(packed), mode="r") as tar:
            tar.extractall(staging, filter="tar")
        staging.chmod(0o755)
        staging.rename(target)
    return target, False


def tree_state(root: Path) -> tuple[Any, ...]:
    """Every entry of a tree (the root too) with what any change to it changes: inode, type
    and mode, owner, links, size, modification and change times (a write, a new or removed
    name, chmod, utime: all change a ctime, which no one can set back), and a regular
    file's content hash (a kernel without fine-grained timestamps gives a change within the
    same clock tick the same ctime)."""
    found = []
    for path, dirs, files in os.walk(root):
        dirs.sort()
        for name in ("", *sorted(files), *dirs):
            entry = os.path.join(path, name) if name else path
            try:
                info = os.lstat(entry)
                content = b""
                if stat.S_ISREG(info.st_mode):
                    with open(entry, "rb") as file:
                        content = hashlib.file_digest(file, "blake2b").digest()
            except OSError:
                return ()
            found.append(
                (
                    entry,
                    info.st_ino,
                    info.st_mode,
                    info.st_uid,
                    info.st_gid,
                    info.st_nlink,
                    info.st_size,
                    info.st_mtime_ns,
                    info.st_ctime_ns,
                    content,
                )
            )
    return tuple(found)


class BoxCopies:
    """This process's copies of cached boxes for its matches. A match takes a copy and gives
    it back after; the next match of that box gets it again if it is exactly as it was made
    (``tree_state``), else a fresh one: copying a box and removing it cost ~0.2 ms a match,
    checking one (its entries, and its files' contents hashed) a small part of that. Copies
    live in a directory of this process (under the cache), which a later process removes
    once this one is gone."""

    KEPT_PER_BOX = 2
    BOXES_KEPT = 64

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: OrderedDict[str, list[tuple[Path, tuple[Any, ...]]]] = OrderedDict()
        self._made = 0
        self._root: Path | None = None

    def _directory(self) -> Path:
        if self._root is None:
            root = cache_root()
            root.mkdir(parents=True, exist_ok=True, mode=0o755)
            for stale in root.glob("copies-*"):
                pid = stale.name.removeprefix("copies-")
                if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
                    shutil.rmtree(stale, ignore_errors=True)
            mine = root / f"copies-{os.getpid()}"
            mine.mkdir(mode=0o700, exist_ok=True)
            self._root = mine
        return self._root

    def take(self, digest: str, cached: Path) -> tuple[Path, tuple[Any, ...]]:
        """A copy of the cached box ``digest`` for one match, and its state as made."""
        with self._lock:
            kept = self._free.get(digest)
            copy = kept.pop() if kept else None
        if copy is not None:
            if tree_state(copy[0]) == copy[1]:
                return copy
            shutil.rmtree(copy[0], ignore_errors=True)
        with self._lock:
            self._made += 1
            path = self._directory() / f"{digest[:16]}-{self._made}"
        shutil.copytree(cached, path, symlinks=True)
        return path, tree_state(path)

    def give_back(self, digest: str, copy: tuple[Path, tuple[Any, ...]]) -> None:
        """The match is over (its bots gone): the copy may serve the next match."""
        dropped: list[Path] = []
        with self._lock:
            kept = self._free.setdefault(digest, [])
            self._free.move_to_end(digest)
            if len(kept) < self.KEPT_PER_BOX and copy[1]:
                kept.append(copy)
            else:
                dropped.append(copy[0])
            while len(self._free) > self.BOXES_KEPT:
                _, old = self._free.popitem(last=False)
                dropped += [path for path, _ in old]
        for path in dropped:
            shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
