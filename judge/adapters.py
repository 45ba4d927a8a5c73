"""How a .py bot file is run: as a protocol bot, or through an adapter for an original project.

A game whose original project had Python bot files declares an ``OriginalAdapter`` (its
style name and how to recognise such a file from what it defines at its top level) and
ships the adapter script ``games/<game>/adapter.py``, which takes the bot file as its
argument, speaks the protocol on stdin/stdout and calls the bot's functions. The style is
detected (or chosen with ``--adapter``); a file of no known style is a protocol bot.

A Python 2 file (``bots/adapters/py2compat.py`` says which) is translated once per content
(cached on disk under the judge's cache directory), and its adapter (``py2main.py`` for a
protocol bot) gets ``--python2 TRANSLATION`` after the file; the sandbox shows the
translation's directory (an absolute path in argv), which holds nothing else.

Deciding all this (``analyse_source``: the file parsed once, walked in linear time) runs in a
bounded child process, once per content (``judge/analysis.py``); ``argv_for`` only reads
the decision.
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
from judge.analysis import SourceAnalysis, SourceLimits, analyse
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


def source_facts(tree: ast.Module) -> SourceFacts:
    """What a parsed file defines and names, in one walk of its tree."""
    assigned: set[str] = set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Assign):
            for target in node.targets:  # output = ... and output, state = ...
                assigned.update(
                    n.id
                    for n in ast.walk(target)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                )
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and isinstance(node.target, ast.Name):
            assigned.add(node.target.id)
    defined = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return SourceFacts(
        {n.name for n in defined},
        assigned,
        len(defined[-1].args.args) if defined else None,
        bool(names & {"stdin", "input", "raw_input", "readline", "botlib"}),
    )


def detect_style(source: str, game: str, tree: ast.Module | None = None) -> str:
    """The adapter style a bot file needs for ``game`` ('protocol' when it needs none).
    ``tree``: the source already parsed. RecursionError or MemoryError for a source too
    deeply nested for Python's parser (``analyse_source`` runs it in a bounded child)."""
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return PROTOCOL  # maybe Python 2; the bot will report its own errors
    facts = source_facts(tree)
    adapters = get_plugin(game).adapters
    for adapter in adapters:
        if adapter.detect(facts):
            return adapter.style
    if adapters and _py2compat().runs_hidden_code(tree):
        # Its functions appear only when it runs: a contest entry for the game's original.
        return adapters[0].style
    return PROTOCOL


def analyse_source(
    data: bytes, stem: str, game: str, adapter: str | None, translations: Path
) -> tuple[SourceAnalysis, Path | None]:
    """How the file with content ``data`` runs in ``game``, and its translation (made under
    ``translations``) when it is Python 2. The text is parsed once. Run in a bounded child
    (judge/analysis_child.py): a source too deeply nested raises RecursionError or
    MemoryError, which the child reports."""
    py2compat = _py2compat()
    source = data.decode("utf-8", errors="replace")
    try:
        tree: ast.Module | None = ast.parse(source)
    except (SyntaxError, ValueError):
        tree = None  # python2_reason says why
    reason = py2compat.python2_reason(source, tree)
    if reason:
        return _python2(data, stem, reason, game, adapter, translations)
    style = adapter or detect_style(source, game, tree)
    if _written_for_python2(style, game) and not py2compat.python3_evidence(source, tree):
        # Valid in both, nothing says Python 3: the meaning its contest gave it.
        reason = f"is a {style} entry (its contest ran Python 2) without Python 3 only code"
        return _python2(data, stem, reason, game, style, translations)
    return SourceAnalysis(style), None


def _python2(
    data: bytes, stem: str, reason: str, game: str, adapter: str | None, translations: Path
) -> tuple[SourceAnalysis, Path | None]:
    translation = python2_translation(stem, data, translations)
    if isinstance(translation, str):
        return SourceAnalysis(adapter or PROTOCOL, 2, reason, translation), None
    style = adapter or detect_style(translation.read_text(encoding="utf-8"), game)
    return SourceAnalysis(style, 2, reason), translation


def argv_for(
    path: Path,
    game: str,
    adapter: str | None,
    *,
    analysis: SourceAnalysis | None = None,
    limits: SourceLimits | None = None,
) -> list[str]:
    """The command of the .py file ``path``. ``analysis``: the decision made for its content
    before (the server stores it with the version): a Python 3 file is then not read at all.
    Otherwise (and for a Python 2 file's translation) ``judge.analysis.analyse``: its cache,
    else a bounded child; SourceRefused when the file cannot be analysed."""
    known = [PROTOCOL, *styles()]
    if adapter is not None and adapter not in known:
        raise BotError(f"unknown adapter {adapter!r} (known: {', '.join(known)})")
    if adapter is not None:
        adapter_script(adapter, game)  # the wrong game's adapter is refused before any work
    translation = None
    if analysis is None or analysis.python == 2:
        analysed = analyse(path, game, adapter, limits)
        analysis, translation = analysed.analysis, analysed.translation
    if analysis.python == 2:
        script = python_argv(adapter_script(analysis.style, game))
        if analysis.translation_error:
            problem = (
                f"{path.name} {analysis.reason}, and it cannot run as Python 2: "
                f"{analysis.translation_error}"
            )
            return [*script, str(path), "--python2-error", problem]
        assert translation is not None  # analyse() makes it again when it is gone
        return [*script, str(path), "--python2", str(translation)]
    if analysis.style == PROTOCOL:
        return python_argv(path)
    return [*python_argv(adapter_script(analysis.style, game)), str(path)]


def _written_for_python2(style: str, game: str) -> bool:
    if style == PROTOCOL:
        return False
    return any(a.style == style and a.python == 2 for a in get_plugin(game).adapters)


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


def python2_translation(stem: str, data: bytes, root: Path | None = None) -> Path | str:
    """The Python 3 translation of a Python 2 file (a path), or why there is none (a str).

    Each translation sits alone in a directory named by the content's digest, under ``root``
    (the judge's cache, ``python2/``), which the sandbox shows to the bot; the bot sees no
    other bot's translation. RecursionError or MemoryError for a file too deeply nested
    (``analyse_source`` runs this in a bounded child).
    """
    digest = hashlib.sha256(translation_format().encode() + b"\0" + data).hexdigest()[:32]
    with _translate_lock:
        known = _translated.get(digest)
        if isinstance(known, str) or (known is not None and known.is_file()):
            return known
        target = (root or _cache_root()) / digest / f"{stem}.py"
        if not target.is_file():
            py2compat = _py2compat()
            try:
                text = py2compat.translate(py2compat.decode(data), f"{stem}.py")
            except py2compat.TranslationError as exc:
                _translated[digest] = str(exc)
                return str(exc)
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
