# No observe(): the adapter plays it ahead. Records every play() call; prints them at exit.
import atexit
import json
import random
import sys

calls = []


def play(game_id, my_id, opponent_id):
    calls.append([game_id, my_id, opponent_id])
    return random.choice((1, 2, 3))


atexit.register(lambda: print("CALLS " + json.dumps(calls), file=sys.stderr))
