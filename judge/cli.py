"""The ``judge`` command. Thin: parses arguments, calls the same functions the server uses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import trio

from games import UnknownGame, all_games, get_game
from judge import __version__, logs
from judge.bots import BotError, builtin_bots, resolve
from judge.models import MatchResult, MatchSpec
from judge.runner import run_match
from judge.sandbox.base import LAYERS, Sandbox, SandboxError


def _game(name: str) -> str:
    try:
        return get_game(name).name
    except UnknownGame as exc:
        raise click.UsageError(str(exc)) from None


def _options(game: str, pairs: dict[str, Any]) -> dict[str, Any]:
    """Validate game options before any process starts."""
    from pydantic import ValidationError

    options = {k: v for k, v in pairs.items() if v is not None}
    try:
        return get_game(game).Options(**options).model_dump()
    except ValidationError as exc:
        problems = "; ".join(
            f"--{'-'.join(str(p) for p in err['loc']).replace('_', '-')}: {err['msg']}"
            for err in exc.errors()
        )
        raise click.UsageError(f"bad options for {game}: {problems}") from None


def parse_option_pairs(values: tuple[str, ...]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for value in values:
        key, sep, raw = value.partition("=")
        if not sep or not key:
            raise click.UsageError(f"--option takes KEY=VALUE, got {value!r}")
        result[key.replace("-", "_")] = raw
    return result


def resolve_bots(
    game: str, args: tuple[str, ...], adapter: str | None, allowed: tuple[Path, ...] = ()
) -> list[Any]:
    specs = []
    for arg in args:
        try:
            specs.append(resolve(arg, game, adapter=adapter, allowed=allowed))
        except BotError as exc:
            raise click.UsageError(str(exc)) from None
    return specs


def name_origins(
    game: str, args: tuple[str, ...], specs: list[Any], labels: list[str] | None = None
) -> list[str]:
    """For bots that share a name: what each stands for ("cycle#2: ./b/cycle.py"), named as a
    tourney's tables name them (judge.tournament.unique_names), or by seat ``labels`` in a
    match. Empty when every name is different."""
    from judge.tournament import unique_names

    names = [spec.name for spec in specs]
    if len(set(names)) == len(names):
        return []
    lines = []
    shown = [f"seat {label} {spec.name}" for label, spec in zip(labels, specs, strict=True)] \
        if labels else [spec.name for spec in unique_names(specs)]
    for arg, spec, name in zip(args, specs, shown, strict=True):
        if names.count(spec.name) > 1 and args.count(arg) < names.count(spec.name):
            builtin = arg in builtin_bots(game) and not Path(arg).exists()
            lines.append(f"{name}: {f'built-in {game} bot {arg}' if builtin else arg}")
    return lines


def sandbox_or_exit(layer: str | None, min_layer: str | None) -> Sandbox:
    """The sandbox for --sandbox/--min-sandbox (or the defaults), or a clear error.

    Below the namespaces layer a warning line on stderr says what the bots can reach.
    """
    from judge.sandbox.select import default_sandbox, weakness

    try:
        sandbox = default_sandbox(layer, min_layer)
    except SandboxError as exc:
        raise click.ClickException(str(exc)) from None
    warning = weakness(sandbox.layer)
    if warning:
        click.secho(f"warning: {warning}", fg="yellow", err=True)
    return sandbox


STDERR_LINES = 3


def stderr_tail(text: str, lines: int = STDERR_LINES) -> list[str]:
    """The last non-blank lines a bot wrote to stderr (a Python traceback ends with its error)."""
    return [line.rstrip() for line in text.splitlines() if line.strip()][-lines:]


def failure_lines(result: MatchResult) -> list[tuple[str, str]]:
    """(what, detail) lines saying why each bot that did not finish failed: its outcome and
    reason, then the last lines of its stderr."""
    out: list[tuple[str, str]] = []
    for p in result.players:
        if p.outcome == "ok":
            continue
        turn = f" in turn {p.turn}" if p.turn else ""
        out.append((f"seat {p.label} {p.name}: {p.outcome}{turn}", p.reason))
        out.extend(("    stderr", line) for line in stderr_tail(p.stderr))
    return out


def print_result(result: MatchResult) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    table = Table(title=f"{result.game} · seed {result.seed} · {result.turns} turns",
                  caption=f"sandbox: {result.sandbox}")
    for column in ("seat", "bot", "score", "rank", "outcome", "median ms", "max ms"):
        table.add_column(column)
    for p in result.players:
        outcome = p.outcome if p.outcome == "ok" else f"[red]{escape(p.outcome)}[/]"
        table.add_row(
            p.label, escape(p.name), f"{p.score:g}", str(p.rank), outcome,
            f"{p.response.median_ms:.2f}", f"{p.response.max_ms:.2f}",
        )
    console.print(table)
    for what, detail in failure_lines(result):
        style = "dim" if what.strip() == "stderr" else "red"
        console.print(f"[{style}]{escape(what)}[/]: {escape(detail)}", highlight=False)
    if result.draw:
        console.print(f"[bold]Draw[/] ({escape(result.summary)})")
    else:
        assert result.winner is not None
        winner = escape(result.players[result.winner].name)
        console.print(f"[bold]{winner} wins[/] ({escape(result.summary)})")
    if result.replay:
        console.print(f"replay: {escape(result.replay)}")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="judge")
@click.option("--log-level", default="warning", show_default=True,
              type=click.Choice(["debug", "info", "warning", "error"]),
              help="log verbosity (stderr)")
def main(log_level: str) -> None:
    """Run matches between bots written in any language."""
    logs.configure(log_level)


@main.command()
@click.argument("game")
@click.argument("bots", nargs=-1, required=True)
@click.option("--seed", type=int, default=None, help="random seed (default: random)")
@click.option("--turns", type=int, default=None, help="turns (rps)")
@click.option("--race-to", type=int, default=None, help="round wins that end a game (roshambolo)")
@click.option("--rounds", type=int, default=None, help="rounds (counting)")
@click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE", help="any game option")
@click.option("--replay", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="write the replay here (.gz/.zst compress)")
@click.option("--deadline", type=float, default=1.0, show_default=True, help="seconds per turn")
@click.option("--startup", type=float, default=5.0, show_default=True,
              help="extra seconds on the first turn (interpreter and JIT start-up)")
@click.option("--adapter", default=None, help="adapter for .py bots of the original projects")
@click.option("--json", "as_json", is_flag=True, help="print the result as one JSON object")
@click.option("--sandbox", "layer", type=click.Choice(LAYERS), default=None,
              help="isolation layer (default: the strongest available; see `judge sandbox`)")
@click.option("--min-sandbox", "min_layer", type=click.Choice(LAYERS), default=None,
              help="refuse to run below this isolation layer")
@click.option("--allow-path", "allowed", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="show this directory (read-only) to the bots, whose commands may then name "
              "files in it; a bot sees only its own directory and the system's otherwise")
def match(game: str, bots: tuple[str, ...], seed: int | None, turns: int | None,
          race_to: int | None, rounds: int | None, extra: tuple[str, ...], replay: Path | None,
          deadline: float, startup: float, adapter: str | None, as_json: bool,
          layer: str | None, min_layer: str | None, allowed: tuple[Path, ...]) -> None:
    """Play one match of GAME between BOTS (paths, commands, directories or built-in names)."""
    import random

    game = _game(game)
    pairs = {"turns": turns, "race_to": race_to, "rounds": rounds, **parse_option_pairs(extra)}
    options = _options(game, pairs)
    if deadline <= 0 or startup < 0:
        raise click.UsageError("--deadline must be > 0 and --startup >= 0")
    cls = get_game(game)
    if len(bots) > cls.max_seats >= 2 and len(bots) > 2:
        # More bots than seats: every pair plays, the way `judge tourney` runs a round robin.
        if replay is not None:
            raise click.UsageError("--replay names one file; with more than "
                                   f"{cls.max_seats} bots use `judge tourney --replays DIR`")
        from judge.commands.tourney import tourney

        click.echo(f"{game} is a {cls.max_seats}-player game: every pair of the "
                   f"{len(bots)} bots plays (judge tourney {game}).", err=True)
        click.get_current_context().invoke(
            tourney, game=game, bots=bots, seed=seed, turns=turns, rounds=rounds,
            race_to=race_to, extra=extra, deadline=deadline, startup=startup,
            adapter=adapter, as_json=as_json, layer=layer, min_layer=min_layer, allowed=allowed,
        )
        return
    if not cls.min_seats <= len(bots) <= cls.max_seats:
        raise click.UsageError(f"{game} takes {cls.seats_text()} bots, got {len(bots)}")
    try:
        cls.check_setup(len(bots), cls.Options(**options))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if replay is not None and not replay.parent.exists():
        raise click.UsageError(f"directory {replay.parent} does not exist")
    sandbox = sandbox_or_exit(layer, min_layer)
    specs = resolve_bots(game, bots, adapter, allowed)
    spec = MatchSpec(
        game=game, bots=specs, seed=seed if seed is not None else random.randrange(2**31),
        options=options, turn_deadline=deadline, startup_allowance=startup,
    )
    result = trio.run(lambda: run_match(spec, sandbox=sandbox, replay_path=replay))
    if as_json:
        click.echo(result.model_dump_json())
    else:
        print_result(result)
        for line in name_origins(game, bots, specs, [p.label for p in result.players]):
            click.echo(line)


@main.command("bots")
@click.argument("game", required=False)
def list_bots(game: str | None) -> None:
    """List the built-in bots (of GAME, or of every game)."""
    games = [_game(game)] if game else list(all_games())
    for name in games:
        click.echo(f"{name}:")
        for bot, doc in builtin_bots(name).items():
            click.echo(f"  {bot:<12} {doc}")


@main.command("games")
def list_games() -> None:
    """List the games."""
    for name, cls in all_games().items():
        click.echo(f"{name:<12} {cls.description}")


# Each area adds its commands in its own module under judge/commands/ (one line here each).
COMMAND_MODULES: tuple[str, ...] = (
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
