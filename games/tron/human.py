"""A person rides a light cycle in the terminal (``judge play tron``): the board is drawn
every turn (``#`` walls, ``1``/``2`` trails, ``@`` you, ``X`` the other cycle)."""

from __future__ import annotations

from bots import botlib
from bots.terminal import Terminal, end_line, fields

WORDS = {
    "n": "N",
    "north": "N",
    "up": "N",
    "e": "E",
    "east": "E",
    "right": "E",
    "s": "S",
    "south": "S",
    "down": "S",
    "w": "W",
    "west": "W",
    "left": "W",
}


def parse_move(text: str) -> str | None:
    return WORDS.get(text.strip().lower())


def play(term: Terminal) -> None:
    rows: list[list[str]] = []
    me = ""
    while (message := botlib.read_message()) is not None:
        if fields(message, "Y"):
            me = fields(message, "Y")[0]
            rows = [list(row) for row in fields(message, "R")]
            term.say(f"You ride cycle {me} (@ on the board); the other cycle is X.")
        for last in fields(message, "L"):
            mine, theirs = last.split()
            term.say(f"You went {mine}, the other cycle went {theirs}.")
        if (end := end_line(message)) is not None:
            outcome = (
                "a draw"
                if end[1] == end[2]
                else ("you survive: you win!" if end[0] == "1" else "you crashed: you lose")
            )
            term.say(f"Match over: {outcome}")
            return
        x, y, ox, oy = (int(n) for n in fields(message, "P")[0].split())
        other = "2" if me == "1" else "1"
        for row in rows:
            for i, cell in enumerate(row):
                if cell in "@X":
                    row[i] = me if cell == "@" else other
        if rows:
            rows[y][x], rows[oy][ox] = "@", "X"
        term.say(f"-- turn {fields(message, 'T')[0]}")
        for row in rows:
            term.say("".join(row).replace(".", " "))
        move = term.ask(
            "Your move? (N, E, S or W; up, right, down, left) ",
            parse_move,
            "Please type N, E, S or W (or north, east, south, west).",
        )
        botlib.answer(move)
