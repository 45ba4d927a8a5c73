"""A person plays liar's dice in the terminal (``judge play liarsdice``), as the original's
human mode."""

from __future__ import annotations

from collections import Counter
from functools import partial

from bots import botlib
from bots.terminal import Terminal, end_line, fields

SINGULAR = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
PLURAL = ["", "ones", "twos", "threes", "fours", "fives", "sixes"]


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
        term.say(f'player {caller} calls "LIAR!" before any bid')
    else:
        bidder, bid = plays[-2]
        term.say(f"player {caller} calls liar on player {bidder}'s call of {verbose_bid(int(bid))}")
        term.say("hands: " + ", ".join(hands.split(",")))
        dice = Counter(d for entry in hands.split(",") for d in entry.split(":")[1])
        term.say(
            "common dice: "
            + ", ".join(verbose_bid(n * 10 + int(face)) for face, n in sorted(dice.items()))
        )
    term.say(f"player {loser} loses one die")
    term.say("-" * 50)


def play(term: Terminal) -> None:
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
            partial(parse_bid, last=last, cap=cap),
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
