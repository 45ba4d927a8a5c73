def strategy(last_results):
    if not last_results:
        return 100
    return last_results[-1][0]
