"""A tiny helper for writing judge bots in Python (no dependencies).

    import botlib
    for message in botlib.messages():      # each message is a list of lines
        botlib.answer("R")                 # one order, then the '.' line

``botlib.messages()`` stops at the end of the match (an ``END`` line or EOF).
``botlib.rng()`` is a ``random.Random`` seeded by the judge for this bot;
``botlib.seed_globals()`` seeds the global ``random`` and numpy's global generator instead.
"""

from __future__ import annotations

import os
import random
import sys

TYPE_CHECKING = False  # not typing's: a bot's start would import typing and collections
if TYPE_CHECKING:
    from collections.abc import Iterator

_in = sys.stdin.buffer
_out = sys.stdout.buffer
_readline = _in.readline  # buffered: one read system call brings a whole message


def read_message() -> list[str] | None:
    """The next message from the judge, or None at EOF."""
    lines: list[str] = []
    while True:
        raw = _readline()
        if raw == b".\n":
            return lines
        if not raw:
            return None
        line = raw.decode().rstrip("\r\n")
        if line == ".":
            return lines
        lines.append(line)


def messages() -> Iterator[list[str]]:
    """Every turn's message until the judge says the match is over."""
    while (message := read_message()) is not None:
        for line in message:
            if line[:3] == "END":
                return
        yield message


def answer(*orders: str) -> None:
    if len(orders) == 1:
        _out.write(orders[0].encode() + b"\n.\n")
    else:
        _out.write("".join(f"{order}\n" for order in orders).encode() + b".\n")
    _out.flush()


def fields(message: list[str]) -> dict[str, list[str]]:
    """Key-prefixed lines as a dict: ``['Y 1', 'E 2']`` -> ``{'Y': ['1'], 'E': ['2']}``."""
    result: dict[str, list[str]] = {}
    for line in message:
        key, _, rest = line.partition(" ")
        result[key] = rest.split()
    return result


def rng() -> random.Random:
    return random.Random(int(os.environ.get("JUDGE_SEED", "0")))


def seed_globals() -> None:
    """Seed the global ``random`` from ``JUDGE_SEED``, and numpy's global generator
    (``np.random``) as soon as the bot imports it: importing numpy here would cost every bot
    that never uses it ~60 ms."""
    seed = int(os.environ.get("JUDGE_SEED", "0"))
    random.seed(seed)
    if "numpy.random" in sys.modules:
        _seed_numpy(sys.modules["numpy.random"], seed)
    else:
        sys.meta_path.insert(0, _NumpySeeder(seed))


def _seed_numpy(numpy_random: object, seed: int) -> None:
    # Every bit of the seed (numpy takes 32-bit words).
    numpy_random.seed([seed & 0xFFFFFFFF, seed >> 32])  # type: ignore[attr-defined]


class _NumpySeeder:
    """A meta path finder that finds nothing itself: it lets the finder of ``numpy.random``
    load it, then seeds it, and leaves."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def find_spec(self, name: str, path: object, target: object = None) -> object:
        if name != "numpy.random":
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:
            spec = finder.find_spec(name, path, target)  # type: ignore[attr-defined]
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        load = loader.exec_module
        seed = self.seed

        def exec_module(module: object) -> None:
            load(module)
            _seed_numpy(module, seed)

        loader.exec_module = exec_module  # (this module's own loader object only)
        return spec
