"""Tron / light cycles, as the Google AI Challenge of early 2010 played it.

Two cycles on a walled grid move at the same time, one step north, east, south or west
each turn, and leave a wall where they were. A cycle that moves into a wall, a trail or
the other cycle crashes; the other one wins. Both crashing in the same turn (head-on into
the same cell included) is a draw. Maps are text files (games/tron/maps/); the map's text
is part of the options (``grid``), so a replay stays verifiable without the file; options
name a shipped map or carry the map's text, never a file (the CLI reads ``map-file=``).

Messages (see games/tron/README.md): the first one holds ``Y <me>``, ``M <width>
<height>`` and one ``R <row>`` line per row; every turn ``T <turn>`` and ``P <x> <y>
<other x> <other y>``; from the second turn on ``L <my last move> <other's last move>``.
The answer is ``N``, ``E``, ``S`` or ``W``. The replay line of a turn is ``<move 1>
<move 2> <x1> <y1> <x2> <y2> <state>``, the state ``-`` while both ride on, else the
winner's seat ``1`` or ``2``, or ``draw``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, model_validator

from games.base import (
    GameOptions,
    GameResult,
    GameState,
    IllegalOrder,
    ReplayMismatch,
    counted,
    single_order,
)

MAPS = Path(__file__).resolve().parent / "maps"
MOVES = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
WALL, FLOOR = "#", "."
MAX_SIDE = 200
RUNNING, DRAW = "-", "draw"
STATES = frozenset({RUNNING, DRAW, "1", "2"})


class MapError(ValueError):
    """A map text that is not a Tron map; the message says where."""


@dataclass(frozen=True)
class Board:
    width: int
    height: int
    walls: frozenset[tuple[int, int]]
    starts: tuple[tuple[int, int], tuple[int, int]]

    def rows(self) -> list[str]:
        """The map as rows of ``#`` (wall), ``.`` (floor), ``1`` and ``2`` (the cycles)."""
        rows = []
        for y in range(self.height):
            row = []
            for x in range(self.width):
                cell = (x, y)
                row.append(
                    "1"
                    if cell == self.starts[0]
                    else "2"
                    if cell == self.starts[1]
                    else WALL
                    if cell in self.walls
                    else FLOOR
                )
            rows.append("".join(row))
        return rows


def parse_map(text: str) -> Board:
    """The 2010 challenge's map format: ``<width> <height>``, then the rows: ``#`` a wall,
    a space (or ``.``) floor, ``1`` and ``2`` where the cycles start. Cells outside the
    grid count as walls."""
    lines = text.replace("\r\n", "\n").rstrip("\n").split("\n")
    try:
        width, height = (int(n) for n in lines[0].split())
    except ValueError:
        raise MapError("the first line must be '<width> <height>'") from None
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise MapError(f"width and height must be 1..{MAX_SIDE}, got {width} x {height}")
    rows = lines[1 : height + 1]
    if len(rows) < height or any(line.strip() for line in lines[height + 1 :]):
        raise MapError(f"the map must have exactly {height} rows after its size line")
    walls: set[tuple[int, int]] = set()
    starts: dict[str, tuple[int, int]] = {}
    for y, row in enumerate(rows):
        if len(row) != width:
            raise MapError(f"row {y + 1} has {len(row)} cells, {width} expected")
        for x, char in enumerate(row):
            if char == WALL:
                walls.add((x, y))
            elif char in "12":
                if char in starts:
                    raise MapError(f"two starts for cycle {char}")
                starts[char] = (x, y)
            elif char not in (" ", FLOOR):
                raise MapError(f"row {y + 1} has {char!r}; cells are '#', ' ', '.', '1', '2'")
    if set(starts) != {"1", "2"}:
        raise MapError("the map must place both cycles ('1' and '2')")
    return Board(width, height, frozenset(walls), (starts["1"], starts["2"]))


_shipped: dict[str, str] = {}


def shipped_map_texts() -> dict[str, str]:
    """The game's own maps by name (games/tron/maps/*.txt), read once."""
    if not _shipped:
        texts = {path.stem: path.read_text(encoding="utf-8") for path in MAPS.glob("*.txt")}
        _shipped.update(sorted(texts.items()))
    return _shipped


def shipped_maps() -> list[str]:
    return list(shipped_map_texts())


# The largest map's text: the size line and MAX_SIDE rows of MAX_SIDE cells (CRLF ends).
MAX_MAP_CHARS = 16 + MAX_SIDE * (MAX_SIDE + 2)
CUSTOM = "custom"


class TronOptions(GameOptions):
    # No length of its own: with ``grid`` it is a label, and replays made when it could name
    # a file keep that path; from_data bounds what a user sends.
    map: str = Field(
        "arena", description="a shipped map's name (games/tron/maps/); with `grid`, its label"
    )
    grid: str = Field(
        "",
        max_length=MAX_MAP_CHARS,
        description="the map's text (the challenge's format); when empty, the shipped `map`'s",
    )
    # ``judge match tron A B -o map-file=my.txt``: the CLI reads the file into ``grid``.
    file_options: ClassVar[Mapping[str, str]] = {"map_file": "grid"}

    @model_validator(mode="before")
    @classmethod
    def _shipped_map(cls, data: Any) -> Any:
        """A shipped map by name; the replay keeps its text, so that it verifies on its own.
        Options never name a file: a map of one's own comes as its text (``grid``)."""
        if not isinstance(data, dict):
            return data
        if data.get("grid", "") != "":
            return data if "map" in data else {**data, "map": CUSTOM}
        name = data.get("map", "arena")
        text = shipped_map_texts().get(name) if isinstance(name, str) else None
        if text is None:
            known = ", ".join(shipped_maps())
            raise ValueError(
                f"no shipped map {str(name)[:100]!r} (shipped maps: {known}); "
                "a map of your own goes in `grid` as its text"
            )
        return {**data, "grid": text}

    @model_validator(mode="after")
    def _check_map(self) -> TronOptions:
        parse_map(self.grid)  # MapError is a ValueError: pydantic reports it
        return self


@dataclass
class Tron(GameState):
    name: ClassVar[str] = "tron"
    description: ClassVar[str] = "light cycles (Google AI Challenge 2010): two bots, walled grid"
    Options: ClassVar[type[GameOptions]] = TronOptions

    board: Board | None = None
    heads: list[tuple[int, int]] = field(default_factory=list)
    taken: set[tuple[int, int]] = field(default_factory=set)  # walls and trails
    turn: int = 0
    last: tuple[str, str] | None = None
    crashed: tuple[bool, bool] = (False, False)

    @classmethod
    def turns_asked(cls, seats: int, options: GameOptions) -> int:
        """Every turn fills two cells, so a map of N cells is over within N/2 + 1 turns."""
        assert isinstance(options, TronOptions)
        board = parse_map(options.grid)
        return board.width * board.height // 2 + 1

    def __post_init__(self) -> None:
        assert isinstance(self.options, TronOptions)
        self.board = parse_map(self.options.grid)
        self.heads = list(self.board.starts)
        self.taken = set(self.board.walls) | set(self.heads)

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over() else (0, 1)

    def begin_turn(self) -> dict[int, list[str]]:
        assert self.board is not None
        (x1, y1), (x2, y2) = self.heads
        messages: dict[int, list[str]] = {}
        for seat in (0, 1):
            lines = []
            if self.turn == 0:
                lines += [f"Y {seat + 1}", f"M {self.board.width} {self.board.height}"]
                lines += [f"R {row}" for row in self.board.rows()]
            lines.append(f"T {self.turn + 1}")
            mine, theirs = ((x1, y1), (x2, y2)) if seat == 0 else ((x2, y2), (x1, y1))
            lines.append(f"P {mine[0]} {mine[1]} {theirs[0]} {theirs[1]}")
            if self.last is not None:
                a, b = self.last if seat == 0 else self.last[::-1]
                lines.append(f"L {a} {b}")
            messages[seat] = lines
        return messages

    def parse_order(self, seat: int, lines: list[str]) -> str:
        order = single_order(lines)
        if order not in MOVES:
            raise IllegalOrder(f"sent {order[:40]!r}, which is not one of N, E, S, W")
        return order

    def crashes(
        self, moves: tuple[str, str]
    ) -> tuple[tuple[int, int], tuple[int, int], bool, bool]:
        """Both new heads and whether each crashes (all moves at once, as in the original)."""
        assert self.board is not None
        heads = []
        for (x, y), move in zip(self.heads, moves, strict=True):
            dx, dy = MOVES[move]
            heads.append((x + dx, y + dy))
        outside = [not (0 <= x < self.board.width and 0 <= y < self.board.height) for x, y in heads]
        head_on = heads[0] == heads[1]
        crash = [outside[s] or heads[s] in self.taken or head_on for s in (0, 1)]
        return heads[0], heads[1], crash[0], crash[1]

    def apply(self, orders: Mapping[int, str]) -> str:
        moves = (orders[0], orders[1])
        one, two, crash_1, crash_2 = self.crashes(moves)
        self.heads = [one, two]
        self.taken.update((one, two))
        self.crashed = (crash_1, crash_2)
        self.turn += 1
        self.last = moves
        state = DRAW if crash_1 and crash_2 else "2" if crash_1 else "1" if crash_2 else RUNNING
        return f"{moves[0]} {moves[1]} {one[0]} {one[1]} {two[0]} {two[1]} {state}"

    def is_over(self) -> bool:
        return any(self.crashed) or bool(self.disqualified)

    def result(self) -> GameResult:
        alive = [0.0 if self.crashed[s] or s in self.disqualified else 1.0 for s in (0, 1)]
        if alive == [1.0, 1.0]:
            alive = [0.0, 0.0]  # not over: nobody has won yet
        result = self.scored_result(alive)
        outcome = (
            "draw" if alive[0] == alive[1] else f"{self.seat_label(alive.index(1.0))} survives"
        )
        return GameResult(
            scores=result.scores,
            ranks=result.ranks,
            summary=f"{outcome} after {counted(self.turn, 'turn')}",
        )

    def final_message(self, seat: int) -> list[str]:
        lines = []
        if self.last is not None:
            a, b = self.last if seat == 0 else self.last[::-1]
            lines.append(f"L {a} {b}")
        return lines + super().final_message(seat)

    def orders_from_line(self, line: str) -> dict[int, str]:
        parts = line.split(" ")
        if (
            len(parts) != 7
            or parts[0] not in MOVES
            or parts[1] not in MOVES
            or parts[6] not in STATES
        ):
            raise ReplayMismatch(f"not a tron turn line: {line!r}")
        return {0: parts[0], 1: parts[1]}
