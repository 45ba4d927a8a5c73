"""Built-in liar's dice bots. Each plays a whole match over stdin/stdout.

A turn message holds ``Y <me>``, ``H <hands>``, ``P <history>`` (the original's
``get_play`` arguments); showdown lines ``S ...`` arrive as news and need no answer.
"""

from __future__ import annotations

import random

from bots import botlib

TRIES = 4


def turn_state(message: list[str]) -> tuple[str, str, str]:
    """``(me, hands, history)`` of a turn message."""
    me = hands = history = ""
    for line in message:
        key, _, rest = line.partition(" ")
        if key == "Y":
            me = rest
        elif key == "H":
            hands = rest
        elif key == "P":
            history = rest
    return me, hands, history


def computer_play(me: str, hands: str, history: str, rng: random.Random) -> int:
    """The original p_computer heuristic (rules.md §2.5), from its description."""
    entries = dict(entry.split(":", 1) for entry in hands.split(","))
    mine = entries.get(me, "")
    if not history:
        return 10 + int(mine[0])  # one of my highest face: always true
    total_dice = sum(len(dice) for dice in entries.values())
    last_bid = int(history.rsplit(":", 1)[1])
    for _ in range(TRIES):
        face = int(rng.choice(mine))
        quantity = 1 + int(abs(rng.normalvariate(0, total_dice / 6)))
        bid = quantity * 10 + face
        if bid > last_bid:
            return bid
    return 0


def computer() -> None:
    """the original p_computer: opens one of its highest face, then random plausible raises"""
    rng = botlib.rng()
    for message in botlib.messages():
        me, hands, history = turn_state(message)
        botlib.answer(str(computer_play(me, hands, history, rng)))


def robot() -> None:
    """the original p_robot template: always calls liar (loses every hand it opens)"""
    for _ in botlib.messages():
        botlib.answer("0")


BOTS = {"computer": computer, "robot": robot}
