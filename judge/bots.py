"""Turning a BOT argument into a BotSpec: built-in name, file, directory or command."""

from __future__ import annotations

import importlib
import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from judge import adapters
from judge.analysis import SourceAnalysis, SourceLimits
from judge.botfiles import BOTS_DIR, GAMES_DIR
from judge.botfiles import BotError as BotError  # raised by everything here
from judge.models import BotSpec
from judge.sandbox.base import SAFE_PATH, VISIBLE_SYSTEM

MANIFEST = "bot.toml"
BUILD_TIMEOUT = 120.0


def builtin_bots(game: str) -> dict[str, str]:
    """Built-in bots of a game: name -> one-line description."""
    try:
        module = importlib.import_module(f"games.{game}.bots")
    except ModuleNotFoundError:
        return {}
    return {name: (fn.__doc__ or "").strip() for name, fn in module.BOTS.items()}


def builtin_spec(game: str, name: str) -> BotSpec:
    return BotSpec(
        name=name,
        argv=(sys.executable, "-S", "-s", str(BOTS_DIR / "play.py"), game, name),
        readonly_paths=(BOTS_DIR, GAMES_DIR),
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


NODE_SUFFIXES = (".js", ".mjs", ".cjs")


@dataclass(frozen=True)
class FileLaunch:
    """How a one-file bot starts: the same rule for `judge match FILE` and for an upload."""

    kind: str  # "python" (through the adapters) or "command"
    run: str  # relative to the file's directory
    build: str | None = None


def file_launch(path: Path) -> FileLaunch:
    """The launch of the single file ``path``, by its name and first bytes; BotError if none."""
    name = path.name
    lower = name.lower()
    if lower.endswith(".py"):
        return FileLaunch("python", name)
    if lower.endswith(NODE_SUFFIXES):
        return FileLaunch("command", f"node {shlex.quote(name)}")
    if lower.endswith(".c"):
        program = name[:-2] or "bot"
        return FileLaunch("command", f"./{program}", f"cc -O2 -o {program} {name}")
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError as exc:
        raise BotError(f"cannot read {name}: {exc.strerror}") from None
    if head == b"\x7fELF" or head[:2] == b"#!":
        return FileLaunch("command", f"./{name}")
    raise BotError(
        f"{name!r} is neither an executable (ELF or #! script), a .py, .js or .c file, "
        "nor a directory or .tar.gz/.zip archive with a bot.toml"
    )


def _outside(word: str, allowed: Sequence[Path]) -> str | None:
    """What is wrong with one word of a command as a path, or None."""
    if word.startswith("~"):
        return f"{word} names a home directory"
    path = PurePosixPath(os.path.normpath(word))
    if word.startswith("/"):
        if any(
            path == PurePosixPath(d) or PurePosixPath(d) in path.parents
            for d in (*VISIBLE_SYSTEM, *map(str, allowed))
        ):
            return None
        return f"{word} is outside the bot's directory"
    if path.parts[:1] == ("..",):
        return f"{word} leads out of the bot's directory"
    return None


def check_command(command: str, what: str = "run", allowed: Sequence[Path] = ()) -> list[str]:
    """The words of a bot's run or build command, if it names nothing the bot cannot see.

    A bot sees its own directory and the sandbox's system directories (VISIBLE_SYSTEM),
    nothing else: a program is a name on the bot's PATH or a file in the bot's directory,
    and no word may be an absolute path elsewhere or lead out with "..". ``allowed`` are
    extra directories shown to the bot (the CLI's --allow-path). Pure: no file is read.
    Raises BotError with the reason.
    """
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise BotError(f"{MANIFEST}: cannot parse the {what} command: {exc}") from None
    if not words:
        raise BotError(f"{MANIFEST}: the {what} command is empty")
    # Words inside words too (sh -c "..."), and "--lib=/x", "-I/x".
    tokens = [token for word in words for token in word.split()]
    for token in tokens:
        parts = {token, token.partition("=")[2], token[2:] if token[:2] in ("-I", "-L") else ""}
        for part in parts:
            problem = part and _outside(part, allowed)
            if problem:
                raise BotError(
                    f"{MANIFEST}: the {what} command {command!r} cannot be used: {problem}. "
                    "A bot sees only its own directory and the system directories "
                    f"({', '.join(VISIBLE_SYSTEM)}); programs are found on {SAFE_PATH}"
                )
    return words


@dataclass(frozen=True)
class Manifest:
    """A bot directory's ``bot.toml``: how to start it, how to build it, its name."""

    run: str
    build: str | None
    name: str | None
    contest: str | None = None  # `judge submit` enters the version into this contest


class ManifestError(BotError):
    """A bot.toml that is not valid TOML or lacks what it needs (no path to show would help)."""


def read_manifest(manifest: Path, allowed: Sequence[Path] = ()) -> Manifest:
    """Parse and check a ``bot.toml`` (the CLI and the server's uploads share this).

    The run and build commands go through check_command: an upload naming a host path
    is refused here, with the reason.
    """
    try:
        data = tomllib.loads(manifest.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{MANIFEST} is not valid TOML: {exc}") from None
    except OSError as exc:
        raise ManifestError(f"cannot read {manifest}: {exc.strerror}") from None
    run = data.get("run")
    if not isinstance(run, str) or not run.strip():
        raise ManifestError(f'{MANIFEST} needs a run command, e.g. run = "./bot"')
    build = data.get("build")
    if build is not None and (not isinstance(build, str) or not build.strip()):
        raise ManifestError(f"{MANIFEST}: build must be a command string")
    check_command(run, "run", allowed)
    if build is not None:
        check_command(build, "build", allowed)
    name = data.get("name")
    contest = data.get("contest")
    if contest is not None and not isinstance(contest, str):
        raise BotError(f"{MANIFEST}: contest must be a contest's name")
    return Manifest(
        run=run, build=build, name=str(name) if name is not None else None, contest=contest
    )


def from_directory(path: Path, name: str, allowed: Sequence[Path] = ()) -> BotSpec:
    manifest_path = path / MANIFEST
    if not manifest_path.is_file():
        raise BotError(f'{path} is a directory without a {MANIFEST} manifest (run = "...")')
    try:
        manifest = read_manifest(manifest_path, allowed)
    except ManifestError as exc:
        raise BotError(f"{path}: {exc}") from None
    except BotError as exc:  # a path the bot cannot see
        raise BotError(f"{exc} (or show a directory to it with --allow-path DIR)") from None
    if manifest.build is not None:
        run_build(manifest.build, path)
    argv = shlex.split(manifest.run)
    return BotSpec(
        name=manifest.name or name,
        argv=tuple(argv),
        cwd=path,
        box=path,
        readonly_paths=tuple(allowed),
    )


# Programs a bot's build command may call, when the machine has them (the build runs with
# the bots' PATH): what `judge submit` and the server's /api/health report.
TOOLCHAINS = {
    "cc": "C",
    "gcc": "C",
    "c++": "C++",
    "g++": "C++",
    "make": "make",
    "cargo": "Rust",
    "rustc": "Rust",
    "go": "Go",
    "javac": "Java",
    "java": "Java",
    "node": "JavaScript",
    "python3": "Python",
}


def toolchains() -> dict[str, str]:
    """Build programs found on the bots' PATH: program -> the path it runs."""
    found = {}
    for program in TOOLCHAINS:
        where = shutil.which(program, path=SAFE_PATH)
        if where:
            found[program] = where
    return found


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


def from_python(
    path: Path,
    game: str,
    adapter: str | None,
    python: BotPython | None = None,
    *,
    analysis: SourceAnalysis | None = None,
    limits: SourceLimits | None = None,
) -> BotSpec:
    """A .py file; ``analysis``: the decision stored for its content (see adapters.argv_for);
    ``python``: the interpreter it runs on (--bot-python), else the judge's."""
    argv = adapters.argv_for(path, game, adapter, analysis=analysis, limits=limits)
    # Files the judge made for this bot (a Python 2 file's translation, in the judge's
    # cache): shown to it one by one, never the directory that holds everyone's.
    made = [
        Path(arg)
        for arg in argv[2:]
        if arg.startswith("/")
        and Path(arg).is_file()
        and not Path(arg).resolve().is_relative_to(path.parent)
        and not Path(arg).resolve().is_relative_to(BOTS_DIR)
        and not Path(arg).resolve().is_relative_to(GAMES_DIR)
    ]
    spec = BotSpec(
        name=path.stem,
        argv=tuple(argv),
        # A fixed hash seed: a bot iterating a set of strings does so in the same order in
        # every run, so its matches replay exactly.
        env={"PYTHONPATH": f"{BOTS_DIR}{os.pathsep}{BOTS_DIR / 'adapters'}", "PYTHONHASHSEED": "0"},
        cwd=path.parent,
        readonly_paths=(BOTS_DIR, GAMES_DIR, *made),
        box=path.parent,
    )
    if python is None:
        return spec
    return spec.model_copy(
        update={
            "argv": (str(python.program), *spec.argv[1:]),
            "readonly_paths": (*spec.readonly_paths, *python.prefixes),
        }
    )


@dataclass(frozen=True)
class BotPython:
    """Another interpreter (a virtual environment's, or the Kaggle image's) for Python bots:
    the program as named, and the prefixes it needs, shown read-only to the bot."""

    program: Path
    prefixes: tuple[Path, ...]


MIN_BOT_PYTHON = (3, 9)  # what the adapters' scripts (bots/adapters/, games/*/) need


def bot_python(program: str | Path) -> BotPython:
    """Checks ``program`` is a Python the adapters run on and finds its prefixes (it is run
    once, outside the sandbox: the operator chose it). BotError says what is wrong."""
    path = Path(os.path.abspath(program))  # a venv's python must stay the link it is
    if not path.is_file() or not os.access(path, os.X_OK):
        raise BotError(f"--bot-python {program}: not an executable file")
    ask = "import sys; print(sys.prefix); print(sys.base_prefix); print(*sys.version_info[:2])"
    try:
        done = subprocess.run(
            [str(path), "-S", "-s", "-c", ask], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BotError(f"--bot-python {program}: cannot run it ({exc})") from None
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != 3:
        raise BotError(f"--bot-python {program}: not a Python interpreter")
    major, minor = (int(part) for part in lines[2].split())
    if (major, minor) < MIN_BOT_PYTHON:
        raise BotError(
            f"--bot-python {program} is Python {major}.{minor}; the adapters need "
            f"{'.'.join(map(str, MIN_BOT_PYTHON))} or newer"
        )
    prefixes = {Path(lines[0]), Path(lines[1]), *venv_paths(path)}
    if not any(_is_within(path, [p]) for p in prefixes):
        prefixes.add(path.parent)
    return BotPython(program=path, prefixes=tuple(sorted(prefixes)))


def from_command(arg: str, allowed: Sequence[Path] = ()) -> BotSpec:
    """A command string: its program on the bot's PATH (or a file), its files in one directory.

    The bot's directory is that of the first file the command names; every other file
    must be inside it or inside an ``allowed`` directory.
    """
    try:
        argv = shlex.split(arg)
    except ValueError as exc:
        raise BotError(f"cannot parse the command {arg!r}: {exc}") from None
    program = argv[0]
    box: Path | None = None
    if os.sep in program and (environment := venv_paths(Path(program))):
        # A virtual environment's python is a link to the base interpreter, which uses the
        # environment only when started through the link: kept as named, not resolved. The
        # environment is outside the bot's directory, so it is shown only on purpose.
        if not _is_within(environment[0], allowed):
            raise BotError(
                f"{program} in {arg!r} runs the virtual environment {environment[0]}, which "
                f"the bot sees only if you show it: --allow-path {environment[0]}"
            )
        argv[0] = os.path.abspath(program)
        allowed = [*allowed, *environment[1:]]
    elif os.sep in program:
        if not Path(program).is_file():
            raise BotError(f"{program!r} in {arg!r} is not a file")
        argv[0] = str(Path(program).resolve())
        if _outside(argv[0], ()) is not None:  # not a system program: the bot's own
            box = Path(argv[0]).parent
    else:
        found = shutil.which(program, path=SAFE_PATH)
        if found is None:
            elsewhere = shutil.which(program)
            hint = (
                f"; it is at {elsewhere}, which bots cannot see: name that path and pass "
                f"--allow-path {Path(elsewhere).parent.parent}"
                if elsewhere
                else ""
            )
            raise BotError(
                f"{program!r} in {arg!r} is not a program on the bot's PATH ({SAFE_PATH}){hint}"
            )
        argv[0] = found
    for i, part in enumerate(argv[1:], 1):
        candidate = Path(part)
        if candidate.suffix and candidate.exists():
            argv[i] = str(candidate.resolve())
            if box is None:
                box = Path(argv[i]).parent
    visible = [*([box] if box is not None else []), *allowed]
    for word in argv:
        path = Path(word)
        if (
            word.startswith("/")
            and path.exists()
            and not _is_within(path, visible)
            and _outside(word, ()) is not None
        ):
            where = f"the bot's directory {box}" if box is not None else "no bot directory"
            raise BotError(
                f"{word} in {arg!r} is outside {where}; show it to the bot with "
                f"--allow-path {path.parent}"
            )
    name = Path(argv[-1]).stem if len(argv) > 1 else Path(program).name
    return BotSpec(name=name, argv=tuple(argv), cwd=box, box=box, readonly_paths=tuple(allowed))


def venv_paths(program: Path) -> list[Path]:
    """For a virtual environment's interpreter (``ENV/bin/python``): ENV, then the prefix of
    the base interpreter it links to (both read-only to the bot); [] for any other program."""
    config = program.parent.parent / "pyvenv.cfg"
    if program.parent.name != "bin" or not program.is_file() or not config.is_file():
        return []
    found = [program.parent.parent.resolve()]
    try:
        lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return found
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            home = Path(value.strip()).resolve()  # BASE/bin
            found.append(home.parent if home.name == "bin" else home)
    return found


def _is_within(path: Path, directories: Sequence[Path]) -> bool:
    resolved = path.resolve()
    return any(resolved == d or d in resolved.parents for d in directories)


def resolve(
    arg: str,
    game: str,
    *,
    adapter: str | None = None,
    allowed: Sequence[Path] = (),
    python: BotPython | None = None,
) -> BotSpec:
    """Everything a BOT argument may be; raises BotError with a message for the user.

    ``allowed``: directories outside a bot's own that it may see (--allow-path).
    ``python``: the interpreter of ``.py`` bot files (--bot-python); built-ins keep the judge's.
    """
    allowed = [Path(p).resolve() for p in allowed]
    path = Path(arg)
    if arg in builtin_bots(game) and not path.exists():
        return builtin_spec(game, arg)
    if path.is_dir():
        return from_directory(path.resolve(), path.resolve().name, allowed)
    if path.suffix == ".py" and path.is_file():
        return from_python(path.resolve(), game, adapter, python)
    if not path.exists() and path.with_suffix(".c").is_file() and os.sep in arg:
        compile_c(path.with_suffix(".c"), path)
    if path.suffix == ".c" and path.is_file():
        target = path.with_suffix("")
        if not target.exists() or target.stat().st_mtime < path.stat().st_mtime:
            compile_c(path, target)
        path = target
    if path.is_file() and path.suffix.lower() in NODE_SUFFIXES:
        return from_command(f"node {shlex.quote(str(path.resolve()))}", allowed)
    if path.is_file():
        file_launch(path)  # an ELF or #! script, as the server requires of an upload
        if not os.access(path, os.X_OK):
            raise BotError(f"{arg} is not executable (try: chmod +x {arg})")
        resolved = path.resolve()
        return BotSpec(
            name=path.name, argv=(str(resolved),), cwd=resolved.parent, box=resolved.parent
        )
    if " " in arg.strip():
        return from_command(arg, allowed)
    known = ", ".join(builtin_bots(game)) or "none"
    raise BotError(
        f"bot {arg!r} is neither a file, a directory, a command nor a built-in "
        f"{game} bot (built-ins: {known})"
    )
