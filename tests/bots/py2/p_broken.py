# neither Python 2 nor Python 3
def play(game_id, my_id, opponent_id):
    return 1 +
