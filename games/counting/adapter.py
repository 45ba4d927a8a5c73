"""Runs a jthistle/KOTH-counting bot file as a judge bot: ``counting.py BOTFILE``.

``strategy(last_results)`` gets the same live list every round, with one
``(value reached, won)`` tuple appended after each round, as the original's
controller does (a bot that mutates it corrupts its own history there too).
The legacy form (the file also defines ``turn``): ``strategy`` returns a tuple
of arguments and the choice is the first j in 1..99 with ``turn(j, *args) ==
False``, else 100. The choice goes through ``int()`` (floats are truncated).
An exception in the bot ends this process (the original aborts its arena); a
value ``int()`` rejects or outside 1..100 is sent so the judge disqualifies it.

In an arena match this one process plays all its bot's games at once (every
opponent, every run): each game gets its own list and its own instance of the
bot's module, so module state lasts one game, exactly as in a two-seat match.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import CodeType, ModuleType
from typing import Any

from hosting import Host, load_bot

MAX_TEXT = 40
# Every (value reached, won) there can be, made once: histories share these tuples, so an
# arena's hundreds of histories stay small enough for the CPU cache.
RESULTS = {f"{value} {won:d}": (value, won) for value in range(1, 101) for won in (False, True)}


def legacy_choice(turn: Any, args: Any) -> Any:
    for value in range(1, 100):
        if turn(value, *args) == False:  # noqa: E712 - the original compares with == False
            return value
    return 100


CANONICAL = {value: str(value) for value in range(1, 101)}  # what int() makes of most choices


def as_order(choice: Any) -> str:
    canonical = CANONICAL.get(choice)  # 31, 31.0 and True hash alike, as int() treats them
    if canonical is not None and not isinstance(choice, str):
        return canonical
    try:
        value = int(choice)
    except ValueError:
        return f"non-numeric {str(choice)[:MAX_TEXT]!r}"
    text = str(value)
    return text if len(text) <= MAX_TEXT else f"out-of-range {text[:MAX_TEXT]}..."


def as_result(text: str) -> tuple[int, bool]:
    value, won = text.split(" ")
    return int(value), won == "1"


class Pairing:
    """One opponent's history and the module instance that plays against it."""

    __slots__ = ("results", "strategy", "turn")

    def __init__(self, module: ModuleType) -> None:
        self.results: list[tuple[int, bool]] = []
        self.strategy: Callable[[list[tuple[int, bool]]], Any] = module.strategy
        turn = getattr(module, "turn", None)
        self.turn = turn if callable(turn) else None

    def choose(self) -> str:
        choice = self.strategy(self.results)
        if self.turn is not None:
            choice = legacy_choice(self.turn, choice)
        return as_order(choice)


def instances(module: ModuleType) -> Callable[[], ModuleType]:
    """Fresh copies of an imported module, from its code compiled once."""
    spec = module.__spec__
    assert spec is not None and spec.loader is not None
    code: CodeType = spec.loader.get_code(spec.name)  # type: ignore[attr-defined]

    def fresh() -> ModuleType:
        copy = ModuleType(spec.name)
        copy.__dict__.update(__file__=module.__file__, __spec__=spec, __loader__=spec.loader)
        exec(code, copy.__dict__)  # the bot file's own code, as its import ran it
        return copy

    return fresh


def main() -> None:
    host = Host()
    module = load_bot(sys.argv[1])
    fresh = instances(module)
    spare: ModuleType | None = module  # the imported module, until a pairing takes it

    def new_pairing() -> Pairing:
        nonlocal spare
        taken, spare = spare or fresh(), None
        return Pairing(taken)

    solo: Pairing | None = None  # two seats: the one game
    pairings: dict[str, Pairing] = {}  # an arena: one per game, "<opponent> <run>"
    for message in host.messages():
        if message and message[-1].startswith("END"):
            break
        asked: list[Pairing] = []
        for line in message:
            if line.startswith("O "):
                # "O <opponent> <run>", then " <value> <won>" from the second round on
                cut = line.find(" ", line.find(" ", 2) + 1)
                game = line if cut < 0 else line[:cut]
                pairing = pairings.get(game)
                if pairing is None:
                    pairing = pairings[game] = new_pairing()
                if cut > 0:
                    result = line[cut + 1 :]
                    pairing.results.append(RESULTS.get(result) or as_result(result))
                asked.append(pairing)
            elif line.startswith("L "):
                solo = solo or new_pairing()
                solo.results.append(RESULTS.get(line[2:]) or as_result(line[2:]))
        if asked:
            host.answer(",".join([pairing.choose() for pairing in asked]))
        else:
            solo = solo or new_pairing()
            host.answer(solo.choose())


if __name__ == "__main__":
    main()
