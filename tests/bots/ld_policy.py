"""A liar's dice protocol bot that calls liar when it runs batch-scheduled, and answers
nonsense (a disqualification) otherwise: a tourney's standings show its policy."""

import os
import sys

while True:
    lines = []
    for raw in sys.stdin:
        if raw.rstrip("\n") == ".":
            break
        lines.append(raw)
    else:
        sys.exit(0)
    if any(line.startswith("END") for line in lines):
        sys.exit(0)
    batch = os.sched_getscheduler(0) == os.SCHED_BATCH
    sys.stdout.write("0\n.\n" if batch else "not batch\n.\n")
    sys.stdout.flush()
