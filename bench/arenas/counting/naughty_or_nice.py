COUNTERS = {69: 68, 68: 67, 50: 49, 48: 47}


def strategy(last_results):
    if all(value == 100 for value, _ in last_results):
        return 98 if len(last_results) == 999 else 100
    lost = {value for value, won in last_results if not won}
    for value in lost:
        if value in COUNTERS:
            return COUNTERS[value]
    return 1
