"""Bot files and replays behind one small interface, so nothing above it knows where they live.

A *tree* is a version's files (key ``bots/<bot id>/<version>``); a *replay* is one match's
replay file (key: the match id). The local directory store keeps today's layout of the data
directory, so existing data directories keep working. Matches and builds never run on the
stored tree: they check out a private copy (``checkout_tree``), and a build's result comes back
through ``replace_tree``.
"""

from __future__ import annotations

import os
import shutil
import uuid
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from pathlib import Path

import trio

from judge.server.live import ReplayLines, last_line


def tree_key(bot_id: int, version: int) -> str:
    return f"bots/{bot_id}/{version}"


def tree_bytes(root: Path) -> int:
    """Bytes of every file under ``root`` as stored (links count their own size)."""
    total = 0
    for base, dirs, files in os.walk(root):
        for name in dirs + files:
            try:
                total += os.lstat(os.path.join(base, name)).st_size
            except OSError:
                continue
    return total


class BlobStore(ABC):
    # -- trees (a bot version's files) -----------------------------------------
    @abstractmethod
    async def put_tree(self, key: str, source: Path) -> int:
        """Store the directory ``source`` (it is consumed) under ``key``; its size in bytes."""

    @abstractmethod
    async def replace_tree(self, key: str, source: Path) -> int:
        """Replace a stored tree (after a build) with ``source`` (consumed); its size."""

    @abstractmethod
    async def checkout_tree(self, key: str, dest: Path) -> None:
        """A private, writable copy of a stored tree at ``dest`` (links kept as links)."""

    @abstractmethod
    async def has_tree(self, key: str) -> bool: ...

    @abstractmethod
    async def delete_trees(self, prefix: str) -> None:
        """Every tree whose key starts with ``prefix`` + '/' (or is ``prefix``)."""

    # -- replays ---------------------------------------------------------------------
    @abstractmethod
    def replay_target(self, key: str) -> Path:
        """The local file a running match writes its replay to (its lines can be read while
        it grows); ``commit_replay`` stores it once the match has ended."""

    @abstractmethod
    async def commit_replay(self, key: str) -> None: ...

    @abstractmethod
    async def has_replay(self, key: str) -> bool: ...

    @abstractmethod
    async def delete_replay(self, key: str) -> None: ...

    @abstractmethod
    def replay_lines(self, key: str) -> AsyncIterator[list[str]]:
        """The complete lines of a replay so far, in batches (a partial last line is left)."""

    @abstractmethod
    async def last_replay_line(self, key: str) -> str | None: ...


class LocalBlobStore(BlobStore):
    """Trees in ``root/bots/<bot>/<version>/box``, replays in ``root/replays/<id>.replay``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "bots").mkdir(parents=True, exist_ok=True)
        (root / "replays").mkdir(parents=True, exist_ok=True)

    def _tree(self, key: str) -> Path:
        parts = key.split("/")
        if not parts or any(p in ("", ".", "..") for p in parts):
            raise ValueError(f"bad blob key {key!r}")
        return self.root.joinpath(*parts, "box")

    def _replay(self, key: str) -> Path:
        if not key.isalnum():
            raise ValueError(f"bad replay key {key!r}")
        return self.root / "replays" / f"{key}.replay"

    async def put_tree(self, key: str, source: Path) -> int:
        target = self._tree(key)

        def put() -> int:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.rmtree(target, ignore_errors=True)
            source.rename(target)
            return tree_bytes(target)

        return await trio.to_thread.run_sync(put)

    async def replace_tree(self, key: str, source: Path) -> int:
        target = self._tree(key)

        def replace() -> int:
            old = target.parent / f"box.old-{uuid.uuid4().hex[:8]}"
            if target.exists():
                target.rename(old)
            source.rename(target)
            shutil.rmtree(old, ignore_errors=True)
            return tree_bytes(target)

        return await trio.to_thread.run_sync(replace)

    async def checkout_tree(self, key: str, dest: Path) -> None:
        source = self._tree(key)

        def copy() -> None:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(source, dest, symlinks=True)

        await trio.to_thread.run_sync(copy)

    async def has_tree(self, key: str) -> bool:
        return await trio.to_thread.run_sync(self._tree(key).is_dir)

    async def delete_trees(self, prefix: str) -> None:
        parts = prefix.split("/")
        if any(p in ("", ".", "..") for p in parts):
            raise ValueError(f"bad blob prefix {prefix!r}")
        await trio.to_thread.run_sync(
            lambda: shutil.rmtree(self.root.joinpath(*parts), ignore_errors=True)
        )

    def replay_target(self, key: str) -> Path:
        return self._replay(key)

    async def commit_replay(self, key: str) -> None:
        return None  # written in place

    async def has_replay(self, key: str) -> bool:
        return await trio.to_thread.run_sync(self._replay(key).exists)

    async def delete_replay(self, key: str) -> None:
        await trio.to_thread.run_sync(lambda: self._replay(key).unlink(missing_ok=True))

    async def replay_lines(self, key: str) -> AsyncIterator[list[str]]:
        reader = ReplayLines(self._replay(key))
        try:
            while batch := await trio.to_thread.run_sync(reader.batch):
                yield batch
        finally:
            reader.close()

    async def last_replay_line(self, key: str) -> str | None:
        return await trio.to_thread.run_sync(last_line, self._replay(key))
