# python2
# only "/" between ints tells: the comment above says this is Python 2
def strategy(last_results):
    return 150 / 2 - len(last_results) / 2
