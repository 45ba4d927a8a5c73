# Plays the move it has won with most; ties go to whichever 2.7's dict order meets first.
if input == "":
    wins = {"R": 0, "P": 0, "S": 0}
    beats = {"R": "S", "P": "R", "S": "P"}
elif beats[output] == input:
    wins[output] += 1
best, most = "R", -1
for move, count in wins.iteritems():
    if count >= most:
        best, most = move, count
output = best
