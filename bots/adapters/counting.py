"""Runs a jthistle/KOTH-counting bot file as a judge bot: ``counting.py BOTFILE``.

``strategy(last_results)`` gets the same live list every round, with one
``(value reached, won)`` tuple appended after each round, as the original's
controller does (a bot that mutates it corrupts its own history there too).
The legacy form (the file also defines ``turn``): ``strategy`` returns a tuple
of arguments and the choice is the first j in 1..99 with ``turn(j, *args) ==
False``, else 100. The choice goes through ``int()`` (floats are truncated).
An exception in the bot ends this process (the original aborts its arena); a
value ``int()`` rejects or outside 1..100 is sent so the judge disqualifies it.
"""

from __future__ import annotations

import sys
from typing import Any

from hosting import Host, load_bot

MAX_TEXT = 40


def legacy_choice(turn: Any, args: Any) -> Any:
    for value in range(1, 100):
        if turn(value, *args) == False:  # noqa: E712 - the original compares with == False
            return value
    return 100


def as_order(choice: Any) -> str:
    try:
        value = int(choice)
    except ValueError:
        return f"non-numeric {str(choice)[:MAX_TEXT]!r}"
    text = str(value)
    return text if len(text) <= MAX_TEXT else f"out-of-range {text[:MAX_TEXT]}..."


def main() -> None:
    host = Host()
    module = load_bot(sys.argv[1])
    strategy = module.strategy
    turn = getattr(module, "turn", None)
    last_results: list[tuple[int, bool]] = []
    for message in host.messages():
        for line in message:
            key, _, rest = line.partition(" ")
            if key == "L":
                value, won = rest.split(" ")
                last_results.append((int(value), won == "1"))
        if any(line.startswith("END") for line in message):
            break
        choice = strategy(last_results)
        if callable(turn):
            choice = legacy_choice(turn, choice)
        host.answer(as_order(choice))


if __name__ == "__main__":
    main()
