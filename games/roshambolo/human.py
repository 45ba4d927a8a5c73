"""A person plays roshambolo in the terminal (``judge play roshambolo``), as the original's
human mode."""

from __future__ import annotations

from bots import botlib
from bots.terminal import Terminal, end_line, fields

SHAPES = {"1": "ROCK", "2": "PAPER", "3": "SCISSORS"}


def play(term: Terminal) -> None:
    scores: dict[str, list[int]] = {}
    me = ""
    while (message := botlib.read_message()) is not None:
        for line in fields(message, "O"):
            game, a, b, a_play, b_play, result = line.split()
            if me not in (a, b):
                continue
            wins = scores.setdefault(game, [0, 0])
            wins[int(result)] += 1
            winner = a if result == "0" else b
            term.say(
                f"Player #{a} played {SHAPES[a_play]}, player #{b} played {SHAPES[b_play]}, "
                f"player #{winner} won the point."
            )
            mine, theirs = (wins[0], wins[1]) if me == a else (wins[1], wins[0])
            term.say(f"The score is {mine} to {theirs}.")
        if (end := end_line(message)) is not None:
            term.say(f"Match over: you are ranked {end[0]} (games won {' '.join(end[1:])}).")
            return
        game, me, opponent = fields(message, "P")[0].split()
        if game not in scores:
            term.say(f"-- game {game}: you are player #{me}, your opponent is player {opponent}.")
        play = term.ask(
            "What is your play? (1 for Rock, 2 for Paper, 3 for Scissors) ",
            parse_shape,
            "Please type 1, 2 or 3 (or rock, paper, scissors).",
        )
        term.say(f"You played {SHAPES[play]}.")
        botlib.answer(play)


def parse_shape(text: str) -> str | None:
    text = text.lower()
    for number, name in SHAPES.items():
        if text in (number, name.lower(), name[0].lower()):
            return number
    return None
