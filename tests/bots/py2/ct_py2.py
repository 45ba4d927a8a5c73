# ct_py2.py: a cooperative counting bot (Python 2): aims below the average reached so far
def strategy(last_results):
    if len(last_results) == 0:
        choice = 100
    else:
        values = [v for v, won in last_results]
        wins = len(filter(lambda r: r[1], last_results))
        average = reduce(lambda a, b: a + b, values) / len(values)
        choice = average * 3 / 4 + (wins * 10) / (len(last_results) + 2) - len(last_results) / 3
        choice = max(1, min(100, choice))
    print "strategy|%r|%r" % (last_results[-1:], choice)
    return choice
