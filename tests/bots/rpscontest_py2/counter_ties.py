# Counter.most_common breaks ties by 2.7's dict order.
import collections
if input == "":
    pairs = collections.Counter()
    last = ""
pairs[last + input] += 1
last = input
top = pairs.most_common(1)[0][0]
output = top[-1] if top else "P"
