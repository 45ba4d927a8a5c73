"""Runs a built-in bot: ``python play.py GAME NAME``. The judge starts this for built-ins."""

import importlib
import os
import sys

if __name__ == "__main__":
    # os.path rather than pathlib: this runs once per bot start, which importing pathlib slows.
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    game, name = sys.argv[1], sys.argv[2]
    module = importlib.import_module(f"games.{game}.bots")
    module.BOTS[name]()
