# Raises in round 4: the original aborts its whole arena; we disqualify this bot only.
def strategy(last_results):
    if len(last_results) == 3:
        raise ValueError("boom")
    return 100
