"""Built-in Tron bots. Each keeps the grid from the first message (``M``, ``R`` lines) and
marks both cycles' positions (``P`` lines) as walls every turn."""

from __future__ import annotations

import random
from collections.abc import Callable

from bots import botlib

MOVES = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
Cell = tuple[int, int]
Strategy = Callable[["Grid", random.Random], str]


class Grid:
    """What a bot knows: the blocked cells, its position and the other cycle's."""

    def __init__(self) -> None:
        self.width = self.height = 0
        self.blocked: set[Cell] = set()
        self.me: Cell = (0, 0)
        self.other: Cell = (0, 0)
        self.heading = "N"

    def read(self, message: list[str]) -> None:
        rows: list[str] = []
        for line in message:
            key, _, rest = line.partition(" ")
            if key == "M":
                self.width, self.height = (int(n) for n in rest.split())
            elif key == "R":
                rows.append(rest)
            elif key == "P":
                x, y, ox, oy = (int(n) for n in rest.split())
                self.me, self.other = (x, y), (ox, oy)
                self.blocked.update((self.me, self.other))
        for y, row in enumerate(rows):
            self.blocked.update((x, y) for x, char in enumerate(row) if char != ".")

    def free(self, cell: Cell) -> bool:
        x, y = cell
        return 0 <= x < self.width and 0 <= y < self.height and cell not in self.blocked

    def step(self, cell: Cell, move: str) -> Cell:
        dx, dy = MOVES[move]
        return cell[0] + dx, cell[1] + dy

    def safe_moves(self) -> list[str]:
        return [m for m in MOVES if self.free(self.step(self.me, m))]

    def room(self, start: Cell, limit: int = 400) -> int:
        """Free cells reachable from ``start`` (counted up to ``limit``)."""
        if not self.free(start):
            return 0
        seen, frontier = {start}, [start]
        while frontier and len(seen) < limit:
            cell = frontier.pop()
            for move in MOVES:
                nxt = self.step(cell, move)
                if nxt not in seen and self.free(nxt):
                    seen.add(nxt)
                    frontier.append(nxt)
        return len(seen)


def straight(grid: Grid, rng: random.Random) -> str:
    if grid.free(grid.step(grid.me, grid.heading)):
        return grid.heading
    safe = grid.safe_moves()
    return safe[0] if safe else grid.heading


def random_move(grid: Grid, rng: random.Random) -> str:
    safe = grid.safe_moves()
    return rng.choice(safe) if safe else grid.heading


def flood(grid: Grid, rng: random.Random) -> str:
    """The safe move with the most room behind it; ties keep the heading, then the first."""
    safe = grid.safe_moves()
    if not safe:
        return grid.heading
    other_next = {grid.step(grid.other, m) for m in MOVES}

    def score(move: str) -> tuple[int, int, bool]:
        cell = grid.step(grid.me, move)
        return (grid.room(cell), cell not in other_next, move == grid.heading)

    return max(safe, key=score)


def run(strategy: Strategy) -> None:
    grid = Grid()
    rng = botlib.rng()
    for message in botlib.messages():
        grid.read(message)
        grid.heading = strategy(grid, rng)
        botlib.answer(grid.heading)


def bot(strategy: Strategy, doc: str) -> Callable[[], None]:
    def play() -> None:
        run(strategy)

    play.__doc__ = doc
    return play


# What the fork server plays each built-in through before it forks any (bots/forkserver.py,
# "_rehearse"): the first messages of a real match as one seat got them, and its last.
REHEARSAL = """\
Y 2
M 15 15
R ###############
R #.............#
R #.............#
R #.............#
R #...1.........#
R #.............#
R #.............#
R #.............#
R #.............#
R #.............#
R #.........2...#
R #.............#
R #.............#
R #.............#
R ###############
T 1
P 10 10 4 4
.
T 2
P 9 10 4 3
L W N
.
T 3
P 9 11 4 2
L S N
.
L N W
END 1 0 1
.
"""

BOTS = {
    "straight": bot(straight, "rides straight on; turns to the first free side when blocked"),
    "random": bot(random_move, "a random move that does not crash at once, from the judge's seed"),
    "flood": bot(flood, "the free move with the most room behind it (flood fill)"),
}
