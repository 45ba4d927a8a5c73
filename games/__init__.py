"""Game registry: every folder ``games/<name>/`` whose ``game.py`` defines ``GAME``.

Cheap to import on purpose: bot processes (started with ``python -S``) import
``games.<name>.bots`` and must not pay for pydantic; games are imported on demand, and
``get_plugin(name)`` imports that one game only (a match does not build every game's models).
"""

from __future__ import annotations

import importlib

# Not from typing, nor functools below: every bot's start (``python -S``) would import them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from games.base import GameState
    from games.plugin import GamePlugin

__all__ = ["UnknownGame", "all_games", "all_plugins", "get_game", "get_plugin"]


class UnknownGame(LookupError):
    pass


def _folder_plugin(folder: str) -> GamePlugin | None:
    """The GAME of ``games/<folder>/game.py``; None for a folder without one."""
    try:
        module = importlib.import_module(f"{__name__}.{folder}.game")
    except ModuleNotFoundError as exc:
        if exc.name in (f"{__name__}.{folder}", f"{__name__}.{folder}.game"):
            return None  # a folder without game.py is not a game
        raise
    plugin: GamePlugin | None = getattr(module, "GAME", None)
    return plugin


_found: dict[str, GamePlugin] = {}  # get_plugin's, by name
_every: dict[str, GamePlugin] = {}  # all_plugins', once listed


def all_plugins() -> dict[str, GamePlugin]:
    if _every:
        return _every
    import pkgutil

    plugins: dict[str, GamePlugin] = {}
    for module_info in pkgutil.iter_modules(__path__):
        if not module_info.ispkg or module_info.name.startswith("_"):
            continue
        plugin = _folder_plugin(module_info.name)
        if plugin is not None:
            plugins[plugin.name] = plugin
    _every.update(sorted(plugins.items()))
    return _every


def get_plugin(name: str) -> GamePlugin:
    """Everything the judge asks a game (see games/plugin.py). A game lives in the folder
    of its name, so only that folder is imported; the others only to list them."""
    if name in _found:
        return _found[name]
    if name.isidentifier() and not name.startswith("_"):
        plugin = _folder_plugin(name)
        if plugin is not None and plugin.name == name:
            _found[name] = plugin
            return plugin
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
