"""What `judge submit DIR` sends: the files a user means, as a .tar.gz the server accepts.

- files ignored by the directory's ``.gitignore`` files (git's rules, through pathspec) and
  version-control or cache directories (``.git``, ``__pycache__``) are left out;
- when ``bot.toml`` has a build command, build output (``target/``, ``build/``, ``obj/``,
  ``*.o``, ``*.class``) is left out too: the server builds it again;
- hard links are stored as ordinary files, and symbolic links that point outside the
  directory (or absolutely) as the file they point to (the server refuses both as links);
- ``bot.toml`` and whatever its run command names are always sent.
"""

from __future__ import annotations

import io
import os
import shlex
import tarfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from judge.bots import MANIFEST, BotError, read_manifest

ALWAYS_SKIPPED = (".git/", ".hg/", ".svn/", "__pycache__/", "*.pyc", ".DS_Store")
BUILD_OUTPUT = ("target/", "build/", "obj/", "*.o", "*.class")


@dataclass
class Packed:
    data: bytes
    files: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # path -> why it was left out

    def describe(self) -> str:
        size = len(self.data)
        text = f"packed {len(self.files)} files ({size / 1024:.1f} KiB compressed)"
        if self.skipped:
            reasons: dict[str, list[str]] = {}
            for path, why in self.skipped.items():
                reasons.setdefault(why, []).append(path)
            parts = [
                f"{', '.join(sorted(paths)[:4])}{' ...' if len(paths) > 4 else ''} ({why})"
                for why, paths in reasons.items()
            ]
            text += "; left out: " + "; ".join(parts)
        return text


def _spec(patterns: list[str]):  # type: ignore[no-untyped-def]
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns)


def _ignore_specs(root: Path) -> list[tuple[PurePosixPath, object]]:
    """Every .gitignore below ``root`` with the directory it applies to."""
    specs = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".hg", ".svn")]
        if ".gitignore" in files:
            lines = (Path(directory) / ".gitignore").read_text(errors="replace").splitlines()
            base = PurePosixPath(Path(directory).relative_to(root).as_posix())
            specs.append((base, _spec(lines)))
    return specs


def _run_files(run: str) -> set[str]:
    try:
        words = shlex.split(run)
    except ValueError:
        return set()
    return {os.path.normpath(w) for w in words if not w.startswith("-")}


def pack_directory(bot: Path) -> Packed:
    """The .tar.gz of ``bot``'s content; BotError without a valid bot.toml."""
    manifest_path = bot / MANIFEST
    if not manifest_path.is_file():
        raise BotError(f'{bot} is a directory without a {MANIFEST} (run = "...")')
    manifest = read_manifest(manifest_path)
    fixed = _spec(list(ALWAYS_SKIPPED))
    build = _spec(list(BUILD_OUTPUT)) if manifest.build else None
    ignores = _ignore_specs(bot)
    needed = _run_files(manifest.run) | {MANIFEST}
    root = bot.resolve()
    packed = Packed(data=b"")

    def why_skipped(rel: str, is_dir: bool) -> str | None:
        if rel in needed:
            return None
        name = rel + "/" if is_dir else rel
        if fixed.match_file(name):
            return "version control or cache"
        if build is not None and build.match_file(name):
            return "build output: the server builds it"
        for base, spec in ignores:
            inside = PurePosixPath(rel)
            if base == PurePosixPath(".") or base in inside.parents:
                sub = inside.relative_to(base) if base != PurePosixPath(".") else inside
                if spec.match_file(str(sub) + ("/" if is_dir else "")):  # type: ignore[attr-defined]
                    return "in .gitignore"
        return None

    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as archive:
        for directory, dirs, files in os.walk(bot):
            here = Path(directory)
            kept_dirs = []
            for d in sorted(dirs):
                rel = (here / d).relative_to(bot).as_posix()
                why = why_skipped(rel, True)
                if why:
                    packed.skipped[rel + "/"] = why
                elif (here / d).is_symlink():
                    _add_link_or_file(archive, here / d, rel, root, packed)
                else:
                    kept_dirs.append(d)
            dirs[:] = kept_dirs
            for f in sorted(files):
                path = here / f
                rel = path.relative_to(bot).as_posix()
                why = why_skipped(rel, False)
                if why:
                    packed.skipped[rel] = why
                    continue
                if path.is_symlink():
                    _add_link_or_file(archive, path, rel, root, packed)
                elif path.is_file():
                    _add_file(archive, path, rel)
                    packed.files.append(rel)
                else:
                    packed.skipped[rel] = "not a regular file"
    packed.data = raw.getvalue()
    return packed


def _add_file(archive: tarfile.TarFile, path: Path, rel: str) -> None:
    """A regular file, never a hard link (the server refuses those)."""
    stat = path.stat()
    info = tarfile.TarInfo(rel)
    info.size = stat.st_size
    info.mode = 0o755 if stat.st_mode & 0o111 else 0o644
    info.mtime = int(stat.st_mtime)
    with open(path, "rb") as f:
        archive.addfile(info, f)


def _add_link_or_file(
    archive: tarfile.TarFile, path: Path, rel: str, root: Path, packed: Packed
) -> None:
    target = os.readlink(path)
    resolved = path.resolve()
    inside = resolved.is_relative_to(root) and not target.startswith("/")
    if inside and ".." not in PurePosixPath(target).parts:
        info = tarfile.TarInfo(rel)
        info.type = tarfile.SYMTYPE
        info.linkname = target
        archive.addfile(info)
        packed.files.append(rel)
    elif resolved.is_file():
        _add_file(archive, resolved, rel)
        packed.files.append(rel)
    else:
        packed.skipped[rel] = "a link to a directory outside the bot"
