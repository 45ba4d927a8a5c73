"""A starter rps bot: plays what beats the enemy's last move (rock on the first turn)."""

import sys

BEATS = {"R": "P", "P": "S", "S": "R"}


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


for message in messages():
    enemy_last = None
    over = False
    for line in message:
        key, *fields = line.split() or [""]
        if key == "L":  # L <my last move> <enemy's last move>
            enemy_last = fields[1]
        elif key == "END":  # END <rank> <score 1> <score 2>
            over = True
        # Y (my id), E (enemy id) and keys added later are not needed here.
    if over:
        break
    answer(BEATS.get(enemy_last, "R"))
