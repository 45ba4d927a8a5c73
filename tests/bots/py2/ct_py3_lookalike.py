# A Python 3 bot using names Python 2 had, all bound here: it must run untranslated.
try:
    xrange  # noqa: B018
except NameError:
    xrange = range
unicode = str


def reduce(function, items):
    total = items[0]
    for item in items[1:]:
        total = function(total, item)
    return total


def strategy(last_results):
    values = [value for value, _ in last_results] or [99]
    average = reduce(lambda a, b: a + b, values) / len(values)  # true division: 99 / 2 = 49.5
    print(unicode(average), list(xrange(2)))
    return average / 2 + 1
