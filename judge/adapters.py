"""How a .py bot file is run: as a protocol bot, or through an adapter for an original project.

A game whose original project had Python bot files declares an ``OriginalAdapter`` (its
style name and how to recognise such a file from what it defines at its top level) and
ships the adapter script ``games/<game>/adapter.py``, which takes the bot file as its
argument, speaks the protocol on stdin/stdout and calls the bot's functions. The style is
detected (or chosen with ``--adapter``); a file of no known style is a protocol bot.

A Python 2 file (``bots/adapters/py2compat.py`` says which) is translated here, once per
content (cached on disk under the judge's cache directory), and its adapter (``py2main.py``
for a protocol bot) gets ``--python2 TRANSLATION`` after the file; the sandbox shows the
translation's directory (an absolute path in argv), which holds nothing else.
"""

from __future__ import annotations

import ast
import hashlib
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from games import all_plugins, get_plugin
from games.plugin import SourceFacts
from judge.botfiles import BOTS_DIR, GAMES_DIR, BotError, python_argv

if TYPE_CHECKING:
    from types import ModuleType

ADAPTERS_DIR = BOTS_DIR / "adapters"
PROTOCOL = "protocol"


def styles() -> dict[str, str]:
    """Every adapter style -> the game it is for (``protocol`` is for any game)."""
    return {
        adapter.style: name for name, plugin in all_plugins().items() for adapter in plugin.adapters
    }


def _top_level_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    functions: set[str] = set()
    assigned: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node in tree.body:
            functions.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:  # output = ... and output, state = ...
                assigned.update(
                    n.id
                    for n in ast.walk(target)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                )
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and isinstance(node.target, ast.Name):
            assigned.add(node.target.id)
    return functions, assigned


def detect_style(source: str, game: str) -> str:
    """The adapter style a bot file needs for ``game`` ('protocol' when it needs none)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return PROTOCOL  # maybe Python 2; the bot will report its own errors
    functions, assigned = _top_level_names(tree)
    defined = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {
        a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    facts = SourceFacts(
        functions,
        assigned,
        len(defined[-1].args.args) if defined else None,
        bool(names & {"stdin", "input", "raw_input", "readline", "botlib"}),
    )
    adapters = get_plugin(game).adapters
    for adapter in adapters:
        if adapter.detect(facts):
            return adapter.style
    if adapters and _py2compat().runs_hidden_code(tree):
        # Its functions appear only when it runs: a contest entry for the game's original.
        return adapters[0].style
    return PROTOCOL


def argv_for(path: Path, game: str, adapter: str | None) -> list[str]:
    known = [PROTOCOL, *styles()]
    if adapter is not None and adapter not in known:
        raise BotError(f"unknown adapter {adapter!r} (known: {', '.join(known)})")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BotError(f"cannot read {path}: {exc.strerror}") from None
    source = data.decode("utf-8", errors="replace")
    reason = python2_reason(source)
    if reason:
        return python2_argv(path, data, reason, game, adapter)
    style = adapter or detect_style(source, game)
    if _written_for_python2(style, game) and not python3_evidence(source):
        # Valid in both, nothing says Python 3: the meaning its contest gave it.
        reason = f"is a {style} entry (its contest ran Python 2) without Python 3 only code"
        return python2_argv(path, data, reason, game, style)
    if style == PROTOCOL:
        return python_argv(path)
    return [*python_argv(adapter_script(style, game)), str(path)]


def _written_for_python2(style: str, game: str) -> bool:
    if style == PROTOCOL:
        return False
    return any(a.style == style and a.python == 2 for a in get_plugin(game).adapters)


def python3_evidence(source: str) -> str:
    """What makes the file clearly Python 3 ('' if nothing); never raises for any text."""
    try:
        evidence: str = _py2compat().python3_evidence(source)
        return evidence
    except (RecursionError, MemoryError):
        return "too deeply nested to read"


def adapter_script(style: str, game: str) -> Path:
    if style == PROTOCOL:
        script = ADAPTERS_DIR / "py2main.py"
    else:
        for_game = styles()[style]
        if for_game != game:
            raise BotError(f"the {style} adapter is for {for_game}, not {game}")
        [adapter] = [a for a in get_plugin(game).adapters if a.style == style]
        script = GAMES_DIR / for_game / adapter.script
    if not script.is_file():
        raise BotError(f"no adapter for {style} bots is installed ({script} is missing)")
    return script


# -- Python 2 files ----------------------------------------------------------------------------


def _py2compat() -> ModuleType:
    """The Python 2 translator, imported for a .py bot only (~12 ms a built-in need not pay)."""
    from bots.adapters import py2compat

    return py2compat


def translation_format() -> str:
    """Changes whenever translations made before would differ (part of the cache key)."""
    py2compat = _py2compat()
    fixers = sorted(py2compat.SKIPPED_FIXERS)
    return f"1 {sys.version_info[:3]} {py2compat.translator_version()} {fixers}"


_translated: dict[str, Path | str] = {}  # content digest -> translation, or why there is none
_translate_lock = threading.Lock()


def python2_reason(source: str) -> str:
    """Why the file is Python 2 ('' for Python 3); never raises for any text."""
    try:
        reason: str = _py2compat().python2_reason(source)
        return reason
    except (RecursionError, MemoryError):  # absurdly nested code: left to Python 3 to report
        return ""


def python2_argv(path: Path, data: bytes, reason: str, game: str, adapter: str | None) -> list[str]:
    """The command for a Python 2 file: its adapter with the translation, or with the error.

    A file that cannot be translated still gets a command: the adapter prints why on the
    bot's stderr and exits, so the seat fails at its start with the reason kept in the result.
    """
    translation = python2_translation(path.stem, data)
    if isinstance(translation, str):
        style = adapter or PROTOCOL
        problem = f"{path.name} {reason}, and it cannot run as Python 2: {translation}"
        return [*python_argv(adapter_script(style, game)), str(path), "--python2-error", problem]
    if adapter is None:
        try:
            style = detect_style(translation.read_text(encoding="utf-8"), game)
        except OSError as exc:
            raise BotError(f"cannot read the translation of {path}: {exc.strerror}") from None
    else:
        style = adapter
    return [*python_argv(adapter_script(style, game)), str(path), "--python2", str(translation)]


def python2_translation(stem: str, data: bytes) -> Path | str:
    """The Python 3 translation of a Python 2 file (a path), or why there is none (a str).

    Each translation sits alone in a directory named by the content's digest, which the
    sandbox shows to the bot; the bot sees no other bot's translation.
    """
    digest = hashlib.sha256(translation_format().encode() + b"\0" + data).hexdigest()[:32]
    with _translate_lock:
        known = _translated.get(digest)
        if isinstance(known, str) or (known is not None and known.is_file()):
            return known
        target = _cache_root() / digest / f"{stem}.py"
        if not target.is_file():
            py2compat = _py2compat()
            try:
                text = py2compat.translate(py2compat.decode(data), f"{stem}.py")
            except py2compat.TranslationError as exc:
                _translated[digest] = str(exc)
                return str(exc)
            except (RecursionError, MemoryError):
                _translated[digest] = "it is too deeply nested to translate"
                return _translated[digest]
            target = _store(target, text)
        _translated[digest] = target
        return target


def _cache_root() -> Path:
    from judge.sandbox.base import cache_dir

    return cache_dir() / "python2"


def _store(target: Path, text: str) -> Path:
    """Writes the translation (readable by a sandbox's dropped uid); a temporary directory
    when the cache cannot be written."""
    try:
        target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        _write(target, text)
    except OSError:
        target = Path(tempfile.mkdtemp(prefix="botjudge-python2-")) / target.name
        target.parent.chmod(0o755)
        try:
            _write(target, text)
        except OSError as exc:
            raise BotError(f"cannot store the Python 3 translation: {exc.strerror}") from None
    return target


def _write(target: Path, text: str) -> None:
    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    partial.write_text(text, encoding="utf-8")
    partial.chmod(0o644)
    os.replace(partial, target)
