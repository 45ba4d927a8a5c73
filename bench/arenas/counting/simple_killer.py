def strategy(last_results):
    n = len(last_results)
    if n == 0:
        return 100
    last = last_results[-1]
    if n == 999 and last[0] == 100:
        return 99
    # replay what followed the last time this result happened (one less after a loss)
    for i in range(n - 2, -1, -1):
        if last_results[i] == last:
            value, won = last_results[i + 1]
            return value if won else max(1, value - 1)
    return 100
