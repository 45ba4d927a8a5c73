"""The corpus's fixed opponent, the same in python2.7 and in Python 3: move ``t`` depends
only on ``t`` and the entry's moves before it, so an entry that does not draw random
numbers makes the same 1000 moves in both."""

BEATS = {"R": "P", "P": "S", "S": "R"}


def opponent_move(t, before):
    """Round ``t``'s move (from 0), given the entry's moves of rounds 0..t-1."""
    x = (1103515245 * (t + 12345) + 12345) % 2147483648
    if before and x % 5 == 0:
        return BEATS[before[-1]]  # punish repetition now and then
    if 300 <= t < 400:
        return "RPS"[t % 3]  # a cycle, for the pattern finders
    return "RPS"[(x >> 16) % 3]
