# A roshambolo entrant of 2014: play(my_id, opponent_id), and a bug that raises every
# fifth call (the harness catches it and plays a random shape).
calls = 0

def play(my_id, opponent_id):
    global calls
    calls += 1
    if calls % 5 == 0:
        return {}[opponent_id]
    return (my_id + calls) % 3 + 1

def observe(a_id, b_id, a_play, b_play, result):
    pass
