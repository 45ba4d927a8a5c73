"""What the judge asks a game. Each folder ``games/<name>/`` has a ``game.py`` with
``GAME = GamePlugin(...)``: its rules, tournament format, built-in bots, adapter for the
original project's bot files, renderers, human play, server checks and docs. Nothing
above the games names a game; it asks ``games.get_plugin(name)``.

Files a game folder may hold, found by these names:

| file        | what it is                                                              |
|-------------|-------------------------------------------------------------------------|
| rules.py    | the GameState (pure: no I/O, no clock)                                  |
| game.py     | ``GAME = GamePlugin(...)``: this module's class, tying the rest together |
| bots.py     | ``BOTS = {name: function}``: built-in bots, run as ``python -S``        |
| adapter.py  | a script that runs the original project's bot files (or other names,   |
|             | one per ``OriginalAdapter`` of ``GamePlugin.adapters``)                 |
| human.py    | ``play(terminal)``: a person's seat in ``judge play``                  |
| render.py   | the terminal renderer (a ``replays.render.Renderer``)                  |
| viewer.js   | the web viewer's renderer (``JudgeReplay.register``)                   |
| README.md   | the game's page: rules, messages, replay lines                         |
| kits/       | starter bots, one folder per language (``kits/python/``: a bot.toml     |
|             | and the source), and ``kits/README.md``: what they play (``judge new``) |
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.base import GameState
from games.tourney import RoundRobin, TourneyFormat


@dataclass(frozen=True)
class SourceFacts:
    """What a bot file defines at its top level, for recognising its style."""

    functions: set[str]  # names of its top-level functions
    assigned: set[str]  # names it assigns anywhere
    last_function_params: int | None  # parameters of its last top-level function
    reads_stdin: bool  # names stdin, input, readline or botlib: it speaks for itself


@dataclass(frozen=True)
class OriginalAdapter:
    """How the judge recognises bot files written for an original project and runs them:
    the script ``games/<game>/<script>`` takes the bot file as its argument."""

    style: str  # the ``--adapter`` name
    detect: Callable[[SourceFacts], bool]  # is a file with these facts in this style?
    script: str = "adapter.py"
    # The Python the original's entries were written in: with 2, a file of this style that
    # compiles under both runs with Python 2 meaning unless it is clearly Python 3.
    python: int = 3


@dataclass(frozen=True)
class HumanPlay:
    """``judge play``: the opponents and options when the person names none (a short match)."""

    opponents: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Timing:
    """``judge time``: the timed seat holds the reference bot, then BOT; built-ins elsewhere."""

    reference: str
    others: tuple[str, ...]
    timed_seat: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)
    matches: int = 1  # short matches are timed over several (seeds seed, seed+1, ...)
    default: bool = False  # the game ``judge time`` uses when no --game is given


@dataclass(frozen=True)
class GamePlugin:
    rules: type[GameState]
    format: TourneyFormat = field(default_factory=RoundRobin)
    # Styles of bot files written for original projects, tried in this order.
    adapters: tuple[OriginalAdapter, ...] = ()
    play: HumanPlay | None = None
    timing: Timing | None = None
    # Options that make the server's check of a new bot (a smoke match) quick.
    smoke_options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.rules.name

    @property
    def package(self) -> str:
        return self.rules.__module__.rpartition(".")[0]

    @property
    def folder(self) -> Path:
        module = importlib.import_module(self.package)
        assert module.__file__ is not None
        return Path(module.__file__).resolve().parent

    def path(self, name: str) -> Path | None:
        """A file of the game's folder (``viewer.js``, ``adapter.py``...), None if it has none."""
        path = self.folder / name
        return path if path.is_file() else None

    def kit(self, language: str) -> Path | None:
        """The starter kit's folder for ``language`` (``kits/<language>/``), None if none."""
        folder = self.folder / "kits" / language
        return folder if (folder / "bot.toml").is_file() else None

    def builtin_bots(self) -> dict[str, Callable[[], None]]:
        if self.path("bots.py") is None:
            return {}
        bots: dict[str, Callable[[], None]] = importlib.import_module(f"{self.package}.bots").BOTS
        return bots

    def renderer(self) -> type[Any] | None:
        """The terminal renderer class (render.py's ``RENDERER``), None for the generic one."""
        if self.path("render.py") is None:
            return None
        cls: type[Any] = importlib.import_module(f"{self.package}.render").RENDERER
        return cls
