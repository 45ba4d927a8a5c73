# Counts the rocks (+1) and papers (-1) it sees played anywhere, and answers the majority.
seen = 0


def play(game_id, my_id, opponent_id):
    if seen > 0:
        return 2
    if seen < 0:
        return 3
    return 1


def observe(game_id, a_id, b_id, a_play, b_play, result):
    global seen
    for shape in (a_play, b_play):
        if shape == 1:
            seen += 1
        elif shape == 2:
            seen -= 1
