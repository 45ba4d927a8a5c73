# Answers a non-numeric value in round 2.
def strategy(last_results):
    return "fifty" if last_results else "50"
