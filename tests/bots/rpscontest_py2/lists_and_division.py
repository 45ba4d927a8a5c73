# range, map, filter and keys() as lists; / between ints as an index.
if input == "":
    counts = {"R": 0, "P": 0, "S": 0}
    moves = range(3)
else:
    counts[input] += 1
order = counts.keys()
order.sort()
big = filter(lambda m: counts[m] > 0, order)
picks = map(lambda m: counts[m], order)
total = sum(picks) + len(big)
output = "RPS"[moves[total / 2 % 3]]
