"""Shared plumbing for the adapters that host an original project's Python bot file.

``Host`` keeps the protocol on private copies of fds 0 and 1, then points fd 0 at
/dev/null and fd 1 at stderr, so whatever the bot prints or reads (``print``,
``input``, ``os.write(1, ...)``) can never corrupt the protocol. The global
``random`` is seeded from ``JUDGE_SEED`` before the bot's module is loaded.
"""

from __future__ import annotations

import importlib.util
import os
import random
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import BinaryIO


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
        random.seed(int(os.environ.get("JUDGE_SEED", "0")))

    def messages(self) -> Iterator[list[str]]:
        """Every message up to the end of the match; the END message is yielded too."""
        lines: list[str] = []
        for raw in self._in:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
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
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {file} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def report(what: str) -> None:
    """A bot's exception, on stderr (which the judge keeps), without stopping the match."""
    print(f"adapter: {what}", file=sys.stderr)
    traceback.print_exc(file=sys.stderr)
    sys.stderr.flush()
