"""``judge games`` and ``judge bots``: what the registry holds."""

from __future__ import annotations

import click

from games import all_plugins
from judge.bots import builtin_bots
from judge.commands import common


@click.command("bots")
@click.argument("game", required=False)
def list_bots(game: str | None) -> None:
    """List the built-in bots (of GAME, or of every game)."""
    games = [common.game_name(game)] if game else list(all_plugins())
    for name in games:
        click.echo(f"{name}:")
        for bot, doc in builtin_bots(name).items():
            click.echo(f"  {bot:<12} {doc}")


@click.command("games")
def list_games() -> None:
    """List the games."""
    for name, plugin in all_plugins().items():
        click.echo(f"{name:<12} {plugin.rules.description}")
        click.echo(f"{'':<12} tourney: {plugin.format.description}")


COMMANDS = [list_bots, list_games]
