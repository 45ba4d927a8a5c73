"""A human seat: ``python human.py GAME`` speaks the protocol on stdin/stdout like any bot and
talks to a person on the terminal named by ``JUDGE_TTY`` (``judge play`` sets it).

It shows each turn the way the original project's human mode did, asks for a move,
and asks again until the input is valid. End of input on the terminal (Ctrl-D)
leaves the match, which the judge records as this seat exiting.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable
from typing import TextIO

import botlib  # this script's directory (bots/) is first on sys.path

SHAPES = {"1": "ROCK", "2": "PAPER", "3": "SCISSORS"}
RPS_NAMES = {"R": "rock", "P": "paper", "S": "scissors"}
RPS_BEATS = {"R": "S", "P": "R", "S": "P"}
SINGULAR = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
PLURAL = ["", "ones", "twos", "threes", "fours", "fives", "sixes"]


class Terminal:
    def __init__(self, path: str) -> None:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        self.input: TextIO = os.fdopen(os.dup(fd), "r", encoding="utf-8", errors="replace")
        self.output: TextIO = os.fdopen(fd, "w", encoding="utf-8")

    def say(self, text: str = "") -> None:
        self.output.write(text + "\n")
        self.output.flush()

    def ask(self, prompt: str, parse: Callable[[str], str | None], help_text: str) -> str:
        """Ask until ``parse`` accepts the answer; EOF ends the process (the seat leaves)."""
        while True:
            self.output.write(prompt)
            self.output.flush()
            line = self.input.readline()
            if not line:
                self.say("\n(end of input: leaving the match)")
                raise SystemExit(0)
            answer = parse(line.strip())
            if answer is not None:
                return answer
            self.say(help_text)


def fields(message: list[str], key: str) -> list[str]:
    return [line[len(key) + 1 :] for line in message if line.split(" ", 1)[0] == key]


def end_line(message: list[str]) -> list[str] | None:
    for line in message:
        if line.startswith("END"):
            return line.split()[1:]
    return None


# -- rps -------------------------------------------------------------------------------------
def play_rps(term: Terminal) -> None:
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
            term.say(f"You played {RPS_NAMES[mine]}, the enemy played {RPS_NAMES[theirs]}: "
                     f"{verdict}.")
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
        order = term.ask("Your move? (R for rock, P for paper, S for scissors) ", parse_rps,
                         "Please type R, P or S (or rock, paper, scissors).")
        botlib.answer(order)


def parse_rps(text: str) -> str | None:
    text = text.lower()
    for order, name in RPS_NAMES.items():
        if text in (order.lower(), name):
            return order
    return None


# -- roshambolo --------------------------------------------------------------------------------
def play_roshambolo(term: Terminal) -> None:
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
            term.say(f"Player #{a} played {SHAPES[a_play]}, player #{b} played {SHAPES[b_play]}, "
                      f"player #{winner} won the point.")
            mine, theirs = (wins[0], wins[1]) if me == a else (wins[1], wins[0])
            term.say(f"The score is {mine} to {theirs}.")
        if (end := end_line(message)) is not None:
            term.say(f"Match over: you are ranked {end[0]} (games won {' '.join(end[1:])}).")
            return
        game, me, opponent = fields(message, "P")[0].split()
        if game not in scores:
            term.say(f"-- game {game}: you are player #{me}, your opponent is player {opponent}.")
        play = term.ask("What is your play? (1 for Rock, 2 for Paper, 3 for Scissors) ",
                        parse_shape, "Please type 1, 2 or 3 (or rock, paper, scissors).")
        term.say(f"You played {SHAPES[play]}.")
        botlib.answer(play)


def parse_shape(text: str) -> str | None:
    text = text.lower()
    for number, name in SHAPES.items():
        if text in (number, name.lower(), name[0].lower()):
            return number
    return None


# -- liar's dice ---------------------------------------------------------------------------------
def verbose_bid(bid: int) -> str:
    if bid == 0:
        return "LIAR!"
    quantity, face = divmod(bid, 10)
    count = SINGULAR[quantity] if quantity < len(SINGULAR) else str(quantity)
    faces = PLURAL[face] if 0 < face < len(PLURAL) else "???"
    return f"one {SINGULAR[face]}" if quantity == 1 else f"{count} {faces}"


def show_showdown(term: Terminal, line: str) -> None:
    hands, history, loser, code = line.split()
    plays = [entry.split(":") for entry in history.split(",")]
    caller = plays[-1][0]
    if code == "1":
        term.say(f"player {caller} calls \"LIAR!\" before any bid")
    else:
        bidder, bid = plays[-2]
        term.say(f"player {caller} calls liar on player {bidder}'s call of {verbose_bid(int(bid))}")
        term.say("hands: " + ", ".join(hands.split(",")))
        dice = Counter(d for entry in hands.split(",") for d in entry.split(":")[1])
        term.say("common dice: " + ", ".join(
            verbose_bid(n * 10 + int(face)) for face, n in sorted(dice.items())))
    term.say(f"player {loser} loses one die")
    term.say("-" * 50)


def play_liarsdice(term: Terminal) -> None:
    while (message := botlib.read_message()) is not None:
        me = fields(message, "Y")[0]
        for line in message:
            if line.startswith("S "):
                show_showdown(term, line[2:])
            elif line.startswith("D "):
                label, code = line[2:].split()
                term.say(f"player {label} is disqualified ({code}): its dice are gone, new hand")
        if (end := end_line(message)) is not None:
            term.say("You win!" if end[0] == "1" else f"Game over: you are ranked {end[0]}.")
            return
        hands = fields(message, "H")[0]
        history = (fields(message, "P") or [""])[0]
        term.say(f'You are player "{me}" | Hands: {hands} | History: {history}')
        last = 0
        for seat, bid in (entry.split(":") for entry in history.split(",") if entry):
            term.say(f'player {seat} calls "{verbose_bid(int(bid))}"')
            last = int(bid)
        cap = 5 * len(hands.split(","))  # the initial total of dice: every seat is listed
        play = term.ask(
            'Enter move (e.g., "0" to call, "23" for two threes, "106" for ten sixes) : ',
            lambda text, last=last, cap=cap: parse_bid(text, last, cap),
            f"A bid is quantity*10 + face (face 1-6, quantity 1-{cap}) and must beat "
            f"{verbose_bid(last) if last else 'nothing yet'}; 0 or 'liar' calls liar.",
        )
        term.say("*" * 50)
        botlib.answer(play)


def parse_bid(text: str, last: int, cap: int) -> str | None:
    if text.lower() in ("liar", "l", "0"):
        return "0"
    if not text.isdigit():
        return None
    quantity, face = divmod(int(text), 10)
    if not (1 <= face <= 6 and 1 <= quantity <= cap):
        return None
    last_quantity, last_face = divmod(last, 10)
    if quantity < last_quantity or (quantity == last_quantity and face <= last_face):
        return None
    return str(int(text))


# -- counting -------------------------------------------------------------------------------------
def play_counting(term: Terminal) -> None:
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
                term.say(f"{value}: you stop counting, your opponent keeps counting. "
                         f"You get {2 * value} points.")
            elif value == choice:
                term.say(f"Both players stop counting at {value}. No points.")
            else:
                points[1] += 2 * value
                term.say(f"{value}: your opponent stops counting, you keep counting. "
                         f"Your opponent gets {2 * value} points.")
            term.say(f"Current points: you {points[0]}, your opponent {points[1]}")
        if (end := end_line(message)) is not None:
            term.say(f"Ends with points: {' '.join(end[1:])}; you are ranked {end[0]}.")
            return
        number = fields(message, "R")[0]
        term.say(f"-- round {number}. Start round.")
        answer = term.ask("How far will you count? (1-100) ", parse_count,
                          "Please type a whole number from 1 to 100.")
        choice = int(answer)
        botlib.answer(answer)


def parse_count(text: str) -> str | None:
    return str(int(text)) if text.isdigit() and 1 <= int(text) <= 100 else None


GAMES = {
    "rps": play_rps,
    "roshambolo": play_roshambolo,
    "liarsdice": play_liarsdice,
    "counting": play_counting,
}


def main() -> None:
    game = sys.argv[1]
    tty = os.environ.get("JUDGE_TTY")
    if game not in GAMES or not tty:
        sys.exit(f"usage: JUDGE_TTY=/dev/pts/N {sys.argv[0]} {{{','.join(GAMES)}}}")
    GAMES[game](Terminal(tty))


if __name__ == "__main__":
    main()
