def strategy(last_results):
    if any(not won for _, won in last_results):
        return 1
    return 100
