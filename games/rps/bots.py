"""Built-in rps bots. Each is a function that plays a whole match over stdin/stdout."""

from __future__ import annotations

import bisect

from bots import botlib

BEATEN_BY = {"R": "P", "P": "S", "S": "R"}
MOVES = "RPS"


def constant(order: str):  # type: ignore[no-untyped-def]
    def bot() -> None:
        for _ in botlib.messages():
            botlib.answer(order)

    bot.__doc__ = f"always plays {order}"
    return bot


def cycle() -> None:
    """plays R, P, S, R, P, S, ..."""
    for turn, _ in enumerate(botlib.messages()):
        botlib.answer(MOVES[turn % 3])


def random_bot() -> None:
    """uniformly random, from the judge's seed"""
    rng = botlib.rng()
    for _ in botlib.messages():
        botlib.answer(rng.choice(MOVES))


def predictor() -> None:
    """decayed 3x3 roll table per last result; weighted guess, plays what beats it"""
    rng = botlib.rng()
    # table[result of the enemy's last round: 0 lost, 1 tie, 2 won][roll 0 same, 1 up, 2 down]
    table = [[0.0] * 3 for _ in range(3)]
    context: tuple[int, int] | None = None  # (enemy's previous move, its result then)
    for message in botlib.messages():
        last = botlib.fields(message).get("L")
        if last:
            mine, theirs = MOVES.index(last[0]), MOVES.index(last[1])
            if context is not None:
                previous, result = context
                roll = (theirs - previous) % 3
                for row in table:
                    row[:] = [w * 0.9 for w in row]
                table[result][roll] += 1.0
            # enemy's result this round, from its view: 0 lost, 1 tie, 2 won
            context = (theirs, {0: 1, 1: 2, 2: 0}[(theirs - mine) % 3])
        if context is None:
            botlib.answer(rng.choice(MOVES))
            continue
        weights = table[context[1]]
        cumulative = [weights[0], weights[0] + weights[1], sum(weights)]
        roll = bisect.bisect_left(cumulative, rng.random() * cumulative[-1])
        predicted = MOVES[(context[0] + min(roll, 2)) % 3]
        botlib.answer(BEATEN_BY[predicted])


# What the fork server plays each built-in through before it forks any (bots/forkserver.py,
# "_rehearse"): the first messages of a real match as one seat got them, and its last.
REHEARSAL = """\
Y 2
E 1
.
Y 2
E 1
L P R
.
Y 2
E 1
L P R
.
Y 2
E 1
L P R
.
Y 2
E 1
L P R
.
L P R
END 1 0 1000
.
"""

BOTS = {
    "rock": constant("R"),
    "paper": constant("P"),
    "scissors": constant("S"),
    "cycle": cycle,
    "random": random_bot,
    "predictor": predictor,
}
