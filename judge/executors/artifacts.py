"""Bot artifacts that travel to other machines, content-addressed.

A bot's box (its own directory) is packed into a deterministic tar (sorted names, no times,
no owners), named by the SHA-256 of that tar: the same files give the same name on any
machine, a changed bot a new one. A spec is made portable by replacing the paths that differ
between machines with tokens: its box, the judge's own tree (built-in bots, adapters) and the
Python interpreter. A worker unpacks each box once into its cache (``unpacked``) and gives
every match a fresh copy of it, so nothing a bot writes reaches another match.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
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


def box_digests_of(spec_json: str) -> list[str]:
    """The box hashes a portable spec refers to."""
    data: dict[str, Any] = json.loads(spec_json)
    prefix, suffix = BOX_TOKEN.split("{}")
    found = []
    for bot in data["bots"]:
        box = bot.get("box") or ""
        if box.startswith(prefix) and box.endswith(suffix):
            found.append(box[len(prefix) : -len(suffix)])
    return found


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


def match_copy(cached: Path, workdir: Path) -> Path:
    """A fresh copy of a cached box for one match."""
    shutil.copytree(cached, workdir, symlinks=True)
    return workdir
