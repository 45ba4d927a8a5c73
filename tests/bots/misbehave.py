"""A deliberately misbehaving rps bot for the runner tests: ``misbehave.py MODE [TURN]``.

It plays rock correctly until turn TURN (default 1), then does MODE.
"""

import os
import signal
import sys
import time

mode = sys.argv[1]
bad_turn = int(sys.argv[2]) if len(sys.argv) > 2 else 1
out = sys.stdout.buffer


def answer(data: bytes) -> None:
    out.write(data)
    out.flush()


def misbehave() -> None:
    if mode == "sleep":
        time.sleep(30)
    elif mode == "slow":  # within the deadline every turn
        time.sleep(0.5)
        answer(b"R\n.\n")
    elif mode == "crash":
        os._exit(3)
    elif mode == "exit":
        sys.exit(0)
    elif mode == "close_stdout":
        os.close(1)
        time.sleep(30)
    elif mode == "close_stdin":
        os.close(0)
        answer(b"R\n.\n")
        time.sleep(30)
    elif mode == "two_orders":
        answer(b"R\nP\n.\n")
    elif mode == "only_dot":
        answer(b".\n")
    elif mode == "illegal":
        answer(b"X\n.\n")
    elif mode == "flood":
        while True:
            out.write(b"R" * 65536)
    elif mode == "no_dot":
        answer(b"R\n")
        time.sleep(30)
    elif mode == "bad_utf8":
        answer(b"\xff\xfe\n.\n")
    elif mode == "orphan":  # a child keeps stdout open after the bot exits
        if os.fork() == 0:
            time.sleep(60)
        os._exit(0)
    elif mode == "line_flood":
        while True:
            out.write(b"R\n" * 4096)
    else:
        raise SystemExit(f"unknown mode {mode}")


if mode == "ignore_term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

turn = 0
while True:
    line = sys.stdin.buffer.readline()
    if not line:
        break
    if line.startswith(b"END"):
        if mode == "ignore_term":  # lingers after the end, deaf to SIGTERM
            while True:
                time.sleep(1)
        break
    if line.rstrip(b"\r\n") != b".":
        continue
    turn += 1
    if turn >= bad_turn and mode not in ("ignore_term",):
        misbehave()
    else:
        answer(b"R\n.\n")
