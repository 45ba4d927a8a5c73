"""What the commands share: game and option checks, BOT arguments, the sandbox, a result table."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import click

from games import UnknownGame, get_game
from games.base import counted
from judge.bots import BotError, bot_python, builtin_bots, resolve
from judge.models import MatchResult
from judge.sandbox.base import Sandbox, SandboxError


def game_name(name: str) -> str:
    try:
        return get_game(name).name
    except UnknownGame as exc:
        raise click.UsageError(str(exc)) from None


def game_options(game: str, pairs: dict[str, Any]) -> dict[str, Any]:
    """Validate game options before any process starts. Options the game takes from a file
    on the command line (``map-file=PATH``) are read here; the game sees only their text."""
    from pydantic import ValidationError

    options_cls = get_game(game).Options
    options = {k: v for k, v in pairs.items() if v is not None}
    for key, target in options_cls.file_options.items():
        if key in options:
            options[target] = read_option_file(key, str(options.pop(key)))
    try:
        return options_cls.from_data(options).model_dump()
    except ValidationError as exc:
        problems = "; ".join(
            f"--{'-'.join(str(p) for p in err['loc']).replace('_', '-')}: {err['msg']}"
            for err in exc.errors()
        )
        hint = file_hint(options_cls)
        raise click.UsageError(f"bad options for {game}: {problems}{hint}") from None
    except ValueError as exc:
        raise click.UsageError(f"bad options for {game}: {exc}") from None


def file_hint(options_cls: Any) -> str:
    keys = [key.replace("_", "-") for key in options_cls.file_options]
    return f" (from a file: -o {keys[0]}=PATH)" if keys else ""


def read_option_file(key: str, path: str) -> str:
    """A file the user named on the command line, as text: a regular file, bounded."""
    from games.base import MAX_OPTIONS_BYTES

    what = f"-o {key.replace('_', '-')}={path}"
    try:
        # O_NONBLOCK: a FIFO opens at once (and is refused) instead of waiting for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with open(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise click.UsageError(f"{what}: not a regular file")
            data = file.read(MAX_OPTIONS_BYTES + 1)
    except OSError as exc:
        raise click.UsageError(f"{what}: {exc.strerror or exc}") from None
    if len(data) > MAX_OPTIONS_BYTES:
        raise click.UsageError(f"{what}: larger than {MAX_OPTIONS_BYTES // 1024} KiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise click.UsageError(f"{what}: not UTF-8 text") from None


def parse_option_pairs(values: tuple[str, ...]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for value in values:
        key, sep, raw = value.partition("=")
        if not sep or not key:
            raise click.UsageError(f"--option takes KEY=VALUE, got {value!r}")
        result[key.replace("-", "_")] = raw
    return result


def option_pairs(game: str, flags: dict[str, Any], extra: tuple[str, ...]) -> dict[str, Any]:
    """The game options given as flags (each game's ``GameOptions.flags``) and as ``-o``;
    a flag of another game's option is refused, naming the flag."""
    fields = get_game(game).Options.model_fields
    for name in flags:
        if name not in fields:
            raise click.UsageError(f"--{name.replace('_', '-')} does not apply to {game}")
    return {**flags, **parse_option_pairs(extra)}


def resolve_bots(
    game: str,
    args: tuple[str, ...],
    adapter: str | None,
    allowed: tuple[Path, ...] = (),
    python: Path | None = None,
) -> list[Any]:
    specs = []
    try:
        interpreter = bot_python(python) if python is not None else None
        for arg in args:
            specs.append(resolve(arg, game, adapter=adapter, allowed=allowed, python=interpreter))
    except BotError as exc:
        raise click.UsageError(str(exc)) from None
    return specs


def name_origins(
    game: str, args: tuple[str, ...], specs: list[Any], labels: list[str] | None = None
) -> list[str]:
    """For bots that share a name: what each stands for ("cycle#2: ./b/cycle.py"), named as a
    tourney's tables name them (judge.tournament.unique_names), or by seat ``labels`` in a
    match. Empty when every name is different."""
    names = [spec.name for spec in specs]
    if len(set(names)) == len(names):
        return []
    lines = []
    if labels:
        shown = [f"seat {label} {spec.name}" for label, spec in zip(labels, specs, strict=True)]
    else:
        from judge.tournament import unique_names

        shown = [spec.name for spec in unique_names(specs)]
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
    warning = weakness(sandbox.layer, why_not_stronger=layer is None)
    if warning:
        click.secho(f"warning: {warning}", fg="yellow", err=True)
    return sandbox


STDERR_LINES = 3


def stderr_tail(text: str, lines: int = STDERR_LINES) -> list[str]:
    """The last non-blank lines a bot wrote to stderr; ending in a Python traceback, from its
    innermost ``File`` line on, so the file and line that raised are shown."""
    from judge.crashes import FRAME, last_traceback

    tail = [line.rstrip() for line in text.splitlines() if line.strip()][-lines:]
    traceback = [line.rstrip() for line in last_traceback(text) if line.strip()]
    frames = [i for i, line in enumerate(traceback) if FRAME.match(line)]
    if frames and tail and traceback[-1] in tail:
        shown = traceback[frames[-1] :]
        return shown + tail[tail.index(traceback[-1]) + 1 :]
    return tail


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
    table = Table(
        title=f"{result.game} · seed {result.seed} · {counted(result.turns, 'turn')}",
        caption=f"sandbox: {result.sandbox}",
    )
    for column in ("seat", "bot", "score", "rank", "outcome", "median ms", "max ms"):
        table.add_column(column)
    for p in result.players:
        outcome = p.outcome if p.outcome == "ok" else f"[red]{escape(p.outcome)}[/]"
        if p.caught:
            # The original harness caught these and played on; the bot only seems to play.
            plural = "s" if p.caught > 1 else ""
            outcome += (
                f"\n[yellow]{p.caught} exception{plural} caught[/]"
                f" (first: {escape(p.caught_first)})"
            )
        table.add_row(
            p.label,
            escape(p.name),
            f"{p.score:g}",
            str(p.rank),
            outcome,
            f"{p.response.median_ms:.2f}",
            f"{p.response.max_ms:.2f}",
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
