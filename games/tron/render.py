"""The terminal renderer of Tron replays: both moves and positions, and who crashed."""

from __future__ import annotations

from rich.text import Text

from replays.reader import Turn
from replays.render import Renderer

ARROWS = {"N": "↑", "E": "→", "S": "↓", "W": "←"}


class TronRenderer(Renderer):
    """``<move 1> <move 2> <x1> <y1> <x2> <y2> <state>``."""

    game = "tron"

    def render_turn(self, turn: Turn) -> Text:
        a, b, x1, y1, x2, y2, state = turn.line.split(" ")
        text = self.seat(0) + Text(f" {ARROWS[a]} ({x1},{y1})  ") + self.seat(1)
        text.append(f" {ARROWS[b]} ({x2},{y2})")
        if state == "draw":
            text.append("  both crash: draw", style="bold")
        elif state in ("1", "2"):
            loser = 1 if state == "1" else 0
            text.append("  ")
            text.append_text(self.seat(loser))
            text.append(" crashes → ")
            text.append_text(self.seat(1 - loser))
            text.append(" wins", style="bold")
        return text


RENDERER = TronRenderer
