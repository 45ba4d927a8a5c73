# The legacy form: strategy returns arguments for turn(j, *args), asked for j = 1..99.
def strategy(last_results):
    last = last_results[-1][0] if last_results else 100
    return (last,)


def turn(j, last):
    if last in (49, 50) or 10 <= last <= 20:
        return j < 1
    return True
