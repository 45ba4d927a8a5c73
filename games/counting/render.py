"""The terminal renderer of counting replays (``judge replay``)."""

from __future__ import annotations

from rich.text import Text

from replays.reader import Turn
from replays.render import Renderer, score_pair


class CountingRenderer(Renderer):
    """``<p1 score> <p2 score> <p1 value> <p2 value>``."""

    game = "counting"

    def render_turn(self, turn: Turn) -> Text:
        score_a, score_b, a, b = turn.line.split(" ")
        low = min(int(a), int(b))
        text = self.seat(0) + Text(f" {a:>3}  ") + self.seat(1) + Text(f" {b:>3}  ")
        if int(a) == int(b) == 100:
            text.append("both reach 100: +100 each", style="green")
        elif a == b:
            text.append("equal: nobody scores", style="dim")
        else:
            text.append("→ ")
            text.append_text(self.seat(0 if int(a) < int(b) else 1))
            text.append(f" stops first: +{2 * low}")
        return text + score_pair(score_a, score_b)


RENDERER = CountingRenderer
