"""Classic rock-paper-scissors, exactly as seed 004 defines it (rpscontest style).

Each turn both seats get ``Y <own id>`` and ``E <enemy id>``; from the second
turn on a third line ``L <own last order> <enemy last order>`` lets bots learn.
The answer is exactly one of ``R``, ``P``, ``S``. A won round scores 1; after
the last turn the larger score wins and equal scores are a draw. Replay turn
lines are the seed's ``<p1 score> <p2 score> <p1 order> <p2 order>``.
"""

from __future__ import annotations

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

BEATS = {"R": "S", "P": "R", "S": "P"}  # key beats value
ORDERS = frozenset(BEATS)


class RpsOptions(GameOptions):
    turns: int = Field(1000, ge=1, le=10_000_000, description="turns in the match")


@dataclass
class Rps(GameState):
    name: ClassVar[str] = "rps"
    description: ClassVar[str] = "rock-paper-scissors, rpscontest style (seed 004)"
    Options: ClassVar[type[GameOptions]] = RpsOptions

    turn: int = 0
    scores: list[int] = field(default_factory=lambda: [0, 0])
    last: tuple[str, str] | None = None

    @property
    def turns(self) -> int:
        assert isinstance(self.options, RpsOptions)
        return self.options.turns

    @classmethod
    def turns_asked(cls, seats: int, options: GameOptions) -> int:
        assert isinstance(options, RpsOptions)
        return options.turns

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over() else (0, 1)

    def begin_turn(self) -> dict[int, list[str]]:
        if self.last is None:
            return {0: ["Y 1", "E 2"], 1: ["Y 2", "E 1"]}
        a, b = self.last
        return {0: ["Y 1", "E 2", f"L {a} {b}"], 1: ["Y 2", "E 1", f"L {b} {a}"]}

    def parse_order(self, seat: int, lines: list[str]) -> str:
        order = single_order(lines)
        if order not in ORDERS:
            raise IllegalOrder(f"sent {order[:40]!r}, which is not one of R, P, S")
        return order

    def apply(self, orders: Mapping[int, str]) -> str:
        a, b = orders[0], orders[1]
        if BEATS[a] == b:
            self.scores[0] += 1
        elif BEATS[b] == a:
            self.scores[1] += 1
        self.turn += 1
        self.last = (a, b)
        return f"{self.scores[0]} {self.scores[1]} {a} {b}"

    def is_over(self) -> bool:
        return self.turn >= self.turns or bool(self.disqualified)

    def result(self) -> GameResult:
        return self.scored_result(self.scores)

    def final_message(self, seat: int) -> list[str]:
        lines = []
        if self.last is not None:
            a, b = self.last if seat == 0 else self.last[::-1]
            lines.append(f"L {a} {b}")
        return lines + super().final_message(seat)

    def orders_from_line(self, line: str) -> dict[int, str]:
        parts = line.split(" ")
        if len(parts) != 4 or parts[2] not in ORDERS or parts[3] not in ORDERS:
            raise ReplayMismatch(f"not an rps turn line: {line!r}")
        return {0: parts[2], 1: parts[3]}
