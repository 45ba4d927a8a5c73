# A liar's dice bot in the original get_play style that logs every call it gets.
import os

LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls.log")


def get_play(me, hands, history):
    with open(LOG, "a") as log:
        log.write("%s|%s|%s\n" % (me, hands, history))
    print("printing to stdout must not break the protocol")
    if history and history.endswith(":0"):
        return None  # the showdown: whatever is returned is ignored
    if not history:
        mine = dict(e.split(":") for e in hands.split(","))[me]
        return "1" + mine[0]  # a string, as p_computer returns
    return 0
