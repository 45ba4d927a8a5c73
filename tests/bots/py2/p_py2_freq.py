# p_py2_freq.py: a roshambolo robot (Python 2), counts what it observes of each player
import random

ROCK, PAPER, SCISSORS = 1, 2, 3
BEATS = {ROCK: PAPER, PAPER: SCISSORS, SCISSORS: ROCK}

seen = {}
rounds = 0


def play(game_id, my_id, opponent_id):
    global rounds
    rounds += 1
    if not seen.has_key(opponent_id) or rounds < 3:
        move = random.randint(1, 3)
    else:
        counts = seen[opponent_id]
        total = sum(counts.itervalues())
        shapes = counts.keys()
        shapes.sort(lambda a, b: cmp(counts[b], counts[a]) or cmp(a, b))
        # a clear favourite: more than a quarter of the plays ahead of the rarest
        if counts[shapes[0]] - total / 4 > counts.get(shapes[-1], 0):
            move = BEATS[shapes[0]]
        else:
            move = (rounds / 2 + rounds / 3) % 3 + 1
    print "play|%d|%d|%d|%d" % (game_id, my_id, opponent_id, move)
    return move


def observe(game_id, a_id, b_id, a_play, b_play, result):
    for who, shape in ((a_id, a_play), (b_id, b_play)):
        counts = seen.setdefault(who, {})
        counts[shape] = counts.get(shape, 0) + 1
    print "observe|%d|%d|%d|%d|%d|%d" % (game_id, a_id, b_id, a_play, b_play, result)
