# Plays like p_counter and keeps a digest of every play() and observe() call, in order;
# the running count and digest go to stderr after each call (the last line is the total).
import hashlib
import sys

calls = hashlib.sha256()
count = 0
seen = 0


def note(*call):
    global count
    calls.update(repr(call).encode())
    count += 1
    print("CALLS %d %s" % (count, calls.hexdigest()), file=sys.stderr)


def play(game_id, my_id, opponent_id):
    note("play", game_id, my_id, opponent_id)
    if seen > 0:
        return 2
    if seen < 0:
        return 3
    return 1


def observe(game_id, a_id, b_id, a_play, b_play, result):
    global seen
    note("observe", game_id, a_id, b_id, a_play, b_play, result)
    for shape in (a_play, b_play):
        if shape == 1:
            seen += 1
        elif shape == 2:
            seen -= 1
