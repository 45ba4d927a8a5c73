"""Built-in roshambolo bots. Each is a function that plays a whole match over stdin/stdout.

Messages hold ``O <game> <a> <b> <a play> <b play> <result>`` observations, then
``P <game> <my id> <opponent id>``; the answer is 1 (rock), 2 (paper) or 3 (scissors).
"""

from __future__ import annotations

from bots import botlib

ROCK, PAPER, SCISSORS = "1", "2", "3"


def rock() -> None:
    """always plays rock (1)"""
    for _ in botlib.messages():
        botlib.answer(ROCK)


def random_bot() -> None:
    """uniformly random, from the judge's seed"""
    rng = botlib.rng()
    for _ in botlib.messages():
        botlib.answer(rng.choice((ROCK, PAPER, SCISSORS)))


def counter() -> None:
    """counts every rock (+1) and paper (-1) it observes; paper if >0, scissors if <0, else rock"""
    count = 0
    for message in botlib.messages():
        for line in message:
            if line.startswith("O "):
                for play in line.split()[4:6]:
                    if play == ROCK:
                        count += 1
                    elif play == PAPER:
                        count -= 1
        botlib.answer(PAPER if count > 0 else SCISSORS if count < 0 else ROCK)


# What the fork server plays each built-in through before it forks any (bots/forkserver.py,
# "_rehearse"): the first messages of a real match as one seat got them, and its last.
REHEARSAL = """\
P 1 1 2
.
O 1 2 1 3 1 1
P 1 1 2
.
O 1 2 1 3 2 0
P 1 1 2
.
O 1 2 1 2 1 0
P 1 1 2
.
O 1 2 1 2 1 0
P 1 1 2
.
O 1 2 1 2 1 0
END 2 0 1
.
"""

BOTS = {"rock": rock, "random": random_bot, "counter": counter}
