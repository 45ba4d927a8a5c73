"""Runs a botfights/liarsdice bot file as a judge bot: ``liarsdice.py BOTFILE``.

The file defines ``get_play(me, hands, history)`` (the README's name) or
``play`` (the name at HEAD). It is called exactly as the original calls it:
on its turn with the masked hands, and once per finished hand with the revealed
hands and a history ending in ``:0`` (the showdown; the answer is ignored). The
answer goes through ``int()``; any exception counts as a liar call (0), as in
the original's tournament mode, and its traceback goes to stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from hosting import Host, load_bot, report

MAX_DIGITS = 120  # longer numbers would break the protocol's line limit; they are illegal anyway


def play_function(module: Any) -> Callable[[str, str, str], Any]:
    for name in ("get_play", "play"):
        function = getattr(module, name, None)
        if callable(function):
            return function  # type: ignore[no-any-return]
    raise SystemExit(f"{module.__file__} defines neither get_play(me, hands, history) nor play")


def ask(function: Callable[[str, str, str], Any], me: str, hands: str, history: str) -> int:
    try:
        return int(function(me, hands, history))
    except KeyboardInterrupt:
        raise
    except BaseException:  # the original catches everything in tournament mode
        report(f"get_play({me!r}, {hands!r}, {history!r}) raised; counted as 0 (liar)")
        return 0


def main() -> None:
    host = Host()
    function = play_function(load_bot(sys.argv[1]))
    me = ""
    for message in host.messages():
        hands = history = None
        for line in message:
            key, _, rest = line.partition(" ")
            if key == "Y":
                me = rest
            elif key == "S":
                shown_hands, shown_history = rest.split(" ")[:2]
                ask(function, me, shown_hands, shown_history)
            elif key == "H":
                hands = rest
            elif key == "P":
                history = rest
        if hands is None or history is None:
            continue  # the final message: showdowns only
        play = ask(function, me, hands, history)
        host.answer(str(play) if len(str(play)) <= MAX_DIGITS else "0")


if __name__ == "__main__":
    main()
