"""Runs a colinmsaunders/roshambolo bot file as a judge bot: ``roshambolo.py BOTFILE``.

The file defines ``play(game_id, my_id, opponent_id)`` (or the 2014 entrants'
``play(my_id, opponent_id)``) and optionally ``observe(game_id, a_id, b_id, a_play,
b_play, result)`` (or the same without ``game_id``). Every ``O`` line of a
message is one ``observe`` call (in a tourney: every round of every game), in
order, before the ``P`` line's ``play`` call, as the original calls them. The
play goes through ``int()``; any exception (in ``play`` or in ``int()``) makes it
0, which the judge turns into a random shape: the original's tourney mode.

A file without ``observe`` is told nothing but its plays, so it plays ahead: its
first answer says ``AHEAD``, and for each ``N k`` message it calls ``play`` k times
and sends the k answers at once (the same calls, in the same order, as the
original makes; see games/roshambolo/README.md).
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from time import perf_counter
from typing import Any

from hosting import Host, load_bot, report

# Whatever int() gives is sent as is, unless it would not fit a protocol line;
# anything outside 1..3 becomes a random shape in the judge either way.
LARGEST_SENT = 10**18
# Plays made ahead are sent at once, or as they come once they take this long (seconds).
FLUSH_AFTER = 0.005


_arity: dict[Any, int | None] = {}


def positional_count(function: Any) -> int | None:
    """How many positional arguments ``function`` takes (None: any number, or unknown)."""
    try:
        return _arity[function]
    except (KeyError, TypeError):
        pass
    count = _count_positional(function)
    with contextlib.suppress(TypeError):  # an unhashable callable is asked every time
        _arity[function] = count
    return count


def _count_positional(function: Any) -> int | None:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return None
    return sum(1 for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def ask_play(module: Any, game_id: int, my_id: int, opponent_id: int) -> int:
    try:
        if positional_count(module.play) == 2:  # the 2014 entrants' play(my_id, opponent_id)
            return int(module.play(my_id, opponent_id))
        return int(module.play(game_id, my_id, opponent_id))
    except KeyboardInterrupt:
        raise
    except BaseException:  # the original's tourney mode catches everything here
        report(f"play({game_id}, {my_id}, {opponent_id}) failed; playing 0 (a random shape)")
        return 0


def shown(play: int) -> str:
    return str(play) if abs(play) < LARGEST_SENT else "0"


# Parsed lines kept (an observation line repeats within a game; a game has few kinds).
LINES_KEPT = 4096
ANSWERS = {1: b"1\n.\n", 2: b"2\n.\n", 3: b"3\n.\n"}
SHOWN = {1: "1", 2: "2", 3: "3"}


def observation(fields: list[str], without_game: bool) -> tuple[int, ...] | None:
    """observe's arguments from an ``O`` line's fields; None if unreadable."""
    try:
        numbers = tuple(map(int, fields))
    except ValueError:
        return None
    return numbers[1:] if without_game else numbers  # (the older observe without game_id)


def main() -> None:
    host = Host()
    module = load_bot(sys.argv[1])
    observe = getattr(module, "observe", None)
    without_game = observe is not None and positional_count(observe) == 5
    offer_ahead = observe is None
    plays = 1
    told: dict[str, tuple[int, ...] | None] = {}  # O line -> observe's arguments
    asked: dict[str, tuple[int, int, int] | None] = {}  # P line -> play's arguments
    for message in host.messages():
        for line in message:
            if line[:2] == "O ":  # (the usual line: an observation)
                if observe is None:
                    continue
                numbers = told.get(line, ())
                if numbers == ():
                    fields = line[2:].split()
                    if len(fields) != 6:
                        continue
                    if len(told) >= LINES_KEPT:
                        told.clear()
                    numbers = told[line] = observation(fields, without_game)
                if numbers is None:
                    print(f"adapter: unreadable observation {line[2:].split()!r}", file=sys.stderr)
                    continue
                try:
                    observe(*numbers)
                except KeyboardInterrupt:
                    raise
                except BaseException:
                    report(f"observe{numbers} failed; ignored")
                continue
            if plays == 1 and not offer_ahead and (request := asked.get(line)) is not None:
                # (round by round, a P line seen before: no parsing, no list, no clock)
                answer = ask_play(module, *request)
                host.answer_bytes(ANSWERS.get(answer) or f"{shown(answer)}\n.\n".encode())
                continue
            key, _, rest = line.partition(" ")
            fields = rest.split()
            if key == "N" and len(fields) == 1 and fields[0].isdigit():
                plays = max(1, int(fields[0]))
            elif key == "P" and len(fields) == 3:
                game_id, my_id, opponent_id = map(int, fields)
                if plays == 1 and not offer_ahead:
                    if len(asked) >= LINES_KEPT:
                        asked.clear()
                    asked[line] = (game_id, my_id, opponent_id)
                    host.answer(shown(ask_play(module, game_id, my_id, opponent_id)))
                    continue
                answers = []
                if offer_ahead:  # (the first play says AHEAD with it)
                    answers.append(shown(ask_play(module, game_id, my_id, opponent_id)) + "\nAHEAD")
                    offer_ahead = False
                    plays -= 1
                sent = perf_counter()
                for _ in range(plays):
                    value = ask_play(module, game_id, my_id, opponent_id)
                    answers.append(SHOWN.get(value) or shown(value))
                    if perf_counter() - sent > FLUSH_AFTER:  # a slow play keeps its deadline
                        host.answer_all(answers)
                        answers, sent = [], perf_counter()
                host.answer_all(answers)
                plays = 1


if __name__ == "__main__":
    main()
