"""The terminal renderer of roshambolo replays (``judge replay``)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from replays.reader import Turn
from replays.render import Renderer


class RoshamboloRenderer(Renderer):
    """``<game> <a> <b> <answer a> <answer b> <shape a> <shape b> <winner> <wins a> <wins b>
    <how>``."""

    game = "roshambolo"
    SHAPES: ClassVar[dict[str, str]] = {"1": "rock", "2": "paper", "3": "scissors", "*": "—"}
    HOW: ClassVar[dict[str, str]] = {
        "beats": "shape beats shape",
        "more": "played that shape more",
        "counter": "played its counter more",
        "coin": "coin toss",
        "forfeit": "forfeit",
    }

    def render_turn(self, turn: Turn) -> Text:
        parts = turn.line.split(" ")
        game, a, b, _, _, shape_a, shape_b, winner, wins_a, wins_b, how = parts
        seat_a, seat_b = int(a) - 1, int(b) - 1
        text = Text(f"game {game:>3}  ", style="dim")
        text += self.seat(seat_a) + Text(f" {self.SHAPES[shape_a]:<8} ")
        text += self.seat(seat_b) + Text(f" {self.SHAPES[shape_b]:<8} → ")
        text += self.seat((seat_a, seat_b)[int(winner)])
        text.append(f" ({self.HOW.get(how, how)})", style="dim")
        return text + Text(f"  {wins_a}:{wins_b}")


RENDERER = RoshamboloRenderer
