"""Item 4: the original projects' arenas, in process (as they run them) against our judge.

``counting/`` holds 20 strategies written for the bench from the descriptions of the
KOTH-counting contestants (rules.md §3.4), as ``strategy(last_results)`` modules;
``roshambolo/`` holds rock, random and counter as ``play``/``observe`` modules. The
reference runners below call them as plain Python functions in this process, the way the
originals' ``arena.py`` and ``roshambolo.py tourney`` do: no processes, no isolation.
"""

from __future__ import annotations

import contextlib
import importlib.util
import random
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

ARENAS_DIR = Path(__file__).resolve().parent
COUNTING_DIR = ARENAS_DIR / "counting"
ROSHAMBOLO_DIR = ARENAS_DIR / "roshambolo"
TOP = 100
ROCK, PAPER, SCISSORS = 1, 2, 3
BEATS = {ROCK: SCISSORS, PAPER: ROCK, SCISSORS: PAPER}  # key beats value
BEATEN_BY = {ROCK: PAPER, PAPER: SCISSORS, SCISSORS: ROCK}


def load(path: Path) -> ModuleType:
    """Import a strategy file as its own module (module state lives as long as the module)."""
    spec = importlib.util.spec_from_file_location(f"bench_strategy_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def counting_files() -> list[Path]:
    return sorted(COUNTING_DIR.glob("*.py"))


def roshambolo_files() -> list[Path]:
    return [ROSHAMBOLO_DIR / f"{name}.py" for name in ("rock", "random_player", "counter")]


# -- counting (rules.md §3.2, §3.3) ---------------------------------------------------


def counting_choice(module: ModuleType, log: list[tuple[int, bool]]) -> int:
    chosen = module.strategy(log)
    turn = getattr(module, "turn", None)
    if turn is not None:  # the legacy form: the first j that turn() rejects, else 100
        chosen = next((j for j in range(1, 100) if turn(j, *chosen) == False), 100)  # noqa: E712
    value = int(chosen)
    if not 1 <= value <= TOP:
        raise ValueError(f"{module.__name__} gives unacceptable value {value}")
    return value


def counting_round(a: int, b: int) -> tuple[tuple[int, bool], tuple[int, bool], int, int]:
    """Both logs' entries and both seats' points for choices a and b."""
    if a == b == TOP:
        return (TOP, True), (TOP, True), TOP, TOP
    if a == b:
        return (a, False), (b, False), 0, 0
    low = min(a, b)
    if a < b:
        return (low, True), (low, False), 2 * low, 0
    return (low, False), (low, True), 0, 2 * low


def counting_match(first: ModuleType, second: ModuleType, rounds: int) -> tuple[int, int]:
    log_first: list[tuple[int, bool]] = []
    log_second: list[tuple[int, bool]] = []
    points = [0, 0]
    for _ in range(rounds):
        a = counting_choice(first, log_first)
        b = counting_choice(second, log_second)
        entry_a, entry_b, gain_a, gain_b = counting_round(a, b)
        log_first.append(entry_a)
        log_second.append(entry_b)
        points[0] += gain_a
        points[1] += gain_b
    return points[0], points[1]


def counting_arena(
    modules: Sequence[ModuleType], rounds: int, runs: int
) -> tuple[list[int], list[int]]:
    """Every pair (i, j < i) once per run: total points and match wins per bot."""
    scores = [0] * len(modules)
    wins = [0] * len(modules)
    for _ in range(runs):
        for i in range(len(modules)):
            for j in range(i):
                points_i, points_j = counting_match(modules[i], modules[j], rounds)
                scores[i] += points_i
                scores[j] += points_j
                if points_i > points_j:
                    wins[i] += 1
                elif points_j > points_i:
                    wins[j] += 1
    return scores, wins


# -- roshambolo (rules.md §1.2, §1.3) -------------------------------------------------


def roshambolo_play(
    module: ModuleType, game_id: int, me: int, other: int, rng: random.Random
) -> int:
    try:
        shape = int(module.play(game_id, me, other))
    except Exception:
        shape = 0
    return shape if shape in BEATS else rng.randint(1, 3)


def roshambolo_game(
    players: Sequence[tuple[int, ModuleType]],
    a: int,
    b: int,
    race_to: int,
    game_id: int,
    rng: random.Random,
) -> int:
    """One race between positions a and b; every player observes every round. 0 if a won."""
    (id_a, bot_a), (id_b, bot_b) = players[a], players[b]
    wins = [0, 0]
    plays = [{ROCK: 0, PAPER: 0, SCISSORS: 0}, {ROCK: 0, PAPER: 0, SCISSORS: 0}]
    observers = [m.observe for _, m in players if hasattr(m, "observe")]
    while True:
        shape_a = roshambolo_play(bot_a, game_id, id_a, id_b, rng)
        shape_b = roshambolo_play(bot_b, game_id, id_b, id_a, rng)
        if shape_a == shape_b:
            lead = plays[0][shape_a] - plays[1][shape_b]
            if lead == 0:
                lead = plays[0][BEATEN_BY[shape_a]] - plays[1][BEATEN_BY[shape_b]]
            winner = rng.randint(0, 1) if lead == 0 else (0 if lead > 0 else 1)
        else:
            winner = 1 if BEATS[shape_b] == shape_a else 0
        plays[0][shape_a] += 1
        plays[1][shape_b] += 1
        wins[winner] += 1
        for observe in observers:
            with contextlib.suppress(Exception):  # the original's tourney ignores them too
                observe(game_id, id_a, id_b, shape_a, shape_b, winner)
        if wins[winner] == race_to:
            return winner


def roshambolo_tourney(
    modules: Sequence[ModuleType], rounds: int, race_to: int, rng: random.Random
) -> list[int]:
    """Games won per bot (in the order given): every pair once per shuffled round."""
    players = list(enumerate(modules, 1))
    games_won = [0] * len(modules)
    game_id = 0
    for _ in range(rounds):
        rng.shuffle(players)
        for i in range(len(players)):
            for j in range(i + 1, len(players)):
                game_id += 1
                winner = roshambolo_game(players, i, j, race_to, game_id, rng)
                games_won[players[i if winner == 0 else j][0] - 1] += 1
    return games_won
