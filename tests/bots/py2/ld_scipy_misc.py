# A 2014 liar's dice entry using scipy.misc.comb (moved to scipy.special since).
from scipy.misc import comb


def likely(count, needed):
    """The chance that at least ``needed`` of ``count`` unknown dice show one face."""
    return sum(comb(count, k) * (1 / 6.0) ** k * (5 / 6.0) ** (count - k)
               for k in xrange(needed, count + 1))


def get_play(me, hands, history):
    mine = [h.split(':')[1] for h in hands.split(',') if h.split(':')[0] == me][0]
    total = sum(len(h.split(':')[1]) for h in hands.split(','))
    bids = [int(p.split(':')[1]) for p in history.split(',') if ':' in p]
    bids = [b for b in bids if b]
    if not bids:
        return 10 + int(max(mine))
    quantity, face = bids[-1] / 10, bids[-1] % 10
    needed = quantity - mine.count(str(face))
    if needed > 0 and likely(total - len(mine), needed) < 0.4:
        return 0
    print "scipy entry raises", quantity + 1
    return (quantity + 1) * 10 + face
