"""Terminal rendering of replays: the generic renderer, and the base of every game's own.

A renderer turns records into rich ``Text``. A game's renderer (``games/<game>/render.py``,
``RENDERER``) reads its game's turn line (the game's README); a line it cannot read falls
back to the generic rendering, which shows the line and, when the game is installed, the
orders the game reads from it. A game without a renderer gets the generic one.
"""

from __future__ import annotations

import random
from typing import ClassVar

from rich.table import Table
from rich.text import Text

from games import UnknownGame, get_game, get_plugin
from games.base import GameState, counted
from replays.format import ReplayHeader
from replays.reader import Disqualified, Turn
from replays.result import MatchResult

SEAT_STYLES = ("cyan", "magenta", "yellow", "green", "blue", "red")


class Renderer:
    """The generic renderer; subclasses set ``game`` and override ``render_turn``."""

    game: ClassVar[str] = ""

    def __init__(self, header: ReplayHeader) -> None:
        self.header = header
        self.names = [p.name for p in header.players]
        self.labels = [p.label for p in header.players]
        self._state: GameState | None = None
        self._state_failed = False

    def seat(self, seat: int, *, pad: bool = False) -> Text:
        name = self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat + 1}"
        if pad:
            name = name.ljust(max(len(n) for n in self.names))
        return Text(name, style=f"bold {SEAT_STYLES[seat % len(SEAT_STYLES)]}")

    def title(self) -> Text:
        text = Text(f"{self.header.game}", style="bold")
        if self.header.seed is not None:  # (version 1; later ones reveal it with the result)
            text.append(f" · seed {self.header.seed}")
        options = ", ".join(f"{k}={shown_option(v)}" for k, v in self.header.options.items())
        if options:
            text.append(f" · {options}")
        text.append(" · ")
        for index in range(len(self.names)):
            if index:
                text.append(" vs ")
            text.append_text(self.seat(index))
        return text

    def turn(self, turn: Turn) -> Text:
        """One turn as one line of text; never raises."""
        prefix = Text(f"{turn.number:>6} ", style="dim")
        try:
            body = self.render_turn(turn)
        except (ValueError, IndexError, KeyError):
            body = self.generic_turn(turn)
        return prefix + body

    def render_turn(self, turn: Turn) -> Text:
        return self.generic_turn(turn)

    def _game_state(self) -> GameState | None:
        """A fresh state of the game, only to read orders back from lines."""
        if self._state is None and not self._state_failed:
            try:
                cls = get_game(self.header.game)
                self._state = cls(
                    seats=len(self.names),
                    options=cls.Options(**self.header.options),
                    rng=random.Random(0),  # (its draws do not matter to reading lines)
                )
            except (UnknownGame, ValueError, TypeError):
                self._state_failed = True
        return self._state

    def generic_turn(self, turn: Turn) -> Text:
        text = Text(turn.line)
        state = self._game_state()
        if state is None:
            return text
        try:
            orders = state.orders_from_line(turn.line)
        except Exception:  # a game's parser on a line it did not write: show the line only
            return text
        text.append("   ")
        for index, (seat, order) in enumerate(sorted(orders.items())):
            if index:
                text.append(", ")
            text.append_text(self.seat(seat))
            text.append(f" {order}")
        return text

    def disqualified(self, dq: Disqualified) -> Text:
        text = Text(f"{'DQ':>6} ", style="bold red")
        text.append_text(self.seat(dq.seat))
        text.append(f" disqualified in turn {dq.turn}: {dq.code} ({dq.reason})", style="red")
        return text

    def result(self, result: MatchResult) -> Table:
        table = Table(title=f"result after {counted(result.turns, 'turn')}: {result.summary}")
        for column in ("seat", "bot", "score", "rank", "outcome"):
            table.add_column(column)
        for p in result.players:
            outcome = "ok" if p.outcome == "ok" else f"[red]{p.outcome}[/]: {p.reason}"
            table.add_row(p.label, p.name, f"{p.score:g}", str(p.rank), outcome)
        return table

    def verdict(self, result: MatchResult) -> Text:
        if result.draw or result.winner is None:
            return Text("Draw", style="bold")
        return self.seat(result.winner) + Text(" wins", style="bold")


def shown_option(value: object, longest: int = 40) -> str:
    """An option's value for a title: a long or multi-line one (a map's text) as its size."""
    text = str(value)
    return text if len(text) <= longest and "\n" not in text else f"<{len(text)} characters>"


def renderer_for(header: ReplayHeader) -> Renderer:
    """The game's own renderer (its folder's render.py), else the generic one."""
    try:
        cls = get_plugin(header.game).renderer() or Renderer
    except UnknownGame:
        cls = Renderer
    return cls(header)


def score_pair(a: str, b: str) -> Text:
    return Text.assemble("  ", (a, f"bold {SEAT_STYLES[0]}"), " : ", (b, f"bold {SEAT_STYLES[1]}"))
