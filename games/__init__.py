"""Game registry: every folder ``games/<name>/`` whose ``rules`` module defines ``GAME``.

Cheap to import on purpose: bot processes (started with ``python -S``) import
``games.<name>.bots`` and must not pay for pydantic; rules are imported on demand.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from games.base import GameState

__all__ = ["UnknownGame", "all_games", "get_game"]


class UnknownGame(LookupError):
    pass


@cache
def all_games() -> dict[str, type[GameState]]:
    games: dict[str, type[GameState]] = {}
    for module_info in pkgutil.iter_modules(__path__):
        if not module_info.ispkg or module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}.rules")
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
