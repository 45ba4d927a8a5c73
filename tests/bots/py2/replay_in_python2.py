"""Replays, in a real Python 2, the calls a bot file logged while the judge ran it.

    python2.7 replay_in_python2.py STYLE BOTFILE SEED LOGFILE

LOGFILE holds the bot's own log lines ("kind|field|..."), as printed under the judge; this
makes the same calls, in order, on the same file with ``random`` seeded the same way, and
the bot prints its log again, on stdout. Equal logs: Python 2 decided as the translation did.
"""
import imp
import random
import sys


def main():
    style, path, seed, log = sys.argv[1:5]
    random.seed(int(seed))  # as the adapter seeds it, before the bot's code runs
    calls = [line.rstrip("\n").split("|") for line in open(log)]
    if style == "rpscontest":
        code = compile(open(path).read(), path, "exec")
        scope = {"__name__": "__main__"}
        for call in calls:
            scope["input"] = call[1]
            exec(code, scope)
        return
    bot = imp.load_source("bot", path)
    results = []
    for call in calls:
        kind, fields = call[0], call[1:]
        if kind == "observe":
            bot.observe(*[int(f) for f in fields])
        elif kind == "play":
            bot.play(*[int(f) for f in fields[:3]])
        elif kind == "get_play":
            bot.get_play(*fields[:3])
        elif kind == "strategy":
            results.extend(eval(fields[0]))
            bot.strategy(results)


main()
