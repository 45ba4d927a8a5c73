"""Terminal rendering of replays, one renderer per game, a generic one for every other game.

A renderer turns records into rich ``Text``. Per-game renderers read their game's
turn line (docs/games/<game>.md); a line they cannot read falls back to the generic
rendering, which shows the line and, when the game is installed, the orders the game
reads from it. Register a renderer with ``@register``; a new game needs none.
"""

from __future__ import annotations

import random
from typing import ClassVar

from rich.table import Table
from rich.text import Text

from games import UnknownGame, get_game
from games.base import GameState
from replays.format import ReplayHeader
from replays.reader import Disqualified, Turn
from replays.result import OUTCOMES, MatchResult

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
        text.append(f" · seed {self.header.seed}")
        options = ", ".join(f"{k}={v}" for k, v in self.header.options.items())
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
                    rng=random.Random(self.header.seed),
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
        table = Table(title=f"result after {result.turns} turns: {result.summary}")
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


RENDERERS: dict[str, type[Renderer]] = {}


def register(cls: type[Renderer]) -> type[Renderer]:
    RENDERERS[cls.game] = cls
    return cls


def renderer_for(header: ReplayHeader) -> Renderer:
    return RENDERERS.get(header.game, Renderer)(header)


def _score_pair(renderer: Renderer, a: str, b: str) -> Text:
    return Text.assemble(
        "  ", (a, f"bold {SEAT_STYLES[0]}"), " : ", (b, f"bold {SEAT_STYLES[1]}")
    )


@register
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
        return text + _score_pair(self, score_a, score_b)


@register
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
        return text + _score_pair(self, score_a, score_b)


@register
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


@register
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


def outcome_text(code: str) -> str:
    return OUTCOMES.get(code, code)
