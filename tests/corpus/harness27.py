"""An rpscontest-style harness for python2.7 (the reference the judge is compared against).

    python2.7 harness27.py ENTRY SEED

Plays ENTRY for 1000 rounds as rpscontest did (the script executed once per round in one
namespace, ``input`` the opponent's previous move, ``output`` read back) against the fixed
opponent of ``opponent.py``, and prints one JSON line: ``moves`` (the entry's 1000 moves),
or ``error`` and the round it happened in; ``slowest`` is the longest round in seconds.
"""

import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opponent import opponent_move

ROUNDS = 1000
CLOCK = {"read": False}


def watch_the_clock():
    """Note whether the entry reads the clock or the system's entropy: then its moves
    are not repeatable."""
    import datetime

    def watched(function):
        def call(*args, **kwargs):
            CLOCK["read"] = True
            return function(*args, **kwargs)

        return call

    for name in ("time", "clock", "localtime", "gmtime", "ctime", "strftime"):
        if hasattr(time, name):  # no clock() in Python 3
            setattr(time, name, watched(getattr(time, name)))

    base = datetime.datetime

    class WatchedDatetime(base):
        @classmethod
        def now(cls, *args):
            CLOCK["read"] = True
            return base.now(*args)

        @classmethod
        def today(cls):
            CLOCK["read"] = True
            return base.today()

        @classmethod
        def utcnow(cls):
            CLOCK["read"] = True
            return base.utcnow()

    datetime.datetime = WatchedDatetime

    # seeding from the system's entropy: as unrepeatable as the clock
    seed = random.Random.seed

    def watched_seed(self, a=None):
        if a is None:
            CLOCK["read"] = True
        return seed(self, a)

    random.Random.seed = watched_seed
    random.seed = random._inst.seed
    os.urandom = watched(os.urandom)


def play(path, seed):
    with open(path, "rb") as file:
        source = file.read()
    random.seed(seed)
    moves = []
    slowest = 0.0
    try:
        code = compile(source, path, "exec")
    except Exception as exc:
        return {"error": "compile: {}: {}".format(type(exc).__name__, exc), "round": 0}
    now = time.time
    watch_the_clock()
    namespace = {"__name__": "__main__"}
    previous = ""
    for round_ in range(ROUNDS):
        namespace["input"] = previous
        started = now()
        try:
            exec(code, namespace)
        except BaseException as exc:
            return {
                "error": "{}: {}".format(type(exc).__name__, exc),
                "round": round_,
                "moves": "".join(moves),
                "slowest": slowest,
            }
        slowest = max(slowest, now() - started)
        output = namespace.get("output")
        if output not in ("R", "P", "S"):
            return {
                "error": "output {!r}".format(output),
                "round": round_,
                "moves": "".join(moves),
                "slowest": slowest,
            }
        previous = opponent_move(round_, moves)
        moves.append(output)
    return {"moves": "".join(moves), "slowest": round(slowest, 4), "clock": CLOCK["read"]}


if __name__ == "__main__":
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # the entry's prints
    result = play(sys.argv[1], int(sys.argv[2]))
    real_stdout.write(json.dumps(result) + "\n")
