"""Runs the attack named by its arguments in this process (exec): a bot started by the fork
server is a Python process, and this is how any program gets its sandbox that way."""
import os
import sys

os.execv(sys.argv[1], sys.argv[1:])
