"""A starter liar's dice bot. It opens with one of its highest face; otherwise it raises
the last bid's quantity by one while its own dice plus a sixth of the hidden dice make that
likely, and calls liar (0) when not. A play is quantity * 10 + face: 23 is two threes."""

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


def choose(me, hands, history):
    """hands: "A:xxxxx,B:55431" (my own dice as digits); history: ["A:23", "B:33"]."""
    seats = hands.split(",")
    mine = [int(d) for seat in seats if seat.startswith(me + ":") for d in seat[2:]]
    hidden = sum(len(seat) - 2 for seat in seats if not seat.startswith(me + ":"))
    most = 5 * len(seats)  # a bid's quantity is at most the dice at the start of the game
    if not history:
        return 10 + max(mine)  # "one of my highest face": always true
    last = int(history[-1].split(":")[1])
    quantity, face = divmod(last, 10)
    if quantity + 1 <= min(most, mine.count(face) + hidden / 6 + 0.5):
        return (quantity + 1) * 10 + face
    return 0  # liar


me = ""
for message in messages():
    hands = None
    history = []
    over = False
    for line in message:
        key, _, rest = line.partition(" ")
        if key == "Y":  # Y <my label>
            me = rest
        elif key == "H":  # H <hands>: my turn
            hands = rest
        elif key == "P":  # P <history of this hand>, "P" alone when empty
            history = rest.split(",") if rest else []
        elif key == "END":
            over = True
        # S (a showdown) and D (a seat disqualified) are news this bot does not use.
    if over:
        break
    if hands is not None:
        answer(choose(me, hands, history))
