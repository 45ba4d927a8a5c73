# p_py2_contest.py: a liar's dice robot in the style of the 2014 contest entries (Python 2)
import random
import string


def get_play(me, hands, history):
    mine = ''
    total = 0
    for hand in string.split(hands, ','):
        who, dice = hand.split(':')
        total += len(dice)
        if who == me:
            mine = dice
    if history <> '' and history[-2:] == ':0':
        print "get_play|%s|%s|%s|%d" % (me, hands, history, 0)
        return 0  # the showdown
    counts = {}
    for d in mine:
        counts[int(d)] = counts.get(int(d), 0) + 1
    faces = counts.items()
    faces.sort(cmp=lambda x, y: cmp(y[1], x[1]) or cmp(y[0], x[0]))
    best_face, best_count = faces[0]
    others = total - len(mine)
    if history == '':
        bid = 10 * max(1, best_count + others / 6 - 1) + best_face
    else:
        last = int(history.split(',')[-1].split(':')[1])
        quantity, face = last / 10, last % 10
        believable = counts.get(face, 0) + others / 6 + (others % 6 <> 0)
        if quantity > believable:
            print 'calling liar on', `last`
            bid = 0
        elif best_face > face and best_count + others / 6 >= quantity:
            bid = quantity * 10 + best_face
        else:
            bid = (quantity + 1) * 10 + int(random.choice(mine))
            if bid / 10 > best_count + others / 3:
                bid = 0
    print "get_play|%s|%s|%s|%d" % (me, hands, history, bid)
    return bid
