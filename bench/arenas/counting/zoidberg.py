def strategy(last_results):
    return 48
