# Assigns output through a tuple; counts with dict.iteritems(d) and a defaultdict.
from collections import defaultdict
def act(seen):
    best = max(dict.iteritems(seen), key=lambda pair: pair[1])[0] if seen else "R"
    return {"R": "P", "P": "S", "S": "R"}[best], len(seen)
if input == "":
    seen = defaultdict(int)
else:
    seen[input] += 1
output, size = act(seen)
