"""The terminal renderer of liar's dice replays (``judge replay``)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from replays.reader import Turn
from replays.render import Renderer


class LiarsDiceRenderer(Renderer):
    """``H<hand> <seat> <play>[ illegal:<raw>|not-increasing:<raw>][ | <showdown>]``."""

    game = "liarsdice"
    CODES: ClassVar[dict[str, str]] = {
        "1": "liar called on the opening: the caller loses a die",
        "2": "the bid was met: the caller loses a die",
        "3": "the bid was not met: the bidder loses a die",
    }

    def seat_of_label(self, label: str) -> int:
        return self.labels.index(label)

    def render_turn(self, turn: Turn) -> Text:
        move, _, showdown = turn.line.partition(" | ")
        hand, label, play, *flaw = move.split(" ")
        text = Text(f"hand {hand[1:]:>3}  ", style="dim") + self.seat(self.seat_of_label(label))
        bid = int(play)
        if bid:
            text.append(f" bids {bid // 10} × {bid % 10}")
        else:
            text.append(" calls liar", style="bold")
        if flaw:
            kind, _, raw = flaw[0].partition(":")
            text.append(f" (sent {raw}: {kind}, counted as liar)", style="yellow")
        if showdown:
            revealed, _history, loser, code = showdown.split(" ")
            text.append("  dice ")
            text.append(revealed.replace(",", " "), style="bold")
            text.append("  → ")
            text.append_text(self.seat(self.seat_of_label(loser.removeprefix("LOSER:"))))
            text.append(f" loses a die ({self.CODES.get(code, code)})", style="dim")
        return text


RENDERER = LiarsDiceRenderer
