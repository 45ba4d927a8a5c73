# rps_py2_decay.py: an rpscontest.com entry (Python 2): decayed integer counts of the
# opponent's moves, played against with integer weights
import random

if input == "":
    beat = {'R': 'P', 'P': 'S', 'S': 'R'}
    score = {'R': 0, 'P': 0, 'S': 0}
    rounds = 0
else:
    score[input] += 30
    for k, v in score.iteritems():
        score[k] = v * 9 / 10
rounds += 1
if rounds <= 3:
    output = random.choice(['R', 'P', 'S'])
else:
    ranked = score.keys()
    ranked.sort(cmp=lambda a, b: cmp(score[b], score[a]) or cmp(a, b))
    weights = [score[k] * 100 / (sum(score.values()) + 1) for k in ranked]
    x = random.randint(0, 99)
    if x < weights[0]:
        output = beat[ranked[0]]
    elif x < weights[0] + weights[1]:
        output = beat[ranked[1]]
    else:
        output = beat[ranked[2]]
print "round|%s|%s" % (input, output)
