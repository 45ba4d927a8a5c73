# Mutates its own history list: the original lets a bot corrupt its own history.
def strategy(last_results):
    n = len(last_results)
    last_results.clear()
    return 50 if n == 0 else 40
