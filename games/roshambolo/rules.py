"""Roshambolo: rock-paper-scissors without ties, exactly as colinmsaunders/roshambolo plays it.

Shapes are 1 rock, 2 paper, 3 scissors. A round between "a" and "b" always has a
winner: different shapes as usual; the same shape goes to whoever has played it
more often in this game (counts before the round), else to whoever has played
the shape that beats it more often, else to a coin toss from the game's rng.
A game is a race to ``race_to`` round wins.

One match is the original's whole tourney, so bot processes live through it and
ids stay the same: for each of ``rounds`` rounds the seat order is shuffled and
every pair i < j of that order plays one game (``game_id`` counts from 1). Two
seats and one round is the original's ``game`` mode. Every seat observes every
round of every game; observations wait in a seat's queue until its next
message. See games/roshambolo/README.md for the messages and the replay line.

A bot that needs no observations may answer its first play with a second line
``AHEAD``: it is then told no ``O`` lines, and each of its ``P`` messages carries
``N k``, the rounds of this game certain to be played from this one on; it answers
all k plays at once (k answers) and is sent nothing until they are used up.
Original bot files without ``observe`` do this through the adapter: the same
``play`` calls, in the same order, without a round trip per round.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar
from urllib.parse import quote, unquote

from pydantic import Field

from games.base import (
    GameOptions,
    GameResult,
    GameState,
    ReplayMismatch,
    single_order,
)
from protocol import Limits

ROCK, PAPER, SCISSORS = 1, 2, 3
BEATEN_BY = {ROCK: PAPER, PAPER: SCISSORS, SCISSORS: ROCK}
NO_ANSWER = "*"  # in a replay line: this seat gave no answer (disqualified); never a quote() output
# How a round was decided, the last field of its replay line.
HOW_SHAPES, HOW_MORE, HOW_COUNTER = "beats", "more", "counter"
HOW_COIN, HOW_FORFEIT = "coin", "forfeit"
HOWS = frozenset({HOW_SHAPES, HOW_MORE, HOW_COUNTER, HOW_COIN, HOW_FORFEIT})
TRIM_AT = 4096  # drop told observations once this many pile up in front
AHEAD = "AHEAD"  # a second answer line: this bot plays ahead and needs no observations
AHEAD_MAX = 1000  # plays asked for in one message at most
# The usual answers and what they name (anything else goes through shape_of).
PLAIN_SHAPES = {"1": ROCK, "2": PAPER, "3": SCISSORS}


class RoshamboloOptions(GameOptions):
    flags: ClassVar[tuple[str, ...]] = ("race_to", "rounds")
    race_to: int = Field(100, ge=1, le=10_000_000, description="round wins that end a game")
    rounds: int = Field(1, ge=1, le=1_000_000, description="tourney rounds (every pair once each)")


def shape_of(answer: str) -> int | None:
    """The shape an answer names under the original's ``int()``; None when it names none."""
    try:
        value = int(answer)
    except ValueError:
        return None
    return value if ROCK <= value <= SCISSORS else None


def decide(a: int, b: int, plays_a: list[int], plays_b: list[int]) -> tuple[int | None, str]:
    """Winner of a round (0 for a, 1 for b) from the counts before it; None means a coin toss."""
    if a != b:
        return (0 if BEATEN_BY[b] == a else 1), HOW_SHAPES
    more = plays_a[a] - plays_b[b]
    if more:
        return (0 if more > 0 else 1), HOW_MORE
    beater = BEATEN_BY[a]
    more = plays_a[beater] - plays_b[beater]
    if more:
        return (0 if more > 0 else 1), HOW_COUNTER
    return None, HOW_COIN


@dataclass
class Roshambolo(GameState):
    name: ClassVar[str] = "roshambolo"
    description: ClassVar[str] = (
        "rock-paper-scissors without ties, races to N; N seats play the original's tourney"
    )
    max_seats: ClassVar[int] = 64
    Options: ClassVar[type[GameOptions]] = RoshamboloOptions

    @classmethod
    def turns_asked(cls, seats: int, options: GameOptions) -> int:
        """Every pair plays a game each round; a round always has a winner, so a race to
        N ends within 2N - 1 rounds."""
        assert isinstance(options, RoshamboloOptions)
        games = options.rounds * (seats * (seats - 1) // 2)
        return games * (2 * options.race_to - 1)

    # An answer is one short line; messages to bots may be long (observations batch up).
    limits: ClassVar[Limits] = Limits(max_line_length=64, max_lines=4, max_message_bytes=512)

    @classmethod
    def off_rules(cls, order: str) -> str | None:
        if shape_of(order) is None:
            return f"{order[:20]!r} names no shape (1, 2 or 3); the judge plays a random one"
        return None

    order: list[int] = field(default_factory=list)  # this tourney round's seat order
    pairs: list[tuple[int, int]] = field(default_factory=list)
    pair_index: int = -1
    tourney_round: int = 0
    game_id: int = 0
    current: tuple[int, int] | None = None  # (a, b) of the game being played
    wins: list[int] = field(default_factory=lambda: [0, 0])
    plays: list[list[int]] = field(default_factory=lambda: [[0] * 4, [0] * 4])
    games_won: list[int] = field(default_factory=list)
    round_wins: list[int] = field(default_factory=list)
    turn_open: bool = False
    # Observation lines shared by all seats; each seat has read up to seen[seat].
    log: list[str] = field(default_factory=list)
    log_start: int = 0
    seen: list[int] = field(default_factory=list)
    # Seats that play ahead (answered AHEAD), and the answers each still has to send or
    # has sent ahead: a seat that owes answers gets no message.
    ahead: set[int] = field(default_factory=set)
    owed: list[int] = field(default_factory=list)
    race: int = 0
    # The current game's fixed strings, made once per game: the ids part of its lines, each
    # seat's P line, and its observation and replay line starts by (a shape, b shape, winner).
    head: str = ""
    seat_requests: tuple[tuple[int, str], ...] = ()  # (seat, its P line) for a, then b
    observations: dict[tuple[int, int, int], tuple[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.order = list(range(self.seats))
        self.games_won = [0] * self.seats
        self.round_wins = [0] * self.seats
        self.seen = [0] * self.seats
        self.owed = [0] * self.seats
        self.race = self.race_to  # (read every round: a plain attribute)
        self.rng.shuffle(self.order)
        self._new_pairs()
        self._next_game()

    @property
    def race_to(self) -> int:
        assert isinstance(self.options, RoshamboloOptions)
        return self.options.race_to

    @property
    def rounds(self) -> int:
        assert isinstance(self.options, RoshamboloOptions)
        return self.options.rounds

    # -- the schedule -------------------------------------------------------
    def _new_pairs(self) -> None:
        order, n = self.order, len(self.order)
        self.pairs = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)]
        self.pair_index = -1

    def _next_game(self) -> None:
        """Start the next scheduled game; games with a disqualified seat are forfeits."""
        self.current = None
        self.turn_open = False
        while len(self.live_seats()) >= 2:
            self.pair_index += 1
            if self.pair_index == len(self.pairs):
                self.tourney_round += 1
                if self.tourney_round == self.rounds:
                    return
                self.rng.shuffle(self.order)  # the original reshuffles the same list each round
                self._new_pairs()
                continue
            a, b = self.pairs[self.pair_index]
            self.game_id += 1
            if a in self.disqualified or b in self.disqualified:
                for seat in (a, b):
                    if seat not in self.disqualified:
                        self.games_won[seat] += 1
                continue
            self.current = (a, b)
            self.wins = [0, 0]
            self.plays = [[0] * 4, [0] * 4]
            label_a, label_b = self.seat_label(a), self.seat_label(b)
            self.head = f"{self.game_id} {label_a} {label_b}"
            self.seat_requests = (
                (a, f"P {self.game_id} {label_a} {label_b}"),
                (b, f"P {self.game_id} {label_b} {label_a}"),
            )
            self.observations = {}
            return

    def _end_game(self, winner: int | None) -> None:
        if winner is not None:
            self.games_won[winner] += 1
        self._next_game()

    # -- news -----------------------------------------------------------------
    def _news(self, seat: int) -> list[str]:
        """Observations the seat has not been told yet (marks them told)."""
        log, seen, start = self.log, self.seen, self.log_start
        lines = log[seen[seat] - start :]
        told = seen[seat] = start + len(log)
        if told - start >= TRIM_AT:  # (the oldest reader cannot be further on than this one)
            live = [s for s in self.live_seats() if s not in self.ahead]
            oldest = min((seen[s] for s in live), default=told)
            if oldest - start >= TRIM_AT:
                del log[: oldest - start]
                self.log_start = oldest
        return lines

    # -- the turn cycle ---------------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        current = self.current
        if current is None or (self.disqualified and self.is_over()):
            return ()
        return current

    def begin_turn(self) -> dict[int, list[str]]:
        if self.current is None:
            return {}
        self.turn_open = True
        owed, disqualified = self.owed, self.disqualified
        a, b = self.current
        if owed[a] and owed[b]:
            return {}  # (both answered this turn ahead: the usual turn between two such seats)
        messages: dict[int, list[str]] = {}
        for seat, request in self.seat_requests:
            if owed[seat] or seat in disqualified:
                continue  # (a seat that owes answers sent this turn's ahead: no message)
            if seat in self.ahead:
                wins = self.wins
                certain = min(self.race - (wins[0] if wins[0] > wins[1] else wins[1]), AHEAD_MAX)
                self.owed[seat] = certain
                messages[seat] = [f"N {certain}", request]
            else:
                lines = self._news(seat)  # (a fresh list: the message)
                lines.append(request)
                messages[seat] = lines
        return messages

    def parse_order(self, seat: int, lines: list[str]) -> str:
        # Any single line is a play; what it means is decided in apply(), which draws
        # from the rng for plays that name no shape (so a replay re-draws identically).
        if len(lines) == 1:  # the usual answer, without single_order's lists
            order = lines[0].strip()
            if order:
                return order
        elif len(lines) == 2 and lines[1].strip() == AHEAD and seat not in self.ahead:
            self.ahead.add(seat)  # from its next message on (the replay needs no record)
            self.seen[seat] = self.log_start + len(self.log)
            lines = lines[:1]
        return single_order(lines)

    def apply(self, orders: Mapping[int, str]) -> str:
        current = self.current
        assert current is not None
        a, b = current
        self.turn_open = False
        owed = self.owed
        if owed[a]:
            owed[a] -= 1
        if owed[b]:
            owed[b] -= 1
        order_a, order_b = orders.get(a), orders.get(b)
        wins = self.wins
        shape_a, shape_b = PLAIN_SHAPES.get(order_a), PLAIN_SHAPES.get(order_b)  # type: ignore[arg-type]
        if shape_a is None or shape_b is None:  # (not two plain shapes: see _unusual)
            if order_a is None or order_b is None:
                # The other seat was disqualified during this turn: the game is forfeit.
                winner = 0 if order_a is not None else 1
                line = (
                    f"{self.head} {_encode(order_a)} {_encode(order_b)} * * {winner} "
                    f"{wins[0]} {wins[1]} {HOW_FORFEIT}"
                )
                self._end_game(current[winner])
                return line
            # (the original's order: a's substitute, then b's, then the coin)
            shape_a = shape_a or shape_of(order_a) or self.rng.randint(1, 3)
            shape_b = shape_b or shape_of(order_b) or self.rng.randint(1, 3)
            answers = f"{_answer(order_a)} {_answer(order_b)}"
        else:
            answers = ""
        plays_a, plays_b = self.plays
        if shape_a != shape_b:
            winner, how = (0 if BEATEN_BY[shape_b] == shape_a else 1), HOW_SHAPES
        else:
            decided, how = decide(shape_a, shape_b, plays_a, plays_b)
            winner = self.rng.randint(0, 1) if decided is None else decided
        plays_a[shape_a] += 1
        plays_b[shape_b] += 1
        wins[winner] += 1
        self.round_wins[current[winner]] += 1
        # The observation line and the replay line's start, made once per game and outcome.
        key = (shape_a, shape_b, winner)
        made = self.observations.get(key)
        if made is None:
            made = self.observations[key] = (
                f"O {self.head} {shape_a} {shape_b} {winner}",
                f"{self.head} {shape_a} {shape_b} {shape_a} {shape_b} {winner} ",
            )
        observation, start = made
        self.log.append(observation)
        if answers:  # (an answer that was not a plain shape is recorded as it came)
            start = f"{self.head} {answers} {shape_a} {shape_b} {winner} "
        line = f"{start}{wins[0]} {wins[1]} {how}"
        if wins[winner] == self.race:
            self._end_game(current[winner])
        return line

    def play_queued(self, queued: Mapping[int, deque[list[str]]], turns: int) -> list[str]:
        """Rounds of this game whose two plain answers were both sent ahead (see GameState)."""
        current = self.current
        if current is None or self.disqualified:
            return []
        a, b = current
        queue_a, queue_b = queued.get(a), queued.get(b)
        if queue_a is None or queue_b is None:
            return []
        owed = self.owed
        lines: list[str] = []
        while queue_a and queue_b and owed[a] and owed[b] and len(lines) < turns:
            answer_a, answer_b = queue_a[0], queue_b[0]
            if len(answer_a) != 1 or len(answer_b) != 1:
                break
            order_a, order_b = answer_a[0], answer_b[0]
            if order_a not in PLAIN_SHAPES or order_b not in PLAIN_SHAPES:
                break
            queue_a.popleft()
            queue_b.popleft()
            self.turn_open = True  # (as begin_turn)
            lines.append(self.apply({a: order_a, b: order_b}))
            if self.current is not current:
                break  # (the game ended)
        return lines

    def disqualify(self, seat: int, code: str) -> None:
        """A disqualified seat forfeits its current game and every later game of its schedule."""
        super().disqualify(seat, code)
        if self.current is None or seat not in self.current:
            if len(self.live_seats()) < 2:
                self.current = None
            return
        a, b = self.current
        other = b if seat == a else a
        if self.turn_open and other not in self.disqualified:
            return  # apply() gets the other seat's answer and records the forfeit
        self._end_game(None if other in self.disqualified else other)

    def is_over(self) -> bool:
        return self.current is None or (bool(self.disqualified) and len(self.live_seats()) < 2)

    def result(self) -> GameResult:
        ranks = self.rank_with_disqualified(self.games_won)
        games = "-".join(str(n) for n in self.games_won)
        rounds = "-".join(str(n) for n in self.round_wins)
        return GameResult(
            scores=tuple(float(n) for n in self.games_won),
            ranks=tuple(ranks),
            summary=f"games {games}, rounds {rounds}",
        )

    def final_message(self, seat: int) -> list[str]:
        news = [] if seat in self.ahead else self._news(seat)
        return news + super().final_message(seat)

    # -- replays -------------------------------------------------------------
    def orders_from_line(self, line: str) -> dict[int, str]:
        parts = line.rstrip("\n").split(" ")
        if len(parts) != 11 or parts[10] not in HOWS:
            raise ReplayMismatch(f"not a roshambolo turn line: {line!r}")
        try:
            seat_a, seat_b = int(parts[1]) - 1, int(parts[2]) - 1
        except ValueError:
            raise ReplayMismatch(f"bad seat ids in roshambolo turn line: {line!r}") from None
        if not (0 <= seat_a < self.seats and 0 <= seat_b < self.seats):
            raise ReplayMismatch(f"seat ids out of range in roshambolo turn line: {line!r}")
        orders: dict[int, str] = {}
        for seat, answer in ((seat_a, parts[3]), (seat_b, parts[4])):
            if answer != NO_ANSWER:
                try:
                    orders[seat] = unquote(answer, errors="strict")
                except UnicodeDecodeError:
                    raise ReplayMismatch(f"bad answer encoding in turn line: {line!r}") from None
        if not orders:
            raise ReplayMismatch(f"roshambolo turn line without answers: {line!r}")
        return orders


def _answer(answer: str) -> str:
    """An answer's replay token: a plain shape is its own (see _encode)."""
    return answer if answer in PLAIN_SHAPES else _encode(answer)


def _encode(answer: str | None) -> str:
    """An answer as one space-free token: percent-encoded, ``*`` when there is none."""
    if answer is None:
        return NO_ANSWER
    if answer.isascii() and answer.isalnum():  # what quote() leaves as it is: the usual play
        return answer
    return quote(answer, safe="")
