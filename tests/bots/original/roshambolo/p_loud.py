# The counter again, but chatty on stdout in every way Python allows.
import os
import sys

print("loading p_loud")
counter = 0


def play(game_id, my_id, opponent_id):
    print("thinking about game", game_id)
    sys.stdout.write("2\n.\n")
    sys.stdout.flush()
    os.write(1, b"3\n.\n")
    return 2 if counter > 0 else 3 if counter < 0 else 1


def observe(game_id, a_id, b_id, a_play, b_play, result):
    global counter
    print("saw", a_play, b_play, result)
    counter += (a_play == 1) + (b_play == 1) - (a_play == 2) - (b_play == 2)
