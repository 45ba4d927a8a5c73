"""Hostile rps bot run as a directory bot: reads target.txt in its box (a TCP port on the
judge's 127.0.0.1, a secret file outside its box, a marker), tries to connect, to read the
secret and to leave a daemon behind that outlives the match, reports each on stderr,
then plays rock."""
import os
import socket
import sys

port, secret, marker = open("target.txt").read().split()
try:
    with socket.create_connection(("127.0.0.1", int(port)), timeout=2):
        sys.stderr.write("tcp: connected\n")
except OSError as exc:
    sys.stderr.write(f"tcp: {exc.errno}\n")
try:
    with open(secret) as handle:
        sys.stderr.write(f"secret: read {handle.read().strip()}\n")
except OSError as exc:
    sys.stderr.write(f"secret: {exc.strerror}\n")
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", marker])
    os._exit(0)
os.wait()
sys.stderr.write("daemon: started\n")
sys.stderr.flush()
for line in sys.stdin:
    if line.startswith("END"):
        break
    if line == ".\n":
        sys.stdout.write("R\n.\n")
        sys.stdout.flush()
