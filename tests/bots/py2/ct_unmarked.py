# the same as ct_marked.py without the marker: Python 3, so / gives 74.5 (sent as 74)
def strategy(last_results):
    return 150 / 2 - len(last_results) / 2
