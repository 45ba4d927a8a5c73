"""``judge new GAME LANGUAGE [DIR]``: a starter bot that plays GAME legally, to build on."""

from __future__ import annotations

from pathlib import Path

import click

from judge.kits import ALIASES, LANGUAGES, KitError, default_dir, make_kit, opponent


def language_of(language: str) -> str:
    lowered = language.lower()
    return ALIASES.get(lowered, lowered)


SHOWN_ALIASES = ", ".join(alias for alias, lang in ALIASES.items() if lang in LANGUAGES)
HELP = f"""Write a starter bot for GAME in LANGUAGE into DIR (default ./GAME-LANGUAGE).

LANGUAGE is one of {", ".join(LANGUAGES)} (or {SHOWN_ALIASES}). DIR must not exist or be
empty. The bot is the directory: `judge match GAME DIR BOT` builds and plays it.
"""


@click.command("new", help=HELP)
@click.argument("game")
@click.argument("language")
@click.argument("directory", required=False, type=click.Path(path_type=Path))
def new(game: str, language: str, directory: Path | None) -> None:
    try:
        target = directory if directory is not None else default_dir(game, language)
        files = make_kit(game, language, target)
    except KitError as exc:
        raise click.ClickException(str(exc)) from None
    shown = target.as_posix() if target.is_absolute() else f"./{target.as_posix()}"
    click.echo(f"wrote {shown}: {', '.join(files)}")
    click.echo(f"play it:  judge match {game} {shown} {opponent(game)}")
    click.echo(f"read:     {shown}/README.md (the {game} protocol)")
    needs = " and ".join(LANGUAGES[language_of(language)].programs)
    click.echo(
        f"a server builds and runs it with its own {needs}, which must be on its bots' "
        "PATH (`judge submit` says which compilers the server has)"
    )


COMMANDS = [new]
