# The rpscontest sample frequency counter: beat the opponent's most frequent move.
if input == "":
    counts = {"R": 0, "P": 0, "S": 0}
    output = "P"
else:
    counts[input] += 1
    likely = max(counts, key=counts.get)
    output = {"R": "P", "P": "S", "S": "R"}[likely]
