# Answers a value the original rejects ("gives unacceptable value") in round 3.
def strategy(last_results):
    return 150 if len(last_results) == 2 else 60
