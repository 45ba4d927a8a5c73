def strategy(last_results):
    if not last_results:
        return 100
    value, won = last_results[-1]
    return value if won else max(1, value - 1)
