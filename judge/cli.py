"""The ``judge`` command. Thin: parses arguments, calls the same functions the server uses."""

from __future__ import annotations

import click

from judge import __version__, logs


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="judge")
@click.option("--log-level", default="warning", show_default=True,
              type=click.Choice(["debug", "info", "warning", "error"]),
              help="log verbosity (stderr)")
def main(log_level: str) -> None:
    """Run matches between bots written in any language."""
    logs.configure(log_level)


# Each area adds its commands in its own module under judge/commands/ (one line here each).
COMMAND_MODULES: tuple[str, ...] = (
    "judge.commands.match",
    "judge.commands.games",
    "judge.commands.replay",
    "judge.commands.sandbox",
    "judge.commands.server",
    "judge.commands.timing",
    "judge.commands.tourney",
    "judge.commands.play",
    "judge.commands.evaluate",
)


def _register_commands() -> None:
    import importlib

    for module_name in COMMAND_MODULES:
        module = importlib.import_module(module_name)
        for command in module.COMMANDS:
            main.add_command(command)


_register_commands()

if __name__ == "__main__":
    main()
