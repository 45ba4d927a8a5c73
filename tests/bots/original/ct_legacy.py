# The legacy counting form: strategy returns the arguments for turn(current_value, *args);
# the choice is the first value in 1..99 where turn(...) == False, else 100.
def strategy(last_results):
    if len(last_results) == 0:
        return (101,)
    return (last_results[-1][0] - 1,)


def turn(current_value, stop_at):
    return current_value < stop_at
