"""Turning an uploaded file into a bot's box: a single program, or a checked archive.

An archive is refused as a whole (nothing is kept) when any member has an absolute path or a
``..`` component, is a device, fifo or socket, is a link whose target is absolute or climbs
with ``..``, is a duplicate, or when the members together unpack to more than the limits
(bytes are counted while writing, so a lying zip header cannot slip a bomb through).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from judge.bots import MANIFEST, BotError, file_launch, read_manifest
from judge.server.records import Launch

FILENAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,99}")
# Member names: no control characters, quotes or backslashes (they only ever confuse shells,
# logs and pages), and within what any file system takes.
ODD_CHARACTERS = re.compile(r"[\x00-\x1f\x7f\"'`\\]")
MAX_COMPONENT_BYTES = 255
MAX_PATH_BYTES = 1024
MAX_DEPTH = 32
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip")
COPY_CHUNK = 1 << 16


class UploadRefused(Exception):
    """The upload cannot become a bot; the message says why, for the uploader."""


@dataclass(frozen=True)
class UploadLimits:
    upload_bytes: int = 16 << 20
    unpacked_bytes: int = 64 << 20
    members: int = 2000
    # A member whose uncompressed size exceeds its compressed size this many times is a bomb.
    zip_ratio: int = 200


def check_filename(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    if not FILENAME.fullmatch(base):
        raise UploadRefused(
            f"file name {name!r} is not allowed: use letters, digits, '.', '_', '+', '-' "
            "(at most 100 characters, not starting with a dot)"
        )
    return base


def is_archive(filename: str) -> bool:
    return filename.lower().endswith(ARCHIVE_SUFFIXES)


def _member_path(name: str, *, root_ok: bool = False) -> PurePosixPath | None:
    odd = ODD_CHARACTERS.search(name)
    if odd:
        raise UploadRefused(
            f"archive member {name[:100]!r} has a character not allowed in names "
            f"({odd.group()!r}: control characters, quotes and backslashes are refused)"
        )
    if len(name.encode()) > MAX_PATH_BYTES:
        raise UploadRefused(
            f"archive member {name[:60]!r}... has a path longer than {MAX_PATH_BYTES} bytes"
        )
    path = PurePosixPath(name)
    if len(path.parts) > MAX_DEPTH:
        raise UploadRefused(
            f"archive member {name[:60]!r}... is nested deeper than {MAX_DEPTH} directories"
        )
    for part in path.parts:
        if len(part.encode()) > MAX_COMPONENT_BYTES:
            raise UploadRefused(
                f"archive member {name[:60]!r}... has a name longer than "
                f"{MAX_COMPONENT_BYTES} bytes"
            )
    if path.is_absolute() or name.startswith("/"):
        raise UploadRefused(f"archive member {name!r} has an absolute path")
    if ".." in path.parts:
        raise UploadRefused(f"archive member {name!r} climbs out with '..'")
    parts = [p for p in path.parts if p not in ("", ".")]
    if not parts:
        if root_ok:
            return None  # the archive's own top directory, "./"
        raise UploadRefused(f"archive member {name!r} has an empty path")
    return PurePosixPath(*parts)


def _check_link(name: str, target: str) -> None:
    if ODD_CHARACTERS.search(target) or len(target.encode()) > MAX_PATH_BYTES:
        raise UploadRefused(f"archive link {name!r} has an odd or overlong target")
    if not target or target.startswith("/"):
        raise UploadRefused(f"archive link {name!r} points to an absolute path {target!r}")
    # Without '..' a chain of relative links can only descend, so it stays in the box.
    if ".." in PurePosixPath(target).parts:
        raise UploadRefused(f"archive link {name!r} -> {target!r} leaves the box")


class _Extractor:
    """Writes members under ``box`` with every check, counting real bytes."""

    def __init__(self, box: Path, limits: UploadLimits) -> None:
        self.box = box
        self.limits = limits
        self.written = 0
        self.seen: set[PurePosixPath] = set()

    def claim(self, name: str) -> Path:
        rel = _member_path(name)
        assert rel is not None
        if rel in self.seen:
            raise UploadRefused(f"archive member {name!r} appears twice")
        self.seen.add(rel)
        if len(self.seen) > self.limits.members:
            raise UploadRefused(f"the archive has more than {self.limits.members} members")
        return self.box.joinpath(*rel.parts)

    def parents(self, target: Path) -> None:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            inside = target.parent.resolve().is_relative_to(self.box.resolve())
        except RuntimeError:
            raise UploadRefused(
                f"{target.relative_to(self.box)} lies below a symbolic link loop"
            ) from None
        if not inside:
            raise UploadRefused(f"{target.relative_to(self.box)} would be written outside the box")

    def directory(self, name: str) -> None:
        if _member_path(name, root_ok=True) is None:
            return
        target = self.claim(name)
        self.parents(target)
        target.mkdir(exist_ok=True)

    def file(self, name: str, source: IO[bytes], mode: int) -> None:
        target = self.claim(name)
        self.parents(target)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out:
            while chunk := source.read(COPY_CHUNK):
                self.written += len(chunk)
                if self.written > self.limits.unpacked_bytes:
                    raise UploadRefused(
                        f"the archive unpacks to more than {self.limits.unpacked_bytes} bytes"
                    )
                out.write(chunk)
        os.chmod(target, 0o755 if mode & 0o111 else 0o644)

    def link(self, name: str, link_target: str) -> None:
        _check_link(name, link_target)
        target = self.claim(name)
        self.parents(target)
        os.symlink(link_target, target)


def _extract_tar(data: Path, ex: _Extractor) -> None:
    try:
        archive = tarfile.open(data, mode="r:gz")  # noqa: SIM115 (closed by the with below)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise UploadRefused(f"not a readable .tar.gz archive: {exc}") from None
    with archive:
        try:
            for member in archive:
                if member.isdir():
                    ex.directory(member.name)
                elif member.isreg():
                    if member.size > ex.limits.unpacked_bytes:
                        raise UploadRefused(f"archive member {member.name!r} is too large")
                    source = archive.extractfile(member)
                    assert source is not None
                    ex.file(member.name, source, member.mode)
                elif member.issym():
                    ex.link(member.name, member.linkname)
                elif member.islnk():
                    raise UploadRefused(
                        f"archive member {member.name!r} is a hard link (not allowed)"
                    )
                else:
                    raise UploadRefused(
                        f"archive member {member.name!r} is a device, fifo or other special file"
                    )
        except (tarfile.TarError, EOFError, zlib.error) as exc:
            raise UploadRefused(f"the archive is corrupt: {exc}") from None


def _extract_zip(data: Path, ex: _Extractor) -> None:
    try:
        archive = zipfile.ZipFile(data)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UploadRefused(f"not a readable .zip archive: {exc}") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > ex.limits.members:
            raise UploadRefused(f"the archive has more than {ex.limits.members} members")
        declared = sum(i.file_size for i in infos)
        if declared > ex.limits.unpacked_bytes:
            raise UploadRefused(
                f"the archive unpacks to more than {ex.limits.unpacked_bytes} bytes"
            )
        try:
            for info in infos:
                mode = info.external_attr >> 16
                kind = stat.S_IFMT(mode)
                if (
                    info.compress_size
                    and info.file_size > 1 << 20
                    and (info.file_size / info.compress_size > ex.limits.zip_ratio)
                ):
                    raise UploadRefused(
                        f"archive member {info.filename!r} is a zip bomb "
                        f"({info.file_size} bytes from {info.compress_size})"
                    )
                if info.is_dir():
                    ex.directory(info.filename)
                elif kind == stat.S_IFLNK:
                    target = archive.read(info)[:4096].decode("utf-8", errors="replace")
                    ex.link(info.filename, target)
                elif kind in (0, stat.S_IFREG):
                    with archive.open(info) as source:
                        ex.file(info.filename, source, mode)
                else:
                    raise UploadRefused(
                        f"archive member {info.filename!r} is a device, fifo or other special file"
                    )
        except (zipfile.BadZipFile, EOFError, NotImplementedError, zlib.error) as exc:
            raise UploadRefused(f"the archive is corrupt: {exc}") from None


def _walk(box: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(box):
        for name in dirs + files:
            yield Path(root) / name


def unpack(upload: Path, filename: str, box: Path, limits: UploadLimits) -> None:
    """Fill the empty directory ``box`` from an upload; on refusal ``box`` is removed."""
    box.mkdir(parents=True)
    try:
        if is_archive(filename):
            ex = _Extractor(box, limits)
            if filename.lower().endswith(".zip"):
                _extract_zip(upload, ex)
            else:
                _extract_tar(upload, ex)
            _single_top_dir(box)
            # Defence in depth: every path, links resolved, must still be inside the box.
            real_box = box.resolve()
            for path in _walk(box):
                try:
                    inside = path.resolve().is_relative_to(real_box)
                except RuntimeError:  # Python 3.11 reports a symlink loop this way
                    raise UploadRefused(
                        f"{path.relative_to(box)} is part of a symbolic link loop"
                    ) from None
                except OSError as exc:
                    raise UploadRefused(
                        f"{path.relative_to(box)} cannot be resolved: {exc.strerror}"
                    ) from None
                if not inside:
                    raise UploadRefused(f"{path.relative_to(box)} resolves outside the box")
        else:
            target = box / filename
            shutil.copyfile(upload, target)
            os.chmod(target, 0o755)
    except OSError as exc:
        # ENAMETOOLONG, ELOOP, ENOSPC...: the reason, never the server's paths.
        shutil.rmtree(box, ignore_errors=True)
        raise UploadRefused(f"the upload cannot be unpacked: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(box, ignore_errors=True)
        raise


def _single_top_dir(box: Path) -> None:
    """Archives often hold one top directory; its content becomes the box."""
    entries = list(box.iterdir())
    if (
        len(entries) == 1
        and entries[0].is_dir()
        and not entries[0].is_symlink()
        and not (box / MANIFEST).exists()
    ):
        inner = entries[0]
        temporary = box / (".unwrap-" + inner.name)
        inner.rename(temporary)
        for child in temporary.iterdir():
            child.rename(box / child.name)
        temporary.rmdir()


def launch_for(box: Path, filename: str) -> Launch:
    """How the version in ``box`` starts; UploadRefused when that cannot be known."""
    if is_archive(filename):
        manifest = box / MANIFEST
        if not manifest.is_file() or manifest.is_symlink():
            raise UploadRefused(f'the archive has no {MANIFEST} manifest (run = "...") at its top')
        try:
            parsed = read_manifest(manifest)
        except BotError as exc:
            raise UploadRefused(str(exc)) from None
        return Launch(kind="command", run=parsed.run, build=parsed.build)
    # One rule for a single file, shared with `judge match FILE` (judge.bots.file_launch).
    try:
        launch = file_launch(box / filename)
    except BotError as exc:
        raise UploadRefused(str(exc)) from None
    if launch.kind == "python":
        return Launch(kind="python", file=filename)
    return Launch(kind="command", run=launch.run, build=launch.build)


def read_limited(source: IO[bytes], dest: Path, limit: int) -> int:
    """Copy at most ``limit`` bytes; UploadRefused beyond it. Returns the size."""
    size = 0
    with open(dest, "wb") as out:
        while chunk := source.read(COPY_CHUNK):
            size += len(chunk)
            if size > limit:
                raise UploadRefused(f"the upload is larger than {limit} bytes")
            out.write(chunk)
    return size
