"""Cooperative counting exactly as jthistle/KOTH-counting scores it (rules.md §3.2).

Both seats choose how far to count, 1..100, at the same time. The lower choice
stops first and scores twice its value; equal choices below 100 score nothing;
both at 100 score 100 each. Each round a seat is told ``R <round>`` and, from
the second round on, ``L <value reached> <won 1|0>``: the entry the original
appends to that seat's ``last_results``. The answer is one whole number 1..100;
anything else disqualifies (the original crashes its whole arena instead).

With three or more seats (or ``runs`` over 1) one match is the original's whole
arena: every pairing (i, j < i, seat i as player 1) plays ``rounds`` rounds in
each of ``runs`` runs, and all these games play at once, one round per turn. A
seat is told ``O <opponent> <run> [<value reached> <won>]`` per game and answers
one choice per game.
See games/counting/README.md.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from pydantic import Field

from games.base import (
    GameOptions,
    GameResult,
    GameState,
    IllegalOrder,
    ReplayMismatch,
    single_order,
)
from protocol import Limits

TOP = 100
MAX_SEATS = 256
MAX_GAMES = 100_000  # pairings x runs in one match: bounds the judge's memory and messages
INTEGER = re.compile(r"[+-]?[0-9]{1,12}")
TURN_LINE = re.compile(r"(-?[0-9]+) (-?[0-9]+) ([0-9]+) ([0-9]+)")
NOT_ASKED = "-"  # an arena replay line's order of a seat that did not move (disqualified)


class CountingOptions(GameOptions):
    flags: ClassVar[tuple[str, ...]] = ("rounds",)
    rounds: int = Field(1000, ge=1, le=10_000_000, description="rounds of every pairing")
    runs: int = Field(1, ge=1, le=1000, description="times every pairing is played (N_RUNS)")


def score_round(a: int, b: int) -> tuple[tuple[int, bool], tuple[int, bool], int, int]:
    """Both seats' ``(value reached, won)`` and points for choices ``a`` and ``b``."""
    if a == b == TOP:
        return (TOP, True), (TOP, True), TOP, TOP
    if a == b:
        return (a, False), (b, False), 0, 0
    low = min(a, b)
    if a < b:
        return (low, True), (low, False), 2 * low, 0
    return (low, False), (low, True), 0, 2 * low


VALID = {str(value): value for value in range(1, TOP + 1)}  # choices in canonical form
VALID_TEXTS = frozenset(VALID)

Outcome = tuple[str, str, int, int]  # both seats' "<value> <won>" news and points


@functools.cache
def outcomes() -> dict[str, dict[str, Outcome]]:
    """Every round's outcome by the two canonical choices, worked out once."""
    table: dict[str, dict[str, Outcome]] = {}
    for a, text_a in enumerate(VALID, 1):
        row = table[text_a] = {}
        for b, text_b in enumerate(VALID, 1):
            (value_a, won_a), (value_b, won_b), points_a, points_b = score_round(a, b)
            row[text_b] = (f"{value_a} {int(won_a)}", f"{value_b} {int(won_b)}", points_a, points_b)
    return table


def choice_of(text: str) -> int:
    """A choice as written by a bot: a whole number 1..100, else IllegalOrder."""
    if INTEGER.fullmatch(text):
        value = int(text)
        if 1 <= value <= TOP:
            return value
    raise IllegalOrder(f"sent {text[:40]!r}, which is not a whole number from 1 to {TOP}")


@dataclass
class Counting(GameState):
    """A two-seat match, or the arena: every pairing-run at once, one round per turn.

    A game is one pairing (i, j < i) in one run; game ``g`` has two news slots,
    ``2g`` (seat i's view) and ``2g + 1`` (seat j's). A seat's message lists its
    slots run by run, opponents ascending, and its answer follows that order.
    """

    name: ClassVar[str] = "counting"
    description: ClassVar[str] = (
        "cooperative counting KOTH (seed 003): both pick 1..100; 3+ seats play the whole arena"
    )
    Options: ClassVar[type[GameOptions]] = CountingOptions
    max_seats: ClassVar[int] = MAX_SEATS
    # An arena answer has a choice per opponent and run: a line each, or lines with commas.
    limits: ClassVar[Limits] = Limits(
        max_line_length=1 << 20, max_lines=1 << 16, max_message_bytes=1 << 20
    )

    round: int = 0
    scores: list[int] = field(default_factory=list)
    last_told: bool = False  # whether the last round's news went out in a turn message

    @classmethod
    def check_setup(cls, seats: int, options: GameOptions) -> None:
        super().check_setup(seats, options)
        assert isinstance(options, CountingOptions)
        games = seats * (seats - 1) // 2 * options.runs
        if games > MAX_GAMES:
            raise ValueError(
                f"{seats} bots x {options.runs} runs make {games} games in one match; "
                f"at most {MAX_GAMES} (fewer runs per match, or a tourney's -j)"
            )

    @classmethod
    def turns_asked(cls, seats: int, options: GameOptions) -> int:
        """Every round is a move in every game (pairing and run)."""
        assert isinstance(options, CountingOptions)
        return options.rounds * (seats * (seats - 1) // 2) * options.runs

    def __post_init__(self) -> None:
        assert isinstance(self.options, CountingOptions)
        self.check_setup(self.seats, self.options)
        n, runs = self.seats, self.options.runs
        self.rounds = self.options.rounds
        self.runs = runs
        self.arena = n > 2 or runs > 1
        self.scores = [0] * n
        self.live = list(range(n))
        # The arena's order: for i, for j < i, seat i is player 1.
        pairings = [(i, j) for i in range(n) for j in range(i)]
        self.pair_index = {pair: p for p, pair in enumerate(pairings)}
        self.games = [(run, i, j) for run in range(runs) for i, j in pairings]
        if self.arena:
            self.prefix = [
                f"O {self.seat_label(o)} {run + 1} " for run, i, j in self.games for o in (j, i)
            ]
            self.news = [text.rstrip() for text in self.prefix]
        else:
            self.prefix = ["L ", "L "]
            self.news = ["", ""]
        self.points = [0] * len(self.prefix)  # per slot, this game's points
        self.slots: dict[int, list[int]] = {}
        self.plays: list[tuple[int, int, int, int, int]] = []
        self.slots_for: list[int] = []  # the live seats ``slots`` and ``plays`` were made for

    def _plan(self) -> None:
        """Each live seat's slots in answer order, and where each game's choices stand."""
        live = self.live
        npairs = len(self.pair_index)
        self.slots = {seat: [] for seat in live}
        for seat in live:
            for run in range(self.runs):
                for other in live:
                    if other != seat:
                        pair = self.pair_index[(max(seat, other), min(seat, other))]
                        self.slots[seat].append(2 * (run * npairs + pair) + (seat < other))
        where = {
            seat: {slot: k for k, slot in enumerate(slots)} for seat, slots in self.slots.items()
        }
        self.plays = [
            (g, i, where[i][2 * g], j, where[j][2 * g + 1])
            for g, (_, i, j) in enumerate(self.games)
            if i in where and j in where
        ]
        self.slots_for = list(live)

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over() else tuple(self.live)

    def begin_turn(self) -> dict[int, list[str]]:
        self.last_told = True
        head = f"R {self.round + 1}"
        news = self.news
        if not self.arena:
            if self.round == 0:
                return {0: [head], 1: [head]}
            return {0: [head, news[1]], 1: [head, news[0]]}
        if self.slots_for != self.live:  # changes only when a seat is disqualified
            self._plan()
        return {seat: [head, *map(news.__getitem__, slots)] for seat, slots in self.slots.items()}

    def parse_order(self, seat: int, lines: list[str]) -> str:
        if not self.arena:
            return str(choice_of(single_order(lines)))
        texts = lines[0].split(",") if len(lines) == 1 else ",".join(lines).split(",")
        if VALID_TEXTS.issuperset(texts) and len(texts) == len(self.slots[seat]):
            return lines[0] if len(lines) == 1 else ",".join(texts)  # the usual answer
        if not VALID_TEXTS.issuperset(texts):
            texts = [text.strip() for text in texts]
            if texts == [""]:
                raise IllegalOrder("sent no order (an empty answer)", code="no_order")
            texts = [str(choice_of(text)) for text in texts]
        wanted = len(self.slots[seat])
        if len(texts) != wanted:
            raise IllegalOrder(
                f"sent {len(texts)} choices, {wanted} expected (one per opponent and run, "
                "in the order of the O lines)",
                code="multiple_orders" if len(texts) > wanted else "invalid_order",
            )
        return ",".join(texts)

    def apply(self, orders: Mapping[int, str]) -> str:
        scores, news, prefix, points = self.scores, self.news, self.prefix, self.points
        table = outcomes()
        if self.arena:
            choices: list[list[str]] = [[]] * self.seats
            for seat, order in orders.items():
                choices[seat] = order.split(",")
            plays = self.plays
            if len(orders) < len(self.slots):  # a seat was disqualified during this turn
                plays = [play for play in plays if play[1] in orders and play[3] in orders]
            for g, i, at_i, j, at_j in plays:
                news_i, news_j, points_i, points_j = table[choices[i][at_i]][choices[j][at_j]]
                slot = 2 * g
                if points_i:
                    scores[i] += points_i
                    points[slot] += points_i
                if points_j:
                    scores[j] += points_j
                    points[slot + 1] += points_j
                news[slot] = prefix[slot] + news_i
                news[slot + 1] = prefix[slot + 1] + news_j
        else:
            news_1, news_0, points_1, points_0 = table[orders[1]][orders[0]]
            scores[0] += points_0
            scores[1] += points_1
            points[0] += points_1
            points[1] += points_0
            news[0], news[1] = prefix[0] + news_1, prefix[1] + news_0
        self.last_told = False
        self.round += 1
        totals = " ".join(map(str, scores))
        return f"{totals} {' '.join(orders.get(s, NOT_ASKED) for s in range(self.seats))}"

    def disqualify(self, seat: int, code: str) -> None:
        super().disqualify(seat, code)
        self.live = [s for s in self.live if s != seat]

    def is_over(self) -> bool:
        return self.round >= self.rounds or len(self.live) < 2

    def games_won_drawn(self) -> tuple[list[int], list[int]]:
        """Per seat, games (pairing-runs) won on points or left unplayed by a disqualified
        opponent, and games drawn (equal totals). Unfinished games count only as forfeits."""
        won, drawn = [0] * self.seats, [0] * self.seats
        out = self.disqualified
        finished = self.round >= self.rounds
        points = self.points
        for g, (_, i, j) in enumerate(self.games):
            if i in out or j in out:
                if i not in out or j not in out:
                    won[j if i in out else i] += 1
            elif finished:
                first, second = points[2 * g], points[2 * g + 1]
                if first == second:
                    drawn[i] += 1
                    drawn[j] += 1
                else:
                    won[i if first > second else j] += 1
        return won, drawn

    def result(self) -> GameResult:
        scored = self.scored_result(self.scores)
        won, drawn = self.games_won_drawn()
        return GameResult(
            scores=scored.scores,
            ranks=scored.ranks,
            summary=scored.summary,
            details={
                "pairings_won": tuple(map(float, won)),
                "pairings_drawn": tuple(map(float, drawn)),
            },
        )

    def final_message(self, seat: int) -> list[str]:
        """The last round's news (unless told already), then the END line."""
        news: list[str] = []
        if not self.last_told and self.round:
            if not self.arena:
                news = [self.news[1 - seat]]
            else:
                out = self.disqualified
                games = self.games
                news = [
                    self.news[slot]
                    for slot in self.slots.get(seat, [])
                    if games[slot // 2][1] not in out and games[slot // 2][2] not in out
                ]
        return news + super().final_message(seat)

    def orders_from_line(self, line: str) -> dict[int, str]:
        tokens = line.rstrip("\n").split(" ")
        n = self.seats
        if len(tokens) != 2 * n or not all(t.lstrip("-").isdigit() for t in tokens[:n]):
            raise ReplayMismatch(f"not a counting turn line for {n} seats: {line[:80]!r}")
        return {s: order for s, order in enumerate(tokens[n:]) if order != NOT_ASKED}
