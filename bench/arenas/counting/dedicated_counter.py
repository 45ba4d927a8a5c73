def strategy(last_results):
    return 100
