"""Cooperative counting exactly as jthistle/KOTH-counting scores it (rules.md §3.2).

Both seats choose how far to count, 1..100, at the same time. The lower choice
stops first and scores twice its value; equal choices below 100 score nothing;
both at 100 score 100 each. Each round a seat is told ``R <round>`` and, from
the second round on, ``L <value reached> <won 1|0>``: the entry the original
appends to that seat's ``last_results``. The answer is one whole number 1..100;
anything else disqualifies (the original crashes its whole arena instead).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from pydantic import Field

from judge.games.base import (
    GameOptions,
    GameResult,
    GameState,
    IllegalOrder,
    ReplayMismatch,
    single_order,
)

TOP = 100
INTEGER = re.compile(r"[+-]?[0-9]{1,12}")
TURN_LINE = re.compile(r"(-?[0-9]+) (-?[0-9]+) ([0-9]+) ([0-9]+)")


class CountingOptions(GameOptions):
    rounds: int = Field(1000, ge=1, le=10_000_000, description="rounds in the match")


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


@dataclass
class Counting(GameState):
    name: ClassVar[str] = "counting"
    description: ClassVar[str] = "cooperative counting KOTH (seed 003): both pick 1..100"
    Options: ClassVar[type[GameOptions]] = CountingOptions

    round: int = 0
    scores: list[int] = field(default_factory=lambda: [0, 0])
    last: tuple[tuple[int, bool], tuple[int, bool]] | None = None
    last_told: bool = False  # whether the last round's result went out in a turn message

    @property
    def rounds(self) -> int:
        assert isinstance(self.options, CountingOptions)
        return self.options.rounds

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over() else (0, 1)

    def _last_line(self, seat: int) -> list[str]:
        if self.last is None:
            return []
        value, won = self.last[seat]
        return [f"L {value} {int(won)}"]

    def begin_turn(self) -> dict[int, list[str]]:
        self.last_told = True
        return {seat: [f"R {self.round + 1}", *self._last_line(seat)] for seat in (0, 1)}

    def parse_order(self, seat: int, lines: list[str]) -> str:
        order = single_order(lines)
        if not INTEGER.fullmatch(order) or not 1 <= int(order) <= TOP:
            raise IllegalOrder(f"sent {order[:40]!r}, which is not a whole number from 1 to {TOP}")
        return str(int(order))

    def apply(self, orders: Mapping[int, str]) -> str:
        a, b = int(orders[0]), int(orders[1])
        result_a, result_b, points_a, points_b = score_round(a, b)
        self.scores[0] += points_a
        self.scores[1] += points_b
        self.last = (result_a, result_b)
        self.last_told = False
        self.round += 1
        return f"{self.scores[0]} {self.scores[1]} {a} {b}"

    def is_over(self) -> bool:
        return self.round >= self.rounds or bool(self.disqualified)

    def result(self) -> GameResult:
        return self.scored_result(self.scores)

    def final_message(self, seat: int) -> list[str]:
        news = [] if self.last_told else self._last_line(seat)
        return news + super().final_message(seat)

    def orders_from_line(self, line: str) -> dict[int, str]:
        match = TURN_LINE.fullmatch(line.rstrip("\n"))
        if match is None:
            raise ReplayMismatch(f"not a counting turn line: {line!r}")
        return {0: match[3], 1: match[4]}


GAME = Counting
