"""Real matches between built-in bots that the replay tests record and then check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from games import get_game
from judge.bots import builtin_bots
from judge.models import BotSpec, MatchResult, MatchSpec
from judge.runner import run_match
from tests.conftest import builtin

# Short matches with bots whose play varies; a game not listed gets its defaults and its
# first built-ins, so a new game is round-tripped without editing this file.
OPTIONS: dict[str, dict[str, Any]] = {
    "rps": {"turns": 60},
    "roshambolo": {"race_to": 4},
    "counting": {"rounds": 40},
}
BOTS: dict[str, list[str]] = {
    "rps": ["random", "predictor"],
    "roshambolo": ["random", "counter", "rock"],
    "liarsdice": ["computer", "robot", "computer"],
    "counting": ["random", "primitive_looker"],
}


def bots_for(game: str) -> list[BotSpec]:
    cls = get_game(game)
    names = BOTS.get(game) or list(builtin_bots(game)) or []
    if not names:
        raise LookupError(f"{game} has no built-in bots to play a test match with")
    seats = min(max(len(names), cls.min_seats), cls.max_seats)
    return [builtin(game, names[i % len(names)]) for i in range(seats)]


def match_spec(
    game: str,
    *,
    seed: int = 11,
    bots: list[BotSpec] | None = None,
    options: dict[str, Any] | None = None,
) -> MatchSpec:
    return MatchSpec(
        game=game,
        bots=bots or bots_for(game),
        seed=seed,
        options=OPTIONS.get(game, {}) if options is None else options,
    )


async def record(path: Path, game: str = "rps", **kw: Any) -> MatchResult:
    return await run_match(match_spec(game, **kw), replay_path=path)


def record_sync(path: Path, game: str = "rps", **kw: Any) -> MatchResult:
    """For session fixtures and sync tests (never inside a trio test)."""
    return trio.run(lambda: record(path, game, **kw))
