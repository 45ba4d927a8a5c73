"""A person plays counting in the terminal (``judge play counting``), as the original's
human mode."""

from __future__ import annotations

from bots import botlib
from bots.terminal import Terminal, end_line, fields


def play(term: Terminal) -> None:
    points = [0, 0]
    choice = 0
    while (message := botlib.read_message()) is not None:
        for last in fields(message, "L"):
            value_text, won = last.split()
            value = int(value_text)
            if value == 100 and won == "1":
                points[0] += 100
                points[1] += 100
                term.say("Players have mutually reached 100, and are awarded 100 points each.")
            elif won == "1":
                points[0] += 2 * value
                term.say(
                    f"{value}: you stop counting, your opponent keeps counting. "
                    f"You get {2 * value} points."
                )
            elif value == choice:
                term.say(f"Both players stop counting at {value}. No points.")
            else:
                points[1] += 2 * value
                term.say(
                    f"{value}: your opponent stops counting, you keep counting. "
                    f"Your opponent gets {2 * value} points."
                )
            term.say(f"Current points: you {points[0]}, your opponent {points[1]}")
        if (end := end_line(message)) is not None:
            term.say(f"Ends with points: {' '.join(end[1:])}; you are ranked {end[0]}.")
            return
        number = fields(message, "R")[0]
        term.say(f"-- round {number}. Start round.")
        answer = term.ask(
            "How far will you count? (1-100) ",
            parse_count,
            "Please type a whole number from 1 to 100.",
        )
        choice = int(answer)
        botlib.answer(answer)


def parse_count(text: str) -> str | None:
    return str(int(text)) if text.isdigit() and 1 <= int(text) <= 100 else None
