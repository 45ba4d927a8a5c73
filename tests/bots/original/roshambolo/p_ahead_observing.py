# p_ahead with an observe() that does nothing: asked round by round, never ahead.
import atexit
import json
import random
import sys

calls = []


def play(game_id, my_id, opponent_id):
    calls.append([game_id, my_id, opponent_id])
    return random.choice((1, 2, 3))


def observe(game_id, a_id, b_id, a_play, b_play, result):
    pass


atexit.register(lambda: print("CALLS " + json.dumps(calls), file=sys.stderr))
