def strategy(last_results):
    return 1
