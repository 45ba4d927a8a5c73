"""Runs a built-in bot: ``python play.py GAME NAME``. The judge starts this for built-ins."""

import importlib
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
    game, name = sys.argv[1], sys.argv[2]
    module = importlib.import_module(f"games.{game}.bots")
    module.BOTS[name]()
