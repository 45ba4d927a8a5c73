"""A liar's dice protocol bot that raises the last bid for QUIT-1 turns, then exits (status 3)."""

import sys

quit_at = int(sys.argv[1])
turn = 0
while True:
    lines = []
    for raw in sys.stdin:
        raw = raw.rstrip("\n")
        if raw == ".":
            break
        lines.append(raw)
    else:
        sys.exit(0)
    if any(line.startswith("END") for line in lines):
        sys.exit(0)
    turn += 1
    if turn == quit_at:
        sys.exit(3)
    history = [line[2:] for line in lines if line.startswith("P ")]
    last = int(history[0].rsplit(":", 1)[1]) if history and history[0] else 10
    quantity, face = divmod(last, 10)
    bid = quantity * 10 + face + 1 if face < 6 else (quantity + 1) * 10 + 1
    sys.stdout.write(f"{bid}\n.\n")
    sys.stdout.flush()
