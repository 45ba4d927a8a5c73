def strategy(last_results):
    # 69 until round 421 is known, then the value reached in round 421
    if len(last_results) > 421:
        return last_results[420][0]
    return 69
