"""Liar's dice exactly as botfights/liarsdice plays it (rules.md §2.3).

Seats are labelled A, B, C... in command-line order; the seat order (who plays
after whom) is a shuffle drawn from the game's rng. Every seat starts with 5
dice of 6 faces, ones are not wild and nobody re-rolls inside a hand. A bid is
``quantity*10 + face`` and 0 calls liar. One seat moves per turn.

Every message starts with ``Y <label>``; then the news the seat has not seen:
``S <hands> <history> <loser> <code>`` for every hand that ended (the original's
showdown call, which goes to every seat) and ``D <label> <code>`` when a seat was
disqualified; a turn ends with ``H <hands>`` and ``P <history>``, the exact
strings the original passes to ``get_play(me, hands, history)``. The final
message ends with ``END``. See games/liarsdice/README.md.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from games.base import (
    GameOptions,
    GameResult,
    GameState,
    IllegalOrder,
    ReplayMismatch,
    single_order,
)

DICE_PER_SEAT = 5
FACES = 6
LABELS = string.ascii_uppercase
INTEGER = re.compile(r"[+-]?[0-9]+")
# How a liar call ended the hand: the code the original logs in LOG_HAND.
OPENING_LIAR, BID_MET, BID_NOT_MET = 1, 2, 3
ILLEGAL, NOT_INCREASING = "illegal", "not-increasing"
TURN_LINE = re.compile(
    r"H(?P<hand>[0-9]+) (?P<seat>[A-Z]) (?P<recorded>-?[0-9]+)"
    r"(?: (?:illegal|not-increasing):(?P<raw>[+-]?[0-9]+))?(?: \| .*)?"
)


def label_of(seat: int) -> str:
    return LABELS[seat]


@dataclass
class LiarsDice(GameState):
    name: ClassVar[str] = "liarsdice"
    description: ClassVar[str] = "liar's dice, botfights style (seed 001): 2-26 seats"
    max_seats: ClassVar[int] = len(LABELS)
    Options: ClassVar[type[GameOptions]] = GameOptions

    @classmethod
    def turns_asked(cls, seats: int, options: GameOptions) -> int:
        """A hand loses a die, and its bids only rise (a count and a face of all dice)
        until the challenge."""
        dice = seats * DICE_PER_SEAT
        return dice * (dice * 6 + 1)

    order: list[int] = field(default_factory=list)  # seat order, shuffled
    cups: list[int] = field(default_factory=list)  # dice left per seat
    dice: list[list[int]] = field(default_factory=list)  # this hand's dice, descending
    hand: int = 0
    rolled: bool = False
    in_hand: list[int] = field(default_factory=list)  # seats with dice when the hand began
    history: list[tuple[int, int]] = field(default_factory=list)  # (seat, recorded play)
    mover: int | None = None
    eliminated: list[int] = field(default_factory=list)  # in order of elimination
    news: list[list[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.order = list(range(self.seats))
        self.rng.shuffle(self.order)
        self.cups = [DICE_PER_SEAT] * self.seats
        self.dice = [[] for _ in range(self.seats)]
        self.news = [[] for _ in range(self.seats)]
        self.mover = self.order[0]

    # -- helpers ---------------------------------------------------------
    @property
    def quantity_cap(self) -> int:
        """The original caps quantities at the initial total of dice, not the current one."""
        return self.seats * DICE_PER_SEAT

    def seat_label(self, seat: int) -> str:
        return label_of(seat)

    def active(self) -> list[int]:
        return [s for s in self.order if self.cups[s] > 0]

    def next_active_after(self, seat: int) -> int:
        position = self.order.index(seat)
        for step in range(1, self.seats + 1):
            candidate = self.order[(position + step) % self.seats]
            if self.cups[candidate] > 0:
                return candidate
        raise AssertionError("no seat has dice")

    def hands_string(self, viewer: int) -> str:
        """What ``viewer`` sees: its own dice, everyone else's masked, the eliminated empty."""
        return ",".join(
            f"{label_of(s)}:"
            + ("".join(map(str, self.dice[s])) if s == viewer else "x" * self.cups[s])
            for s in self.order
        )

    def revealed_string(self) -> str:
        """The showdown's hands: every seat that had dice when the hand began, unmasked."""
        return ",".join(f"{label_of(s)}:{''.join(map(str, self.dice[s]))}" for s in self.in_hand)

    def history_string(self) -> str:
        return ",".join(f"{label_of(s)}:{play}" for s, play in self.history)

    def _roll(self) -> None:
        self.hand += 1
        self.in_hand = self.active()
        for seat in self.order:
            rolls = [self.rng.randint(1, FACES) for _ in range(self.cups[seat])]
            self.dice[seat] = sorted(rolls, reverse=True)
        self.history = []
        self.rolled = True

    def _next_hand(self, opener: int) -> None:
        """Dice are rolled when the next turn begins (a DQ before it then voids nothing)."""
        self.rolled = False
        self.history = []
        self.mover = self.next_active_after(opener) if len(self.active()) > 1 else None

    def _tell_all(self, line: str) -> None:
        for seat in range(self.seats):
            if seat not in self.disqualified:
                self.news[seat].append(line)

    # -- the turn cycle ----------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        return () if self.mover is None else (self.mover,)

    def begin_turn(self) -> dict[int, list[str]]:
        if self.mover is None:
            return {}
        if not self.rolled:
            self._roll()
        seat = self.mover
        lines = [f"Y {label_of(seat)}", *self.news[seat], f"H {self.hands_string(seat)}"]
        lines.append(f"P {self.history_string()}".rstrip())
        self.news[seat] = []
        return {seat: lines}

    def parse_order(self, seat: int, lines: list[str]) -> str:
        order = single_order(lines)
        if not INTEGER.fullmatch(order):
            raise IllegalOrder(
                f"sent {order[:40]!r}, which is not a whole number (a bid like 23, or 0 for liar)"
            )
        return str(int(order))

    def judge_play(self, play: int) -> tuple[int, str]:
        """The play as the original records it: illegal or non-increasing bids become 0."""
        if play == 0:
            return 0, ""
        quantity, face = divmod(play, 10)
        if face <= 0 or face > FACES or quantity <= 0 or quantity > self.quantity_cap:
            return 0, ILLEGAL
        if self.history:
            last_quantity, last_face = divmod(self.history[-1][1], 10)
            if not (quantity > last_quantity or (quantity == last_quantity and face > last_face)):
                return 0, NOT_INCREASING
        return play, ""

    def apply(self, orders: Mapping[int, str]) -> str:
        seat = self.mover
        assert seat is not None and self.rolled
        raw = int(orders[seat])
        play, flaw = self.judge_play(raw)
        self.history.append((seat, play))
        line = f"H{self.hand} {label_of(seat)} {play}" + (f" {flaw}:{raw}" if flaw else "")
        if play != 0:
            self.mover = self.next_active_after(seat)
            return line
        loser, code = self._resolve_liar(seat)
        revealed, history = self.revealed_string(), self.history_string()
        self.cups[loser] -= 1
        if self.cups[loser] == 0:
            self.eliminated.append(loser)
        self._tell_all(f"S {revealed} {history} {label_of(loser)} {code}")
        self._next_hand(seat)
        return f"{line} | {revealed} {history} LOSER:{label_of(loser)} {code}"

    def _resolve_liar(self, caller: int) -> tuple[int, int]:
        if len(self.history) == 1:
            return caller, OPENING_LIAR
        bidder, bid = self.history[-2]
        quantity, face = divmod(bid, 10)
        count = sum(die == face for s in self.in_hand for die in self.dice[s])
        return (caller, BID_MET) if count >= quantity else (bidder, BID_NOT_MET)

    def disqualify(self, seat: int, code: str) -> None:
        """A disqualified seat loses all its dice; a hand it was in is void and re-rolled."""
        super().disqualify(seat, code)
        self.news[seat] = []
        had_dice = self.cups[seat] > 0
        self.cups[seat] = 0
        self.dice[seat] = []
        self._tell_all(f"D {label_of(seat)} {code}")
        if not had_dice or self.mover is None:
            return
        if len(self.active()) <= 1:
            self.mover, self.rolled = None, False
            return
        if self.rolled:  # the hand in progress is void: new dice for everyone left
            self.rolled, self.history = False, []
        if self.mover == seat:
            self.mover = self.next_active_after(seat)

    def is_over(self) -> bool:
        return self.mover is None

    def winner_seat(self) -> int | None:
        active = self.active()
        return active[0] if len(active) == 1 and self.mover is None else None

    def result(self) -> GameResult:
        # Placement: seats still holding dice first, then the later eliminated before the earlier.
        standing = {s: len(self.eliminated) for s in self.active()}
        standing.update({s: i for i, s in enumerate(self.eliminated)})
        placement = [float(standing.get(s, -1)) for s in range(self.seats)]
        ranks = self.rank_with_disqualified(placement)
        winner = self.winner_seat()
        scores = tuple(1.0 if s == winner else 0.0 for s in range(self.seats))
        order = ",".join(label_of(s) for s in self.order)
        if winner is None:
            summary = f"no winner after {self.hand} hands (seat order {order})"
        else:
            summary = f"{label_of(winner)} wins after {self.hand} hands (seat order {order})"
        return GameResult(scores=scores, ranks=tuple(ranks), summary=summary)

    def final_message(self, seat: int) -> list[str]:
        lines = [f"Y {label_of(seat)}", *self.news[seat]]
        self.news[seat] = []
        return lines + super().final_message(seat)

    def orders_from_line(self, line: str) -> dict[int, str]:
        match = TURN_LINE.fullmatch(line.rstrip("\n"))
        if match is None:
            raise ReplayMismatch(f"not a liarsdice turn line: {line!r}")
        seat = LABELS.index(match["seat"])
        return {seat: match["raw"] or match["recorded"]}
