"""Game registry: every module in this package that defines ``GAME`` is a game."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from judge.games.base import GameOptions, GameResult, GameState, IllegalOrder, ReplayMismatch

__all__ = [
    "GameOptions",
    "GameResult",
    "GameState",
    "IllegalOrder",
    "ReplayMismatch",
    "UnknownGame",
    "all_games",
    "get_game",
]


class UnknownGame(LookupError):
    pass


@cache
def all_games() -> dict[str, type[GameState]]:
    games: dict[str, type[GameState]] = {}
    for module_info in pkgutil.iter_modules(__path__):
        if module_info.name.startswith("_") or module_info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        game = getattr(module, "GAME", None)
        if game is not None:
            games[game.name] = game
    return dict(sorted(games.items()))


def get_game(name: str) -> type[GameState]:
    try:
        return all_games()[name]
    except KeyError:
        known = ", ".join(all_games())
        raise UnknownGame(f"unknown game {name!r} (known games: {known})") from None
