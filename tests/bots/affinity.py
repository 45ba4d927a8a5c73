"""rps bot: plays rock and reports on stderr how many CPUs it may run on, every turn.

``affinity.py SLOW [NAP [SECONDS]]`` keeps a CPU busy for 0.5 s before answering turn SLOW,
and sleeps SECONDS (2 ms) before answering every turn from turn NAP on."""

import os
import sys
import time

slow = int(sys.argv[1])
nap = int(sys.argv[2]) if len(sys.argv) > 2 else 0
nap_seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 0.002
turn = 0
message: list[str] = []
for raw in sys.stdin:
    line = raw.strip()
    if line != ".":
        message.append(line)
        continue
    if any(line.startswith("END") for line in message):
        break
    message = []
    turn += 1
    if turn == slow:
        until = time.perf_counter() + 0.5
        while time.perf_counter() < until:
            pass
    if nap and turn >= nap:
        time.sleep(nap_seconds)
    print(f"turn {turn} cpus {len(os.sched_getaffinity(0))}", file=sys.stderr, flush=True)
    print("R\n.", flush=True)
