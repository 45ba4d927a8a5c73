"""A starter roshambolo bot: counts the shapes in every round it observes and plays the
shape that beats the most common one. Shapes: 1 rock, 2 paper, 3 scissors."""

import sys

BEATS = {1: 2, 2: 3, 3: 1}


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


seen = {1: 0, 2: 0, 3: 0}
for message in messages():
    play_now = over = False
    for line in message:
        key, *fields = line.split() or [""]
        if key == "O":  # O <game> <a id> <b id> <a play> <b play> <result>
            for shape in fields[3:5]:
                if shape in ("1", "2", "3"):
                    seen[int(shape)] += 1
        elif key == "P":  # P <game> <my id> <opponent id>: play now
            play_now = True
        elif key == "END":  # END <my rank> <games won by seat 1> ...
            over = True
    if over:
        break
    if play_now:
        most = max(seen, key=lambda shape: seen[shape])
        answer(BEATS[most])
