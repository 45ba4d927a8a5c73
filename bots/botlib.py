"""A tiny helper for writing judge bots in Python (no dependencies).

    import botlib
    for message in botlib.messages():      # each message is a list of lines
        botlib.answer("R")                 # one order, then the '.' line

``botlib.messages()`` stops at the end of the match (an ``END`` line or EOF).
``botlib.rng()`` is a ``random.Random`` seeded by the judge for this bot.
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
