def strategy(last_results):
    losses = [value for value, won in last_results if not won]
    if not losses:
        return 98
    return max(1, min(losses) - len(losses))
