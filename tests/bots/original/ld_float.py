# Returns floats and bools, which int() turns into bids.
def get_play(me, hands, history):
    if not history:
        return 16.9
    return True
