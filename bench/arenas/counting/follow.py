def strategy(last_results):
    n = len(last_results)
    if n == 0:
        return 100
    if all(entry == (1, False) for entry in last_results):
        return 2
    last_value, last_won = last_results[-1]
    if n == 1:
        return 100 if last_won else 1 + int(0.97 * (last_value - 1))
    if n >= 100 and last_results[-1] == (100, True):
        return 99
    if last_won and last_results[-2][1]:
        tried_higher = [won for value, won in last_results if value == last_value + 1]
        if tried_higher and not all(tried_higher):
            return last_value
        return min(100, last_value + 1)
    low, high = sorted((last_results[-1][0], last_results[-2][0]))
    return max(1, low * low // high - 1)
