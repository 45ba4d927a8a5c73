# An observing counter in the original's style: +1 for every rock seen, -1 for every paper.

ROCK, PAPER, SCISSORS = 1, 2, 3

counter = 0


def play(game_id, my_id, opponent_id):
    if counter > 0:
        return PAPER
    if counter < 0:
        return SCISSORS
    return ROCK


def observe(game_id, a_id, b_id, a_play, b_play, result):
    global counter
    for shape in (a_play, b_play):
        if shape == ROCK:
            counter += 1
        elif shape == PAPER:
            counter -= 1
