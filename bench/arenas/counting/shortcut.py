def strategy(last_results):
    return 50
