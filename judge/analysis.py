"""What a ``.py`` bot file is, decided once per content, at a bounded cost.

The decision (its adapter style, Python 2 or 3 and why, or why it cannot run as Python 2) is
made by ``judge/adapters.py``'s ``analyse_source`` in a child process
(``judge/analysis_child.py``) under rlimits on CPU seconds and address space and a wall-clock
timeout, so a hostile source costs at most those, never the caller's memory or (on the
server) its event loop. A source over ``SourceLimits.source_bytes``, too deeply nested for
Python's parser, or over a limit is refused with ``SourceRefused`` (a ``BotError``: the CLI's
usage error, the server's 400). Results are cached on disk by the SHA-256 of the content,
the game, the forced adapter, the file's stem and the deciding code, so each content is
analysed once per machine; the server also stores the decision with the version.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from judge import logs
from judge.botfiles import ROOT, BotError

log = logs.get_logger("judge.analysis")

# Bumped when a cached decision would differ for the same content and code.
ANALYSIS_FORMAT = "1"
# The code that decides: an edit to any of these makes every cached decision stale.
DECIDING_CODE = (
    "judge/adapters.py",
    "judge/analysis_child.py",
    "bots/adapters/py2compat.py",
    "games/plugin.py",
)


@dataclass(frozen=True)
class SourceLimits:
    """What analysing one source may cost (server: ``--max-source``, ``--analysis-cpu``)."""

    source_bytes: int = 1 << 20
    cpu_seconds: int = 30
    memory_bytes: int = 2 << 30
    # Wall clock, for a machine busy with other work: CPU seconds are the real budget.
    wall_seconds: float = 300.0


@dataclass(frozen=True)
class SourceAnalysis:
    """How a .py file runs: ``style`` is an adapter style or ``protocol``."""

    style: str
    python: int = 3
    reason: str = ""  # why it is Python 2
    translation_error: str = ""  # why it cannot run as Python 2 (it fails at its start)


@dataclass(frozen=True)
class Analysed:
    """An analysis and, for a Python 2 file, where its Python 3 translation is."""

    analysis: SourceAnalysis
    translation: Path | None = None


class SourceRefused(BotError):
    """A source the judge will not analyse: too large, too deeply nested, or over a limit."""


def analyse(
    path: Path,
    game: str,
    adapter: str | None,
    limits: SourceLimits | None = None,
) -> Analysed:
    """The analysis of the file ``path`` for ``game``: from the cache, else made in a bounded
    child (never in this process); a cached Python 2 analysis whose translation is gone is
    made again."""
    limits = limits or SourceLimits()
    data = _read(path, limits)
    key = cache_key(data, path.stem, game, adapter)
    cached = _cached(key)
    if cached is not None:
        return cached
    log.info("source analysis started", file=path.name, bytes=len(data), game=game)
    began = time.monotonic()
    analysed = _run_child(data, path.name, game, adapter, limits)
    log.info(
        "source analysed",
        file=path.name,
        bytes=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        style=analysed.analysis.style,
        python=analysed.analysis.python,
        seconds=round(time.monotonic() - began, 3),
    )
    _store(key, analysed)
    return analysed


def _read(path: Path, limits: SourceLimits) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read(limits.source_bytes + 1)
    except OSError as exc:
        raise BotError(f"cannot read {path.name}: {exc.strerror}") from None
    if len(data) > limits.source_bytes:
        raise SourceRefused(
            f"{path.name} is larger than {limits.source_bytes} bytes, the most the judge "
            "analyses for a Python bot file (a larger bot can come as an archive with a "
            "bot.toml that runs it)"
        )
    return data


# -- the child ---------------------------------------------------------------------------------


def child_command(game: str, adapter: str | None, stem: str, limits: SourceLimits) -> list[str]:
    return [
        sys.executable,
        "-s",
        "-m",
        "judge.analysis_child",
        game,
        adapter or "",
        stem,
        str(_translations_dir()),
        str(limits.cpu_seconds),
        str(limits.memory_bytes),
    ]


def _run_child(
    data: bytes, name: str, game: str, adapter: str | None, limits: SourceLimits
) -> Analysed:
    command = child_command(game, adapter, Path(name).stem, limits)
    try:
        proc = subprocess.run(
            command, input=data, capture_output=True, timeout=limits.wall_seconds, cwd=ROOT
        )
    except subprocess.TimeoutExpired:  # run() has killed it
        raise SourceRefused(
            f"analysing {name} took longer than {limits.wall_seconds:g} s; the judge gives up"
        ) from None
    except OSError as exc:
        raise BotError(f"cannot start the analysis of {name}: {exc.strerror}") from None
    return _outcome(proc, name, limits)


def _outcome(proc: subprocess.CompletedProcess[bytes], name: str, limits: SourceLimits) -> Analysed:
    """What the child's exit says: its JSON answer, or which limit ended it."""
    if proc.returncode == 0:
        try:
            answer = json.loads(proc.stdout)
            if "refused" in answer:
                raise SourceRefused(f"{name} cannot be analysed: {answer['refused']}")
            return _from_json(answer)
        except (ValueError, TypeError, KeyError):
            pass  # a garbled answer: reported below as the judge's failure
    memory_mib = limits.memory_bytes >> 20
    if proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise SourceRefused(
            f"{name} cannot be analysed: it needs more than {limits.cpu_seconds} s of CPU "
            f"(or {memory_mib} MiB of memory), the most the judge spends on a source"
        )
    if b"MemoryError" in proc.stderr[-2000:]:
        raise SourceRefused(
            f"{name} cannot be analysed: it needs more than {memory_mib} MiB of memory, "
            "the most the judge spends on a source"
        )
    log.error(
        "source analysis failed",
        file=name,
        status=proc.returncode,
        stderr=proc.stderr[-2000:].decode(errors="replace"),
    )
    raise BotError(f"the judge could not analyse {name} (its analysis exited {proc.returncode})")


def _from_json(answer: dict[str, object]) -> Analysed:
    fields = answer["analysis"]
    if not isinstance(fields, dict):
        raise TypeError("analysis is not an object")
    translation = answer.get("translation")
    return Analysed(
        SourceAnalysis(**fields), Path(translation) if isinstance(translation, str) else None
    )


def _to_json(analysed: Analysed) -> dict[str, object]:
    translation = str(analysed.translation) if analysed.translation is not None else None
    return {"analysis": asdict(analysed.analysis), "translation": translation}


# -- the cache ---------------------------------------------------------------------------------


def _cache_dir() -> Path:
    from judge.sandbox.base import cache_dir

    return cache_dir()


def _translations_dir() -> Path:
    return _cache_dir() / "python2"


_code_digest: str | None = None


def _deciding_code(game: str) -> bytes:
    """The deciding code's digest, and the game's own recognisers (its game.py)."""
    global _code_digest
    if _code_digest is None:
        digest = hashlib.sha256(f"{ANALYSIS_FORMAT} {sys.version}".encode())
        for name in DECIDING_CODE:
            digest.update(_file_bytes(ROOT / name))
        _code_digest = digest.hexdigest()
    return _code_digest.encode() + _file_bytes(ROOT / "games" / game / "game.py")


def _file_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def cache_key(data: bytes, stem: str, game: str, adapter: str | None) -> str:
    digest = hashlib.sha256(_deciding_code(game))
    for part in (game, adapter or "", stem):
        digest.update(b"\0" + part.encode(errors="surrogateescape"))
    digest.update(b"\0" + data)
    return digest.hexdigest()


def _cache_file(key: str) -> Path:
    return _cache_dir() / "analysis" / key[:2] / f"{key}.json"


def _cached(key: str) -> Analysed | None:
    try:
        analysed = _from_json(json.loads(_cache_file(key).read_bytes()))
    except (OSError, ValueError, TypeError, KeyError):
        return None
    made = analysed.translation is not None and analysed.translation.is_file()
    if analysed.analysis.python == 2 and not analysed.analysis.translation_error and not made:
        return None  # its translation is gone: made again
    return analysed


def _store(key: str, analysed: Analysed) -> None:
    """Best effort: a cache that cannot be written only means analysing again."""
    target = _cache_file(key)
    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(json.dumps(_to_json(analysed)), encoding="utf-8")
        os.replace(partial, target)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
