# Compares None with numbers and sorts mixed lists, as Python 2 allowed.
if input == "":
    best = None
    history = []
history.append(input)
score = history.count("R") - history.count("S")
if score > best:
    best = score
mixed = sorted([best, None, "x", len(history)])
output = "RPS"[(mixed.index(None) + len(history)) % 3]
