import random

# Opening sequences of known opponents -> the answer that beats them.
KNOWN = {
    (100, 100, 100): 99,
    (1, 1, 1): 1,
    (50, 50, 50): 49,
    (48, 48, 48): 47,
    (69, 69, 69): 68,
    (47,): 46,
    (98,): 97,
}


def strategy(last_results):
    values = tuple(value for value, _ in last_results[:3])
    for opening, answer in KNOWN.items():
        if values[: len(opening)] == opening and len(values) >= len(opening):
            return answer
    if len(last_results) % 2:
        return random.randint(1, 48)
    return random.randint(37, 50)
