"""A human seat: ``python -S human.py GAME`` speaks the protocol on stdin/stdout like any bot
and talks to a person on the terminal named by ``JUDGE_TTY`` (``judge play`` sets it).

The game's ``games/<game>/human.py`` shows each turn the way the original project's human
mode did, asks for a move, and asks again until the input is valid. End of input on the
terminal (Ctrl-D) leaves the match, which the judge records as this seat exiting.
"""

import importlib
import os
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
    from bots.terminal import Terminal

    game = sys.argv[1] if len(sys.argv) > 1 else ""
    tty = os.environ.get("JUDGE_TTY")
    if not game.isidentifier() or not tty:
        sys.exit(f"usage: JUDGE_TTY=/dev/pts/N {sys.argv[0]} GAME")
    try:
        module = importlib.import_module(f"games.{game}.human")
    except ModuleNotFoundError:
        sys.exit(f"{game} has no human play (games/{game}/human.py)")
    module.play(Terminal(tty))
