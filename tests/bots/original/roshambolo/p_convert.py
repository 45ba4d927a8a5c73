# Each call returns a different kind of value, to exercise the original's int() rules.
calls = 0


def fail():
    raise RuntimeError("no play this time")


ANSWERS = [
    lambda: "2",  # int("2") == 2
    lambda: 2.7,  # int(2.7) == 2
    lambda: True,  # int(True) == 1
    lambda: None,  # TypeError -> 0 -> random
    lambda: "2.7",  # ValueError -> 0 -> random
    lambda: 7,  # out of range -> random
    fail,  # exception -> 0 -> random
    lambda: input("a human?"),  # stdin is not the judge's pipe: EOFError -> 0 -> random
]


def play(game_id, my_id, opponent_id):
    global calls
    calls += 1
    return ANSWERS[calls - 1]() if calls <= len(ANSWERS) else 3
