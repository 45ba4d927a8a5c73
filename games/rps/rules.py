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
from typing import Any, ClassVar, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

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


KAGGLE_TIE_THRESHOLD = 20  # Kaggle's tieRewardThreshold: |wins - losses| under it is a draw


class RpsOptions(GameOptions):
    flags: ClassVar[tuple[str, ...]] = ("turns",)
    turns: int = Field(
        1000, ge=1, le=10_000_000, description="turns in the match (kaggle: episodeSteps)"
    )
    rules: Literal["default", "kaggle"] = Field(
        "default", description="kaggle: Kaggle's rounds, draws and overage time"
    )
    overage: float = Field(
        60, ge=0, le=3600, description="kaggle: seconds each bot may spend over the deadline"
    )

    @model_serializer(mode="wrap")
    def _kaggle_fields_only_under_kaggle(self, handler: SerializerFunctionWrapHandler) -> Any:
        # The default rules' options read as before this choice existed: {"turns": 1000}.
        data = handler(self)
        if self.rules == "default" and isinstance(data, dict):
            data.pop("rules", None)
            data.pop("overage", None)
        return data

    @model_validator(mode="after")
    def _kaggle_needs_a_round(self) -> RpsOptions:
        if self.rules == "kaggle" and self.turns < 2:
            raise ValueError("rules=kaggle plays turns - 1 rounds (episodeSteps): turns >= 2")
        return self


@dataclass
class Rps(GameState):
    name: ClassVar[str] = "rps"
    description: ClassVar[str] = "rock-paper-scissors, rpscontest style (seed 004)"
    Options: ClassVar[type[GameOptions]] = RpsOptions

    turn: int = 0
    scores: list[int] = field(default_factory=lambda: [0, 0])
    last: tuple[str, str] | None = None

    @property
    def kaggle(self) -> bool:
        assert isinstance(self.options, RpsOptions)
        return self.options.rules == "kaggle"

    @property
    def turns(self) -> int:
        """Rounds played: Kaggle's episodeSteps count the first observation as a step."""
        assert isinstance(self.options, RpsOptions)
        return self.options.turns - 1 if self.kaggle else self.options.turns

    def time_bank(self) -> float:
        assert isinstance(self.options, RpsOptions)
        return self.options.overage if self.kaggle else 0.0

    @classmethod
    def turns_asked(cls, seats: int, options: GameOptions) -> int:
        assert isinstance(options, RpsOptions)
        return options.turns

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over() else (0, 1)

    def begin_turn(self) -> dict[int, list[str]]:
        if self.last is None:
            if self.kaggle:
                assert isinstance(self.options, RpsOptions)
                told = f"K {self.options.turns} {KAGGLE_TIE_THRESHOLD} {self.options.overage:g}"
                return {0: ["Y 1", "E 2", told], 1: ["Y 2", "E 1", told]}
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
        if not self.kaggle or self.disqualified:
            return self.scored_result(self.scores)
        difference = self.scores[0] - self.scores[1]
        if abs(difference) >= KAGGLE_TIE_THRESHOLD:
            return self.scored_result(self.scores)
        summary = f"{self.scores[0]}-{self.scores[1]}, under {KAGGLE_TIE_THRESHOLD} apart"
        return GameResult(scores=tuple(self.scores), ranks=(1, 1), summary=summary)

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
