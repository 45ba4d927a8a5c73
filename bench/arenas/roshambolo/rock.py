def play(game_id, my_id, opponent_id):
    return 1
