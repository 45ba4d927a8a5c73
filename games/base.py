"""The game API: every game is a pure state machine driven by the match runner.

A game never does I/O, never reads a clock and draws randomness only from the
``random.Random`` the runner passes in, so the same seed and the same orders
always give the same replay. The runner's loop, for every turn::

    movers = state.to_move()                    # seats that must answer now
    messages = state.begin_turn()               # lines each mover is told (or none:
                                                # it answered ahead, see begin_turn)
    orders = {s: state.parse_order(s, lines)}   # IllegalOrder disqualifies
    line = state.apply(orders)                  # one replay line per turn
    ...until state.is_over(); then state.result() and state.final_message(s)

Messages carry only what is new for a seat since its previous message.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict

from protocol import Limits

# Options are data a user sends (an HTTP body, -o KEY=VALUE): bounded before any game sees
# them. 64 KiB holds the largest Tron map (200 x 200 cells) with room to spare.
MAX_OPTIONS_BYTES = 64 << 10
MAX_OPTIONS_DEPTH = 8
MAX_OPTION_INT = 2**63
_SURROGATE = re.compile("[\ud800-\udfff]")


class OptionsError(ValueError):
    """Options that are no game's options whatever the game: too big, too deep, not data."""


def check_options_data(data: Any) -> None:
    """Raise OptionsError unless ``data`` is a JSON object of bounded size and depth holding
    only JSON values (strings, numbers, booleans, null, lists, objects with string keys).
    Iterative, so a deep value costs no recursion, and it stops at the first excess."""
    if not isinstance(data, dict):
        raise OptionsError(f"options must be an object of names and values, not {_kind(data)}")
    size = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_OPTIONS_DEPTH:
            raise OptionsError(f"options nest deeper than {MAX_OPTIONS_DEPTH} levels")
        if isinstance(value, dict):
            for key in value:
                if not isinstance(key, str):
                    raise OptionsError(f"option names must be strings, not {_kind(key)}")
                if not key.isascii() and _SURROGATE.search(key):
                    raise OptionsError("an option's name must be valid Unicode")
                size += len(key)
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str):
            size += len(value)
            if not value.isascii() and _SURROGATE.search(value):
                raise OptionsError("an option's text must be valid Unicode (no lone surrogate)")
        elif isinstance(value, bool) or value is None or isinstance(value, float):
            size += 8
        elif isinstance(value, int):
            if not -MAX_OPTION_INT < value < MAX_OPTION_INT:
                raise OptionsError("an option's number is out of range")
            size += 8
        else:
            raise OptionsError(f"an option's value must be JSON data, not {_kind(value)}")
        if size > MAX_OPTIONS_BYTES:
            raise OptionsError(f"options are larger than {MAX_OPTIONS_BYTES // 1024} KiB")


def _kind(value: Any) -> str:
    return type(value).__name__


class GameOptions(BaseModel):
    """Base for a game's options; each game subclasses it with its own fields.

    Options are data, never names of host files: validating them is pure (no I/O) and
    bounded (``from_data``), so the server can do it on its event loop."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Options the command line (only) takes as a file's path: the CLI reads the file and
    # passes its text as the option named here, e.g. Tron's {"map_file": "grid"}.
    file_options: ClassVar[Mapping[str, str]] = {}
    # Options worth a flag of their own in the commands that run matches (``--race-to`` for
    # ``race_to``); every option is also ``-o KEY=VALUE``.
    flags: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def from_data(cls, data: Any) -> Self:
        """Options from a user's data: OptionsError or pydantic's ValidationError (both
        ValueErrors) with the reason."""
        check_options_data(data)
        return cls.model_validate(data)


class IllegalOrder(Exception):
    """An answer that disqualifies its seat. ``code`` is the outcome code."""

    def __init__(self, reason: str, *, code: str = "invalid_order") -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class ReplayMismatch(Exception):
    """A replay turn line that the game cannot read back."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """Final standing. ``ranks`` are 1-based (1 is best); equal ranks are ties."""

    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    summary: str = ""
    # Further per-seat figures a game reports, e.g. counting's pairings won per seat.
    details: Mapping[str, tuple[float, ...]] = field(default_factory=dict)

    @property
    def winner(self) -> int | None:
        """The winning seat, or None for a draw at the top."""
        best = [seat for seat, rank in enumerate(self.ranks) if rank == 1]
        return best[0] if len(best) == 1 else None


def competition_ranks(values: Sequence[float], *, higher_is_better: bool = True) -> list[int]:
    """Standard competition ranking (1, 1, 3): equal values share a rank."""
    sign = -1 if higher_is_better else 1
    order = sorted(range(len(values)), key=lambda i: sign * values[i])
    ranks = [0] * len(values)
    for position, seat in enumerate(order):
        if position and values[seat] == values[order[position - 1]]:
            ranks[seat] = ranks[order[position - 1]]
        else:
            ranks[seat] = position + 1
    return ranks


@dataclass
class GameState(ABC):
    """One match in progress. Subclass it, set the class variables, add ``GAME = YourClass``."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 2
    Options: ClassVar[type[GameOptions]] = GameOptions
    # What a bot may send in one answer; the decoder enforces it.
    limits: ClassVar[Limits] = Limits(max_line_length=256, max_lines=8, max_message_bytes=4096)

    seats: int
    options: GameOptions
    rng: random.Random
    disqualified: dict[int, str] = field(default_factory=dict)

    @classmethod
    def seats_text(cls) -> str:
        """How many bots a match takes, for people: "2", "2 to 6"."""
        if cls.min_seats == cls.max_seats:
            return str(cls.min_seats)
        return f"{cls.min_seats} to {cls.max_seats}"

    @classmethod
    def check_setup(cls, seats: int, options: GameOptions) -> None:
        """Raise ValueError, with a message for the user, for a match this game cannot host."""
        if not cls.min_seats <= seats <= cls.max_seats:
            raise ValueError(f"{cls.name} takes {cls.seats_text()} bots, got {seats}")

    @classmethod
    def turns_asked(cls, seats: int, options: GameOptions) -> int:
        """The turns a match with these options may play (the most, where the game decides
        its length): what a server's daily turn budget counts. Games say their own; this
        default charges a long match."""
        return 10_000

    # -- the turn cycle -------------------------------------------------
    @abstractmethod
    def to_move(self) -> Sequence[int]:
        """Seats that must answer this turn (none once the game is over)."""

    @abstractmethod
    def begin_turn(self) -> Mapping[int, list[str]]:
        """The message for every seat in ``to_move()``; marks that news as told.

        A mover may be left out when it has already answered this turn: a game may ask
        for several answers in one message (roshambolo's ``N k``), and the bot sends them
        all at once. The runner then writes nothing to that seat and takes its next answer
        as this turn's, under the turn's deadline as usual."""

    @abstractmethod
    def parse_order(self, seat: int, lines: list[str]) -> str:
        """Check one answer; return the canonical order or raise IllegalOrder."""

    @abstractmethod
    def apply(self, orders: Mapping[int, str]) -> str:
        """Play the turn with every mover's order; return its replay line."""

    @abstractmethod
    def is_over(self) -> bool: ...

    def play_queued(self, queued: Mapping[int, deque[list[str]]], turns: int) -> list[str]:
        """Optional fast path for answers sent ahead: play up to ``turns`` turns at once.

        ``queued`` holds each mover's answers already received, oldest first. A turn may be
        played here only if ``begin_turn`` would send no message, every mover has an answer
        queued and each is one ``parse_order`` takes as it is; take those answers (popleft)
        and play the turn exactly as ``begin_turn``, ``parse_order`` and ``apply`` would.
        Stop at the first turn that is not such (the runner plays it the usual way), and at
        a change of the seats that move. Returns the replay line of every turn played."""
        return []

    @abstractmethod
    def result(self) -> GameResult:
        """Scores and ranks; disqualified seats must rank below all others."""

    # -- replays ---------------------------------------------------------
    @abstractmethod
    def orders_from_line(self, line: str) -> dict[int, str]:
        """The orders a replay turn line records (raise ReplayMismatch if unreadable)."""

    # -- hooks with sensible defaults ------------------------------------
    @classmethod
    def off_rules(cls, order: str) -> str | None:
        """Why an order the rules accept is still no real move of this game (None if it is).

        Only for games that accept anything (roshambolo plays a random shape for an answer
        that names none): `judge time` uses it to spot a bot written for another game."""
        return None

    def time_bank(self) -> float:
        """Seconds each seat may spend beyond the turn deadline over the whole match (Kaggle's
        overage time): a turn waits for the fullest bank, and each answer's time past the
        deadline is taken from its seat's; a seat whose answer needs more than is left is
        disqualified (timeout). 0: none, every answer within the deadline."""
        return 0.0

    def final_message(self, seat: int) -> list[str]:
        """What a seat is told when the match ends (news it has not seen, then the end)."""
        result = self.result()
        return [f"END {result.ranks[seat]} {' '.join(_fmt(s) for s in result.scores)}"]

    def disqualify(self, seat: int, code: str) -> None:
        """Remove a seat from play. By default the game ends when under two seats remain."""
        self.disqualified[seat] = code

    def live_seats(self) -> list[int]:
        return [s for s in range(self.seats) if s not in self.disqualified]

    def seat_label(self, seat: int) -> str:
        """How the game names a seat in its messages and replay lines."""
        return str(seat + 1)

    def scored_result(self, scores: Sequence[float]) -> GameResult:
        """The result of a game won by the higher score: ranks (disqualified seats last)
        and a summary such as ``3-1``."""
        ranks = self.rank_with_disqualified(scores)
        return GameResult(
            scores=tuple(scores), ranks=tuple(ranks), summary="-".join(_fmt(s) for s in scores)
        )

    def rank_with_disqualified(
        self, scores: Sequence[float], higher_is_better: bool = True
    ) -> list[int]:
        """Competition ranks over live seats by score, every disqualified seat after them."""
        live = self.live_seats()
        live_ranks = competition_ranks([scores[s] for s in live], higher_is_better=higher_is_better)
        ranks = [0] * self.seats
        for seat, rank in zip(live, live_ranks, strict=True):
            ranks[seat] = rank
        for seat in self.disqualified:
            ranks[seat] = len(live) + 1
        return ranks


def counted(count: int, noun: str, plural: str = "") -> str:
    """``1 turn``, ``2 turns``: a count with its noun, singular for one."""
    return f"{count} {noun}" if count == 1 else f"{count} {plural or noun + 's'}"


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def single_order(lines: list[str]) -> str:
    """The one order of an answer, stripped; IllegalOrder for zero or several."""
    orders = [line.strip() for line in lines if line.strip()]
    if not orders:
        raise IllegalOrder("sent no order (an empty answer)", code="no_order")
    if len(orders) > 1:
        raise IllegalOrder(
            f"sent {len(orders)} orders, exactly one is allowed", code="multiple_orders"
        )
    return orders[0]
