"""The ``judge`` command. Thin: parses arguments, calls the same functions the server uses."""

from __future__ import annotations

import click

from judge import __version__

# Every command: the module under judge/commands/ that defines it, and its one-line help.
# A module is imported only when its command runs (or shows its own help), so `judge --help`
# imports click and nothing of the judge, and no command imports the others' modules.
COMMANDS: dict[str, tuple[str, str]] = {
    "match": ("judge.commands.match", "Play one match of GAME between BOTS."),
    "evaluate": ("judge.commands.evaluate", "Play A against B many times: win rate, scores."),
    "tourney": ("judge.commands.tourney", "Run GAME's tournament format between BOTS."),
    "bots": ("judge.commands.games", "List the built-in bots (of GAME, or of every game)."),
    "games": ("judge.commands.games", "List the games."),
    "replay": ("judge.commands.replay", "Play back, follow, verify, export or summarise a replay."),
    "play": ("judge.commands.play", "Play GAME yourself against BOTS."),
    "new": ("judge.commands.new", "Write a starter bot for GAME in LANGUAGE (a kit)."),
    "time": ("judge.commands.timing", "Compare BOT's response time with a built-in bot's."),
    "sandbox": ("judge.commands.sandbox", "Probe the isolation layers bots run in."),
    "serve": ("judge.commands.server", "Run the judge server: API, pages, queue and ladder."),
    "admin-token": ("judge.commands.server", "Print a new token for the server's admin."),
    "db": ("judge.commands.server", "The server's database: migrate it, copy it elsewhere."),
    "submit": ("judge.commands.server", "Upload BOT to a judge server as a new version."),
    "remote": ("judge.commands.server", "Matches on a judge server."),
    "contest": ("judge.commands.contest", "Contests: create, list, show, submit, archive, verify."),
    "scheduler": ("judge.commands.cluster", "Start a Dask scheduler for the judge's matches."),
    "worker": ("judge.commands.cluster", "Start Dask workers that play matches (one per core)."),
    "cluster-certs": ("judge.commands.cluster", "Make the TLS files of a Dask cluster."),
}


class LazyGroup(click.Group):
    """Lists COMMANDS from the table; imports a command's module only to use it."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands or cmd_name not in COMMANDS:
            return self.commands.get(cmd_name)
        import gc
        import importlib

        # Imports make objects to keep, not garbage: no collection looks at them, neither
        # while they are made nor later (the one at the exit was ~15 % of a one-turn match).
        collecting = gc.isenabled()
        gc.disable()
        try:
            module = importlib.import_module(COMMANDS[cmd_name][0])
        finally:
            gc.freeze()
            if collecting:
                gc.enable()
        found = {command.name: command for command in module.COMMANDS}
        command: click.Command | None = found.get(cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name][1]) for name in sorted(COMMANDS)])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="judge")
@click.option(
    "--log-level",
    default="warning",
    show_default=True,
    type=click.Choice(["debug", "info", "warning", "error"]),
    help="log verbosity (stderr)",
)
def main(log_level: str) -> None:
    """Run matches between bots written in any language."""
    from judge import logs

    logs.configure(log_level)


if __name__ == "__main__":
    main()
