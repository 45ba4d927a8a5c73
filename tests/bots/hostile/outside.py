"""Hostile rps bot: resolves and connects to a host outside, then plays rock."""
import socket
import sys

try:
    address = socket.getaddrinfo("example.com", 80, proto=socket.IPPROTO_TCP)[0][4]
    sys.stderr.write(f"resolve: {address[0]}\n")
    with socket.create_connection(address[:2], timeout=2):
        sys.stderr.write("outside: connected\n")
except OSError as exc:
    sys.stderr.write(f"outside: {exc.strerror or exc}\n")
sys.stderr.flush()
for line in sys.stdin:
    if line.startswith("END"):
        break
    if line == ".\n":
        sys.stdout.write("R\n.\n")
        sys.stdout.flush()
