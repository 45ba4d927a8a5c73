"""Game registry: every folder ``games/<name>/`` whose ``game.py`` defines ``GAME``.

Cheap to import on purpose: bot processes (started with ``python -S``) import
``games.<name>.bots`` and must not pay for pydantic; games are imported on demand.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from games.base import GameState
    from games.plugin import GamePlugin

__all__ = ["UnknownGame", "all_games", "all_plugins", "get_game", "get_plugin"]


class UnknownGame(LookupError):
    pass


@cache
def all_plugins() -> dict[str, GamePlugin]:
    plugins: dict[str, GamePlugin] = {}
    for module_info in pkgutil.iter_modules(__path__):
        if not module_info.ispkg or module_info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"{__name__}.{module_info.name}.game")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{module_info.name}.game":
                continue  # a folder without game.py is not a game
            raise
        plugin = getattr(module, "GAME", None)
        if plugin is not None:
            plugins[plugin.name] = plugin
    return dict(sorted(plugins.items()))


def get_plugin(name: str) -> GamePlugin:
    """Everything the judge asks a game (see games/plugin.py)."""
    try:
        return all_plugins()[name]
    except KeyError:
        known = ", ".join(all_plugins())
        raise UnknownGame(f"unknown game {name!r} (known games: {known})") from None


def all_games() -> dict[str, type[GameState]]:
    return {name: plugin.rules for name, plugin in all_plugins().items()}


def get_game(name: str) -> type[GameState]:
    """The game's rules (its GameState class)."""
    return get_plugin(name).rules
