"""The terminal renderer of rps replays (``judge replay``)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from replays.reader import Turn
from replays.render import Renderer, score_pair


class RpsRenderer(Renderer):
    """``<p1 score> <p2 score> <p1 order> <p2 order>``."""

    game = "rps"
    SHAPES: ClassVar[dict[str, str]] = {"R": "rock", "P": "paper", "S": "scissors"}
    BEATS: ClassVar[dict[str, str]] = {"R": "S", "P": "R", "S": "P"}

    def render_turn(self, turn: Turn) -> Text:
        score_a, score_b, a, b = turn.line.split(" ")
        text = self.seat(0) + Text(f" {self.SHAPES[a]:<8}  ") + self.seat(1)
        text.append(f" {self.SHAPES[b]:<8}  ")
        if a == b:
            text.append("  " + "tie".ljust(max(len(n) for n in self.names)), style="dim")
        else:
            winner = 0 if self.BEATS[a] == b else 1
            text.append("→ ")
            text.append_text(self.seat(winner, pad=True))
        return text + score_pair(score_a, score_b)


RENDERER = RpsRenderer
