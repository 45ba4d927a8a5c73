"""A starter tron bot: of the moves that do not crash at once, it takes the one with the
most free cells next to where it lands (N if every move crashes)."""

import sys

MOVES = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}


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


width = height = 0
walls = set()  # (x, y) of every wall and trail cell


def free(x, y):
    return 0 <= x < width and 0 <= y < height and (x, y) not in walls


def choose(x, y):
    best, best_room = "N", -1
    for move, (dx, dy) in MOVES.items():
        nx, ny = x + dx, y + dy
        if free(nx, ny):
            room = sum(free(nx + ex, ny + ey) for ex, ey in MOVES.values())
            if room > best_room:
                best, best_room = move, room
    return best


for message in messages():
    me = None
    over = False
    rows = []
    for line in message:
        key, _, rest = line.partition(" ")
        if key == "M":  # M <width> <height>, first message only
            width, height = map(int, rest.split())
        elif key == "R":  # R <row>: '#' wall, '.' free, '1' and '2' the cycles
            rows.append(rest)
        elif key == "P":  # P <my x> <my y> <other x> <other y>
            x, y, ox, oy = map(int, rest.split())
            me = (x, y)
            walls.update({(x, y), (ox, oy)})  # both cells become trail
        elif key == "END":
            over = True
        # Y (my seat), T (turn) and L (last moves) are not needed here.
    for y, row in enumerate(rows):
        walls.update((x, y) for x, cell in enumerate(row) if cell != ".")
    if over:
        break
    answer(choose(*me))
