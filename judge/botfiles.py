"""Where the judge's own bot-side code lives, how its Python scripts start, and the error
for a BOT that cannot run (shared by judge/bots.py and judge/adapters.py)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOTS_DIR = ROOT / "bots"  # botlib, play.py and human.py, the adapters' shared plumbing
GAMES_DIR = ROOT / "games"  # every game's built-in bots, adapter and human play


class BotError(Exception):
    """A BOT argument that cannot be turned into a runnable bot."""


def python_argv(script: Path) -> list[str]:
    # -s: no user site; the helper library is found through PYTHONPATH.
    return [sys.executable, "-s", str(script)]
