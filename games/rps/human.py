"""A person plays rps in the terminal (``judge play rps``), as the original's human mode."""

from __future__ import annotations

from bots import botlib
from bots.terminal import Terminal, end_line, fields

RPS_NAMES = {"R": "rock", "P": "paper", "S": "scissors"}
RPS_BEATS = {"R": "S", "P": "R", "S": "P"}


def play(term: Terminal) -> None:
    score = [0, 0]
    turn = 0
    while (message := botlib.read_message()) is not None:
        for last in fields(message, "L"):
            mine, theirs = last.split()
            if RPS_BEATS[mine] == theirs:
                score[0] += 1
                verdict = "you win the round"
            elif RPS_BEATS[theirs] == mine:
                score[1] += 1
                verdict = "you lose the round"
            else:
                verdict = "a tie"
            term.say(
                f"You played {RPS_NAMES[mine]}, the enemy played {RPS_NAMES[theirs]}: {verdict}."
            )
            term.say(f"The score is {score[0]} to {score[1]}.")
        if (end := end_line(message)) is not None:
            term.say(f"Match over: you are ranked {end[0]} (scores {' '.join(end[1:])}).")
            return
        turn += 1
        me = fields(message, "Y")[0]
        enemy = fields(message, "E")[0]
        if turn == 1:
            term.say(f"You are player {me}, your enemy is player {enemy}.")
        term.say(f"-- turn {turn}")
        order = term.ask(
            "Your move? (R for rock, P for paper, S for scissors) ",
            parse_rps,
            "Please type R, P or S (or rock, paper, scissors).",
        )
        botlib.answer(order)


def parse_rps(text: str) -> str | None:
    text = text.lower()
    for order, name in RPS_NAMES.items():
        if text in (order.lower(), name):
            return order
    return None
