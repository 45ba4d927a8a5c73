# python3
# Written for Python 3: true division, print() with sep=, a dict in insertion order.
if input == "":
    counts = {"S": 0, "P": 0, "R": 0}
    n = 0
n += 1
if input:
    counts[input] += 1
print("round", n, sep=" ")
share = counts["R"] / n
output = "P" if share > 0.4 else next(iter(counts))
