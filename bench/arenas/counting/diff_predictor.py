def strategy(last_results):
    n = len(last_results)
    if n < 2:
        return 100
    values = [value for value, _ in last_results[-11:]]
    diffs = sorted(values[k + 1] - values[k] for k in range(len(values) - 1))
    if len(diffs) > 4:
        diffs = diffs[1:-1]  # drop the outliers
    trend = sum(diffs) / len(diffs)
    guess = int(values[-1] + trend) - 1
    guess = max(1, min(99, guess))
    if guess == 99 and n < 950:
        return 100
    return guess
