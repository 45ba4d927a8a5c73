"""Colluding rps bots: a sender that knows the move K its partner will face, and a
receiver that plays what beats the move it decodes from a shared channel (a random move
when the channel says nothing). The receiver never looks at the game's history, so it
wins more than a third of its turns only through the channel.

    colluder.py send CHANNEL K    plays K every turn and signals K
    colluder.py const K           plays K every turn, signals nothing
    colluder.py receive CHANNEL   decodes and plays
"""
import ctypes
import errno
import fcntl
import os
import select
import signal
import socket
import struct
import sys
import threading
import time

MOVES = "RPS"
BEATS = {"R": "P", "P": "S", "S": "R"}
FILES = ["/usr/bin/true", "/usr/bin/false", "/usr/bin/env"]
DIRS = ["/usr/bin", "/usr/sbin", "/usr/lib"]
NAME = "botjudge-collude-"
SHM_KEY = 0xB07C0
libc = ctypes.CDLL(None, use_errno=True)
role, args = sys.argv[1], sys.argv[2:]
LISTEN_WAIT = 0.03


def first_file(directory):
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if os.path.isfile(path) and not os.path.islink(path) and os.access(path, os.R_OK):
            return path
    return None


def flock_struct(kind):
    return struct.pack("hhqqi4x", kind, 0, 0, 0, 0)


# -- senders: make K visible, and keep it so -----------------------------------------------
held = []


def send(channel, k):
    if channel == "flock":
        f = open(FILES[k], "rb")
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.append(f)
    elif channel in ("posix", "ofd"):
        f = open(FILES[k], "rb")
        cmd = fcntl.F_SETLK if channel == "posix" else 37  # F_OFD_SETLK
        fcntl.fcntl(f, cmd, flock_struct(fcntl.F_RDLCK))
        held.append(f)
    elif channel in ("inotify", "dnotify"):
        target = FILES[k] if channel == "inotify" else first_file(DIRS[k])

        def touch():
            while True:
                with open(target, "rb") as f:
                    f.read(1)
                time.sleep(0.003)
        threading.Thread(target=touch, daemon=True).start()
    elif channel in ("shm", "tmp"):
        base = "/dev/shm" if channel == "shm" else "/tmp"
        open(os.path.join(base, NAME + str(k)), "w").close()
    elif channel == "abstract":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind("\0" + NAME + str(k))
        s.listen(8)
        held.append(s)

        def accept():
            while True:
                s.accept()[0].close()
        threading.Thread(target=accept, daemon=True).start()
    elif channel == "sysv":
        if libc.shmget(SHM_KEY + k, 4096, 0o1666) < 0:
            raise OSError(ctypes.get_errno(), "shmget")


# -- receivers: which K does the channel show? None if it shows nothing --------------------
class Listener:
    def __init__(self, channel):
        self.channel = channel
        self.fd = None
        self.seen = []
        if channel == "inotify":
            self.fd = libc.inotify_init1(os.O_NONBLOCK)
            if self.fd >= 0:
                libc.inotify_add_watch(self.fd, b"/usr/bin", 0x1 | 0x20)  # IN_ACCESS|IN_OPEN
        elif channel == "dnotify":
            self.fds = []
            for k, directory in enumerate(DIRS):
                sig = signal.SIGRTMIN + k
                signal.signal(sig, lambda s, f, k=k: self.seen.append(k))
                fd = os.open(directory, os.O_RDONLY)
                try:
                    fcntl.fcntl(fd, 10, sig)  # F_SETSIG
                    fcntl.fcntl(fd, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT)
                except OSError:
                    pass
                self.fds.append(fd)

    def decode(self):
        c = self.channel
        if c == "flock":
            free = []
            for path in FILES:
                with open(path, "rb") as f:
                    try:
                        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        free.append(True)
                    except OSError:
                        free.append(False)
            return one([not x for x in free])
        if c in ("posix", "ofd"):
            busy = []
            for path in FILES:
                with open(path, "rb") as f:
                    cmd = fcntl.F_GETLK if c == "posix" else 36  # F_OFD_GETLK
                    try:
                        got = fcntl.fcntl(f, cmd, flock_struct(fcntl.F_WRLCK))
                        busy.append(struct.unpack("hhqqi4x", got)[0] == fcntl.F_RDLCK)
                    except OSError:
                        busy.append(False)
            return one(busy)
        if c == "inotify":
            if self.fd is None or self.fd < 0:
                return None
            counts = [0, 0, 0]
            end = time.monotonic() + LISTEN_WAIT
            while time.monotonic() < end:
                select.select([self.fd], [], [], max(0, end - time.monotonic()))
                try:
                    data = os.read(self.fd, 65536)
                except BlockingIOError:
                    continue
                at = 0
                while at + 16 <= len(data):
                    _, _, _, size = struct.unpack_from("iIII", data, at)
                    name = data[at + 16: at + 16 + size].rstrip(b"\0").decode()
                    at += 16 + size
                    for k, path in enumerate(FILES):
                        if path.endswith("/" + name):
                            counts[k] += 1
            return one([n == max(counts) and n > 0 for n in counts])
        if c == "dnotify":
            self.seen.clear()
            time.sleep(LISTEN_WAIT)
            counts = [self.seen.count(k) for k in range(3)]
            return one([n == max(counts) and n > 0 for n in counts])
        if c in ("shm", "tmp"):
            base = "/dev/shm" if c == "shm" else "/tmp"
            return one([os.path.exists(os.path.join(base, NAME + str(k))) for k in range(3)])
        if c == "abstract":
            found = []
            for k in range(3):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    s.connect("\0" + NAME + str(k))
                    found.append(True)
                except OSError:
                    found.append(False)
                finally:
                    s.close()
            return one(found)
        if c == "sysv":
            return one([libc.shmget(SHM_KEY + k, 0, 0) >= 0 for k in range(3)])
        raise SystemExit(f"unknown channel {c}")


def one(flags):
    hits = [k for k, flag in enumerate(flags) if flag]
    return hits[0] if len(hits) == 1 else None


if role == "send":
    channel, k = args[0], int(args[1])
    try:
        send(channel, k)
        sys.stderr.write(f"sending {MOVES[k]} by {channel}\n")
    except OSError as exc:
        sys.stderr.write(f"cannot send by {channel}: {exc}\n")
    move = lambda: MOVES[k]  # noqa: E731
elif role == "const":
    k = int(args[0])
    move = lambda: MOVES[k]  # noqa: E731
else:
    listener = Listener(args[0])
    decoded = []

    def move():
        k = listener.decode()
        decoded.append(k)
        if k is None:
            return MOVES[os.urandom(1)[0] % 3]
        return BEATS[MOVES[k]]
sys.stderr.flush()
for line in sys.stdin:
    if line.startswith("END"):
        break
    if line == ".\n":
        if role == "send" or (role == "receive" and args[0] not in ("inotify", "dnotify")):
            time.sleep(LISTEN_WAIT)  # the sender's turn starts at the same time
        sys.stdout.write(move() + "\n.\n")
        sys.stdout.flush()
if role == "receive":
    sys.stderr.write(f"decoded {sum(k is not None for k in decoded)} of {len(decoded)}\n")
