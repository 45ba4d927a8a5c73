"""Built-in cooperative counting bots, from the strategies in rules.md §3.4.

Each keeps its own ``last_results`` list of ``(value reached, won)`` per opponent,
built from the ``L <value> <won 1|0>`` line (two seats) or the ``O <opponent> <run>
<value> <won>`` lines (an arena) the judge sends after every round.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bots import botlib

Results = list[tuple[int, bool]]
Strategy = Callable[[Results], int]


def run(strategy: Strategy) -> None:
    """Play two seats (``L`` lines) or an arena (an ``O <opponent> <run>`` line per game,
    answered with one choice each, in order)."""
    solo: Results = []
    arena: dict[tuple[str, str], Results] = {}
    for message in botlib.messages():
        asked: list[Results] = []
        for line in message:
            key, *values = line.split()
            if key == "L":
                solo.append((int(values[0]), values[1] == "1"))
            elif key == "O":
                results = arena.setdefault((values[0], values[1]), [])
                if len(values) == 4:
                    results.append((int(values[2]), values[3] == "1"))
                asked.append(results)
        if asked:
            botlib.answer(",".join(str(strategy(results)) for results in asked))
        else:
            botlib.answer(str(strategy(solo)))


def naive(results: Results) -> int:
    if not results:
        return 100
    value, won = results[-1]
    return value if won else max(1, value - 1)


def tit_for_tat(results: Results) -> int:
    return results[-1][0] if results else 100


def grim_trigger(results: Results) -> int:
    return 1 if any(not won for _, won in results) else 100


def primitive_looker(results: Results) -> int:
    if not results:
        return 100
    if all(won for _, won in results):
        return 99
    lowered = results[-1][0] - 2
    return lowered if lowered > 0 else 100


def constant(value: int) -> Strategy:
    return lambda results: value


def random_strategy() -> Strategy:
    rng: random.Random = botlib.rng()
    return lambda results: min(rng.randint(1, 125), 100)


def bot(make: Callable[[], Strategy], doc: str) -> Callable[[], None]:
    def play() -> None:
        run(make())

    play.__doc__ = doc
    return play


# What the fork server plays each built-in through before it forks any (bots/forkserver.py,
# "_rehearse"): the first messages of a real match as one seat got them, and its last.
REHEARSAL = """\
R 1
.
R 2
L 66 0
.
R 3
L 65 1
.
R 4
L 49 0
.
R 5
L 48 1
.
L 1 1
END 1 2796 366
.
"""

BOTS = {
    "naive": bot(lambda: naive, "100 first; the last value if it won, else one below it"),
    "random": bot(random_strategy, "min(randint(1, 125), 100), from the judge's seed"),
    "crab": bot(lambda: constant(1), "always 1"),
    "shortcut": bot(lambda: constant(50), "always 50"),
    "zoidberg": bot(lambda: constant(48), "always 48"),
    "dedicated": bot(lambda: constant(100), "the dedicated counter: always 100"),
    "tit_for_tat": bot(lambda: tit_for_tat, "100 first, then the last value reached"),
    "grim_trigger": bot(lambda: grim_trigger, "100 until it has ever lost a round, then 1"),
    "primitive_looker": bot(
        lambda: primitive_looker, "100 first; 99 while unbeaten; after a loss, last value - 2"
    ),
}
