"""Hostile rps bot: reads a secret outside its box, lists another bot's box, writes
outside its box (the test's directory, /tmp, /dev/shm), then plays rock."""
import os
import sys

token = os.environ.get("HOSTILE_TOKEN", "x")
try:
    with open(os.environ["HOSTILE_SECRET"]) as handle:
        sys.stderr.write(f"secret: read {handle.read().strip()}\n")
except OSError as exc:
    sys.stderr.write(f"secret: {exc.strerror}\n")
try:
    sys.stderr.write(f"listing: {sorted(os.listdir(os.environ['HOSTILE_OTHER_BOX']))}\n")
except OSError as exc:
    sys.stderr.write(f"listing: {exc.strerror}\n")
for target in (os.environ["HOSTILE_OUTSIDE"], "/tmp", "/dev/shm"):
    path = os.path.join(target, f"hostile-{token}")
    try:
        with open(path, "w") as handle:
            handle.write("escaped\n")
        sys.stderr.write(f"write {target}: written\n")
    except OSError as exc:
        sys.stderr.write(f"write {target}: {exc.strerror}\n")
sys.stderr.flush()
for line in sys.stdin:
    if line.startswith("END"):
        break
    if line == ".\n":
        sys.stdout.write("R\n.\n")
        sys.stdout.flush()
