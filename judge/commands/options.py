"""The options the commands that run bots share, each written once with one help text, and
the flags the games and tourney formats declare (``GameOptions.flags``,
``TourneyFormat.Settings``): a new game or format gets its flags from its own folder."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from judge.commands.cluster_options import cluster_options
from judge.sandbox.base import LAYERS

Decorator = Callable[[Any], Any]


def stack(*decorators: Decorator) -> Decorator:
    """One decorator applying ``decorators`` so that ``--help`` lists them in this order."""

    def apply(command: Any) -> Any:
        for decorator in reversed(decorators):
            command = decorator(command)
        return command

    return apply


SEED = click.option(
    "--seed",
    type=int,
    default=None,
    help="random seed (default: random); with several matches, each one's derives from it",
)
EXTRA = click.option(
    "--option", "-o", "extra", multiple=True, metavar="KEY=VALUE", help="any game option"
)
REPLAY = click.option(
    "--replay",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="write the replay here (.gz/.zst compress)",
)
REPLAYS = click.option(
    "--replays",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="keep every match's replay in this directory [default: none kept]",
)
DEADLINE = click.option(
    "--deadline", type=float, default=1.0, show_default=True, help="seconds per turn"
)
STARTUP = click.option(
    "--startup",
    type=float,
    default=5.0,
    show_default=True,
    help="extra seconds on a bot's first turn (interpreter and JIT start-up)",
)
ADAPTER = click.option(
    "--adapter", default=None, help="adapter for .py bots of the original projects"
)
JSON = click.option("--json", "as_json", is_flag=True, help="print the result as one JSON object")
SANDBOX = click.option(
    "--sandbox",
    "layer",
    type=click.Choice(LAYERS),
    default=None,
    help="isolation layer (default: the strongest available; see `judge sandbox`)",
)
MIN_SANDBOX = click.option(
    "--min-sandbox",
    "min_layer",
    type=click.Choice(LAYERS),
    default=None,
    help="refuse to run below this isolation layer",
)
ALLOW_PATH = click.option(
    "--allow-path",
    "allowed",
    multiple=True,
    metavar="DIR",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="show this directory (read-only) to the bots, whose commands may then name "
    "files in it; a bot sees only its own directory and the system's otherwise",
)
BOT_PYTHON = click.option(
    "--bot-python",
    "python",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    metavar="PATH",
    help="run .py bots (and their adapters) on this Python, e.g. a virtual environment's "
    "bin/python with the Kaggle image's packages; its prefix is shown to them read-only, "
    "the sandbox is the same",
)
CONCURRENCY = click.option(
    "--concurrency",
    "-j",
    type=click.IntRange(1, 256),
    default=None,
    help="matches at once [default: number of CPUs]",
)
EXECUTOR = click.option(
    "--executor",
    "executor_name",
    default="inproc",
    show_default=True,
    metavar="inproc|local|tls://HOST:PORT|dask-local",
    help="where matches run: this process, a judge process per core, the workers "
    "of a Dask scheduler, or a Dask LocalCluster started for the run",
)

# How bots run: the turn's deadline, the sandbox, what they may see, their Python.
BOT_RUN = stack(DEADLINE, STARTUP, ADAPTER, JSON, SANDBOX, MIN_SANDBOX, ALLOW_PATH, BOT_PYTHON)
# Where many matches run: how many at once, on which executor (and its cluster's TLS).
MANY_MATCHES = stack(REPLAYS, CONCURRENCY, EXECUTOR, cluster_options)


def flag_of(name: str) -> str:
    return "--" + name.replace("_", "-")


OPTION_FLAG = "game_option_"
SETTING_FLAG = "format_setting_"


class GameCommand(click.Command):
    """A command on GAME: besides its own options, a flag for each game option its game
    declares one for (``GameOptions.flags``), just before ``-o``; with
    ``format_settings``, one for each setting of its tourney format (its ``Settings``)
    just after. The callback gets them as ``flags`` and ``settings`` {name: value}.

    Only the named game is imported (a match builds its own game's models only); without
    one (``--help``), every game's flags are listed."""

    format_settings = False

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        from games import UnknownGame, all_plugins, get_plugin

        game = game_in(args)
        try:
            plugins = {game: get_plugin(game)} if game else all_plugins()
        except UnknownGame:  # a folder named unlike its game: the command names it unknown
            game, plugins = None, all_plugins()
        own = [p for p in self.params if not (p.name or "").startswith((OPTION_FLAG, SETTING_FLAG))]
        at = next(i for i, p in enumerate(own) if p.name == "extra")
        settings = setting_flags(plugins) if self.format_settings else []
        self.params = [*own[:at], *option_flags(plugins), own[at], *settings, *own[at + 1 :]]
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            if game is None or exc.option_name not in other_flags(self.format_settings):
                raise
            where = f"a {game} tourney" if exc.option_name in setting_names() else game
            raise click.UsageError(f"{exc.option_name} does not apply to {where}", ctx) from None

    def invoke(self, ctx: click.Context) -> Any:
        given = {k: v for k, v in ctx.params.items() if k.startswith((OPTION_FLAG, SETTING_FLAG))}
        for key in given:
            del ctx.params[key]
        ctx.params["flags"] = values(given, OPTION_FLAG)
        if self.format_settings:
            ctx.params["settings"] = values(given, SETTING_FLAG)
        return super().invoke(ctx)


class TourneyCommand(GameCommand):
    format_settings = True


def values(given: dict[str, Any], prefix: str) -> dict[str, Any]:
    return {k[len(prefix) :]: v for k, v in given.items() if k.startswith(prefix) and v is not None}


def game_in(args: list[str]) -> str | None:
    """GAME, found without importing a game: the first argument naming a game's folder."""
    import games

    for arg in args:
        named = arg.isidentifier() and not arg.startswith("_")
        if named and any((Path(f) / arg / "game.py").is_file() for f in games.__path__):
            return arg
    return None


def option_flags(plugins: dict[str, Any]) -> list[click.Option]:
    declared = [
        (name, field, plugin.rules.Options.model_fields[field])
        for name, plugin in plugins.items()
        for field in plugin.rules.Options.flags
    ]
    # No defaults shown: `judge play` starts from its own (a short match).
    return flag_options(OPTION_FLAG, declared, defaults=False)


def setting_flags(plugins: dict[str, Any]) -> list[click.Option]:
    declared = [
        (name, field, info)
        for name, plugin in plugins.items()
        for field, info in plugin.format.Settings.model_fields.items()
    ]
    return flag_options(SETTING_FLAG, declared, defaults=True)


def setting_names() -> set[str]:
    from games import all_plugins

    return {option.opts[0] for option in setting_flags(all_plugins())}


def other_flags(format_settings: bool) -> set[str]:
    """Every game's flags (only when one is refused: it imports every game)."""
    from games import all_plugins

    flags = {option.opts[0] for option in option_flags(all_plugins())}
    return flags | setting_names() if format_settings else flags


def flag_options(
    prefix: str, declared: Iterable[tuple[str, str, Any]], *, defaults: bool
) -> list[click.Option]:
    """One option per declared ``(owner, name, pydantic field)``, sorted; a name several
    owners declare is one flag whose help names each."""
    helps: dict[str, list[str]] = {}
    types: dict[str, Any] = {}
    for owner, name, info in declared:
        text = info.description or name.replace("_", " ")
        if defaults and not info.is_required():
            text += f" [default: {info.default}]"
        helps.setdefault(name, []).append(f"{owner}: {text}")
        types.setdefault(name, info.annotation if info.annotation in (int, float) else str)
    return [
        click.Option([flag_of(name), prefix + name], type=types[name], help="; ".join(helps[name]))
        for name in sorted(helps)
    ]
