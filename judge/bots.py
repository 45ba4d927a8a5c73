"""Turning a BOT argument into a BotSpec: built-in name, file, directory or command."""

from __future__ import annotations

import importlib
import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from judge.models import BotSpec

BOTS_DIR = Path(__file__).resolve().parent.parent / "bots"
MANIFEST = "bot.toml"
BUILD_TIMEOUT = 120.0


class BotError(Exception):
    """A BOT argument that cannot be turned into a runnable bot."""


def python_argv(script: Path) -> list[str]:
    # -s: no user site; the helper library is found through PYTHONPATH.
    return [sys.executable, "-s", str(script)]


def builtin_bots(game: str) -> dict[str, str]:
    """Built-in bots of a game: name -> one-line description."""
    try:
        module = importlib.import_module(f"bots.builtin.{game}")
    except ModuleNotFoundError:
        return {}
    return {name: (fn.__doc__ or "").strip() for name, fn in module.BOTS.items()}


def builtin_spec(game: str, name: str) -> BotSpec:
    return BotSpec(
        name=name,
        argv=(sys.executable, "-S", "-s", str(BOTS_DIR / "play.py"), game, name),
        readonly_paths=(BOTS_DIR,),
    )


def compile_c(source: Path, target: Path) -> None:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise BotError(f"{source} needs a C compiler (cc) to build")
    proc = subprocess.run(
        [cc, "-O2", "-o", str(target), str(source)], capture_output=True, text=True, timeout=120
    )
    if proc.returncode != 0:
        raise BotError(f"compiling {source} failed:\n{proc.stderr.strip()}")


@dataclass(frozen=True)
class Manifest:
    """A bot directory's ``bot.toml``: how to start it, how to build it, its name."""

    run: str
    build: str | None
    name: str | None


def read_manifest(manifest: Path) -> Manifest:
    """Parse and check a ``bot.toml`` (the CLI and the server's uploads share this)."""
    try:
        data = tomllib.loads(manifest.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BotError(f"{MANIFEST}: {exc}") from None
    except OSError as exc:
        raise BotError(f"cannot read {manifest}: {exc.strerror}") from None
    run = data.get("run")
    if not isinstance(run, str) or not run.strip():
        raise BotError(f'{MANIFEST} needs a run command, e.g. run = "./bot"')
    build = data.get("build")
    if build is not None and (not isinstance(build, str) or not build.strip()):
        raise BotError(f"{MANIFEST}: build must be a command string")
    name = data.get("name")
    return Manifest(run=run, build=build, name=str(name) if name is not None else None)


def from_directory(path: Path, name: str) -> BotSpec:
    manifest_path = path / MANIFEST
    if not manifest_path.is_file():
        raise BotError(f'{path} is a directory without a {MANIFEST} manifest (run = "...")')
    manifest = read_manifest(manifest_path)
    if manifest.build is not None:
        run_build(manifest.build, path)
    try:
        argv = shlex.split(manifest.run)
    except ValueError as exc:
        raise BotError(f"{MANIFEST}: cannot parse the run command: {exc}") from None
    return BotSpec(name=manifest.name or name, argv=tuple(argv), cwd=path, box=path)


def run_build(command: str, cwd: Path, timeout: float = BUILD_TIMEOUT) -> None:
    try:
        proc = subprocess.run(
            shlex.split(command), cwd=cwd, capture_output=True, text=True, timeout=timeout
        )
    except ValueError as exc:
        raise BotError(f"cannot parse the build command {command!r}: {exc}") from None
    except subprocess.TimeoutExpired:
        raise BotError(f"build command {command!r} took longer than {timeout:g} s") from None
    except OSError as exc:
        raise BotError(f"build command {command!r} cannot run: {exc.strerror}") from None
    if proc.returncode != 0:
        raise BotError(f"build command {command!r} failed:\n{(proc.stderr or proc.stdout).strip()}")


def from_python(path: Path, game: str, adapter: str | None) -> BotSpec:
    from judge import adapters

    argv = adapters.argv_for(path, game, adapter)
    return BotSpec(
        name=path.stem,
        argv=tuple(argv),
        env={"PYTHONPATH": str(BOTS_DIR)},
        cwd=path.parent,
        readonly_paths=(BOTS_DIR,),
        box=path.parent,
    )


def resolve(arg: str, game: str, *, adapter: str | None = None) -> BotSpec:
    """Everything a BOT argument may be; raises BotError with a message for the user."""
    path = Path(arg)
    if arg in builtin_bots(game) and not path.exists():
        return builtin_spec(game, arg)
    if path.is_dir():
        return from_directory(path.resolve(), path.resolve().name)
    if path.suffix == ".py" and path.is_file():
        return from_python(path.resolve(), game, adapter)
    if not path.exists() and path.with_suffix(".c").is_file() and os.sep in arg:
        compile_c(path.with_suffix(".c"), path)
    if path.suffix == ".c" and path.is_file():
        target = path.with_suffix("")
        if not target.exists() or target.stat().st_mtime < path.stat().st_mtime:
            compile_c(path, target)
        path = target
    if path.is_file():
        if not os.access(path, os.X_OK):
            raise BotError(f"{arg} is not executable (try: chmod +x {arg})")
        resolved = path.resolve()
        return BotSpec(
            name=path.name, argv=(str(resolved),), cwd=resolved.parent, box=resolved.parent
        )
    if " " in arg.strip():
        try:
            argv = shlex.split(arg)
        except ValueError as exc:
            raise BotError(f"cannot parse the command {arg!r}: {exc}") from None
        program = argv[0]
        found = shutil.which(program) if os.sep not in program else program
        if not found or not Path(found).exists():
            raise BotError(f"{program!r} in {arg!r} is not a program on PATH or a file")
        for i, part in enumerate(argv[1:], 1):
            candidate = Path(part)
            if candidate.suffix and candidate.exists():
                argv[i] = str(candidate.resolve())
        name = Path(argv[-1]).stem if len(argv) > 1 else Path(program).name
        return BotSpec(name=name, argv=(str(Path(found).resolve()), *argv[1:]))
    known = ", ".join(builtin_bots(game)) or "none"
    raise BotError(
        f"bot {arg!r} is neither a file, a directory, a command nor a built-in "
        f"{game} bot (built-ins: {known})"
    )
