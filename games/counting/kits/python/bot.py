"""A starter counting bot: tit for tat. It counts to 100 first, then to the value the last
round reached. With three or more seats (an arena) it gets one O line per game and answers
one choice per game, in their order."""

import sys


def messages():
    """Each message from the judge, as its lines without the final "." line."""
    lines = []
    for line in sys.stdin:
        line = line.rstrip("\r\n")
        if line == ".":
            yield lines
            lines = []
        else:
            lines.append(line)


def answer(*orders):
    sys.stdout.write("".join(f"{order}\n" for order in orders) + ".\n")
    sys.stdout.flush()


def choice(last):
    """``last``: [value reached, won] of this game's last round, or [] in the first."""
    return int(last[0]) if last else 100


for message in messages():
    single = None  # two seats: the L line of the last round
    games = []  # an arena: one O line per game
    over = False
    for line in message:
        key, *fields = line.split() or [""]
        if key == "L":  # L <value reached> <won: 1 or 0>
            single = fields
        elif key == "O":  # O <opponent seat> <run> [<value reached> <won>]
            games.append(fields[2:])
        elif key == "END":
            over = True
        # R <round> is not needed here.
    if over:
        break
    if games:
        answer(",".join(str(choice(last)) for last in games))
    else:
        answer(choice(single or []))
