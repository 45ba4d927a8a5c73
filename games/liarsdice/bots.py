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


# What the fork server plays each built-in through before it forks any (bots/forkserver.py,
# "_rehearse"): the first messages of a real match as one seat got them, and its last.
REHEARSAL = """\
Y A
S B:65543,C:54311,A:65422 B:0 B 1
H B:xxxx,C:xxxxx,A:66541
P C:16
.
Y A
S B:5544,C:66222,A:66541 C:16,A:46,B:0 B 2
H B:xxx,C:xxxxx,A:66544
P C:14
.
Y A
S B:521,C:43311,A:66544 C:14,A:15,B:0 B 2
H B:xx,C:xxxxx,A:43221
P C:15
.
Y A
S C:3,A:1 C:13,A:0 A 2
END 2 0 0 1
.
"""

BOTS = {"computer": computer, "robot": robot}
