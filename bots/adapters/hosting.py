"""Shared plumbing for the adapters that host an original project's Python bot file.

``Host`` keeps the protocol on private copies of fds 0 and 1, then points fd 0 at
/dev/null and fd 1 at stderr, so whatever the bot prints or reads (``print``,
``input``, ``os.write(1, ...)``) can never corrupt the protocol. The global
``random`` is seeded from ``JUDGE_SEED`` before the bot's module is loaded, numpy's global
generator once the bot imports it.

A Python 2 bot file comes with its Python 3 translation, made by the judge
(``BOTFILE --python2 TRANSLATED``), or with the reason there is none
(``BOTFILE --python2-error MESSAGE``); see py2compat.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import CodeType, ModuleType
from typing import BinaryIO

from botlib import seed_globals

# A bot file's own botlib.py, if it has one, is still the one it imports.
sys.modules.pop("botlib", None)

READ_SIZE = 65536


class Host:
    def __init__(self) -> None:
        self._in: BinaryIO = os.fdopen(os.dup(0), "rb")
        self._out: BinaryIO = os.fdopen(os.dup(1), "wb")
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)
        sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
        sys.stdout = sys.stderr
        seed_globals()  # random, and numpy's once imported
        # The adapter's own folder (games/<game>/: rules.py, game.py, bots.py...) must not
        # shadow the bot file's sibling modules of the same names.
        adapter_dir = os.path.dirname(os.path.abspath(sys.argv[0]))
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != adapter_dir]

    def messages(self) -> Iterator[list[str]]:
        """Every message up to the end of the match; the END message is yielded too."""
        lines: list[str] = []
        read = self._in.read1  # what has arrived (one read of the pipe when none has)
        partial = b""  # a line not complete yet
        while chunk := read(READ_SIZE):
            end = chunk.rfind(b"\n")
            if end < 0:
                partial += chunk
                continue
            # Whole lines decoded at once: a '\n' is never inside a UTF-8 sequence.
            text = (partial + chunk[:end] if partial else chunk[:end]).decode("utf-8", "replace")
            partial = chunk[end + 1 :]
            for line in text.split("\n"):
                if "\r" in line:
                    line = line.rstrip("\r")
                if line != ".":
                    lines.append(line)
                    continue
                yield lines
                if lines and lines[-1].startswith("END"):  # every game ends its last message so
                    return
                lines = []

    def answer(self, order: str) -> None:
        self._out.write(f"{order}\n.\n".encode())
        self._out.flush()

    def answer_bytes(self, data: bytes) -> None:
        """An answer already encoded (``2\\n.\\n``)."""
        self._out.write(data)
        self._out.flush()

    def answer_all(self, orders: list[str]) -> None:
        """One answer per order, written at once."""
        if not orders:
            return
        self._out.write("".join(f"{order}\n.\n" for order in orders).encode())
        self._out.flush()


class Unloadable(Exception):
    """A Python 2 bot file the judge could not translate, or whose translation is unreadable."""


def python2_code(file: Path) -> CodeType | None:
    """The bot's code with Python 2 meaning when the judge gave a translation, else None.

    Makes this process's builtins and ``random`` Python 2's (py2compat.install).
    """
    options = sys.argv[2:4]
    if len(options) != 2 or options[0] not in ("--python2", "--python2-error"):
        return None
    if options[0] == "--python2-error":
        raise Unloadable(options[1])
    import py2compat

    py2compat.install()
    try:
        text = Path(options[1]).read_text(encoding="utf-8")
        return py2compat.compile_translated(text, str(file))
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        raise Unloadable(f"cannot load the Python 3 translation of {file.name}: {exc}") from None


def load_bot(path: str) -> ModuleType:
    """Import the bot file as a module named after it.

    Its directory goes last on sys.path (sibling imports work, but a bot file
    named random.py cannot shadow the standard module), and a name taken by the
    standard library gets a ``bot_`` prefix, as the originals imported bots
    inside a package or under another name.
    """
    file = Path(path).resolve()
    sys.path.append(str(file.parent))
    name = file.stem
    if name in sys.stdlib_module_names or name in sys.modules:
        name = f"bot_{name}"
    try:
        code = python2_code(file)
    except Unloadable as exc:
        raise SystemExit(f"adapter: {exc}") from None
    if code is None:
        spec = importlib.util.spec_from_file_location(name, file)
    else:
        import py2compat

        loader = py2compat.TranslatedLoader(code)
        spec = importlib.util.spec_from_file_location(name, file, loader=loader)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {file} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


CAUGHT_MARK = "judge-caught: "  # the judge reads the last such line (judge/runner.py)
_caught = {"count": 0, "first": ""}


def report(what: str) -> None:
    """A bot's exception, on stderr (which the judge keeps), without stopping the match.

    Each one is counted: a line ``judge-caught: {"count": N, "first": "..."}`` after the
    traceback lets the judge show how many were caught and the first one's message."""
    print(f"adapter: {what}", file=sys.stderr)
    traceback.print_exc(file=sys.stderr)
    _caught["count"] += 1
    if not _caught["first"]:
        kind, exc, _ = sys.exc_info()
        text = str(exc).splitlines()[0] if exc is not None and str(exc) else ""
        name = kind.__name__ if kind is not None else "Exception"
        _caught["first"] = f"{name}: {text}"[:200] if text else name
    print(CAUGHT_MARK + json.dumps(_caught), file=sys.stderr)
    sys.stderr.flush()
