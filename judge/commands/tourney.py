"""``judge tourney GAME BOTS...``: each original's tournament format (see judge/tournament.py)."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import click
import trio
from pydantic import ValidationError

from judge.executors import Executor
from judge.sandbox.base import LAYERS
from judge.tournament import (
    FORMATS,
    Progress,
    TourneyResult,
    TourneySpec,
    run_tourney,
    validate,
)


@click.command("tourney")
@click.argument("game")
@click.argument("bots", nargs=-1, required=True)
@click.option("--seed", type=int, default=None,
              help="tourney seed; every match's seed derives from it")
@click.option("--turns", type=click.IntRange(min=1), default=None, help="rps: turns per match")
@click.option("--rounds", type=click.IntRange(min=1), default=None,
              help="roshambolo: tourney rounds (every pair once each); counting: rounds per match")
@click.option("--race-to", type=click.IntRange(min=1), default=None,
              help="roshambolo: round wins that end a game")
@click.option("--games", type=click.IntRange(min=1), default=None,
              help="liarsdice: free-for-all games [default: 100]")
@click.option("--runs", type=click.IntRange(min=1), default=None,
              help="counting: runs of every pair [default: 10]")
@click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE", help="any game option")
@click.option("--replays", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="directory for every match's replay [default: ./tourney-GAME-SEED]")
@click.option("--concurrency", "-j", type=click.IntRange(1, 256), default=None,
              help="matches at once [default: number of CPUs]")
@click.option("--executor", "executor_name", default="inproc", show_default=True,
              metavar="inproc|local|dask://HOST:PORT|dask-local",
              help="where matches run: this process, a judge process per core, the workers "
                   "of a Dask scheduler, or a Dask LocalCluster started for the run")
@click.option("--deadline", type=float, default=1.0, show_default=True, help="seconds per turn")
@click.option("--startup", type=float, default=5.0, show_default=True,
              help="extra seconds on a bot's first turn")
@click.option("--adapter", default=None, help="adapter for .py bots of the original projects")
@click.option("--json", "as_json", is_flag=True, help="print the result as one JSON object")
@click.option("--sandbox", "layer", type=click.Choice(LAYERS), default=None,
              help="isolation layer (default: the strongest available; see `judge sandbox`)")
@click.option("--min-sandbox", "min_layer", type=click.Choice(LAYERS), default=None,
              help="refuse to run below this isolation layer")
@click.option("--allow-path", "allowed", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="show this directory (read-only) to the bots, whose commands may then name "
              "files in it")
def tourney(game: str, bots: tuple[str, ...], seed: int | None, turns: int | None,
            rounds: int | None, race_to: int | None, games: int | None, runs: int | None,
            extra: tuple[str, ...], replays: Path | None, concurrency: int | None,
            executor_name: str, deadline: float, startup: float, adapter: str | None, as_json: bool,
            layer: str | None = None, min_layer: str | None = None,
            allowed: tuple[Path, ...] = ()) -> None:
    """Run GAME's original tournament format between BOTS.

    \b
    rps         round robin, one match of --turns per pair
    roshambolo  one match: --rounds x every pair, each game a race to --race-to
    liarsdice   --games free-for-all games of all BOTS
    counting    every pair x --runs runs of --rounds rounds; Score, Wins, Overall
    """
    from judge.commands import common
    from judge.executors import check_executor

    game = common.game_name(game)
    if game not in FORMATS:
        raise click.UsageError(f"no tourney format for {game} (known: {', '.join(FORMATS)})")
    if len(bots) < 2:
        raise click.UsageError("a tourney needs at least 2 bots")
    misplaced = {"--turns": turns is not None and game != "rps",
                 "--race-to": race_to is not None and game != "roshambolo",
                 "--rounds": rounds is not None and game not in ("roshambolo", "counting"),
                 "--games": games is not None and game != "liarsdice",
                 "--runs": runs is not None and game != "counting"}
    for flag, wrong in misplaced.items():
        if wrong:
            raise click.UsageError(f"{flag} does not apply to a {game} tourney")
    try:
        check_executor(executor_name)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--executor") from None
    if deadline <= 0 or startup < 0:
        raise click.UsageError("--deadline must be > 0 and --startup >= 0")
    pairs: dict[str, Any] = {"turns": turns, "race_to": race_to, "rounds": rounds,
                             **common.parse_option_pairs(extra)}
    options = common.game_options(game, pairs)
    seed = seed if seed is not None else random.randrange(2**31)
    replays = replays if replays is not None else Path(f"tourney-{game}-{seed}")
    if replays.exists() and not replays.is_dir():
        raise click.UsageError(f"{replays} exists and is not a directory")
    if not replays.parent.exists():
        raise click.UsageError(f"directory {replays.parent} does not exist")
    sandbox = common.sandbox_or_exit(layer, min_layer)
    specs = common.resolve_bots(game, bots, adapter, allowed)
    try:
        spec = TourneySpec(
            game=game, bots=specs, seed=seed, options=options, games=games or 100,
            runs=runs or 10, turn_deadline=deadline, startup_allowance=startup,
            concurrency=concurrency or max(1, os.cpu_count() or 1),
        )
        validate(spec)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise click.UsageError(problems) from None
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    from judge.executors import ExecutorError, open_executor

    # -j bounds this process's matches (inproc) or the local judge processes / local Dask
    # workers; a remote cluster runs as many matches as its workers offer.
    executor = open_executor(
        executor_name, sandbox=sandbox, min_layer=min_layer,
        concurrency=spec.concurrency if executor_name == "inproc" else concurrency,
    )
    try:
        result = run_with_progress(spec, replays, executor, show=not as_json)
    except ExecutorError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(result.model_dump_json())
    else:
        # Remote workers use their own strongest layer (each match's replay records it).
        shown = sandbox.layer if executor_name in ("inproc", "local") else "per worker"
        print_tourney(result, shown)
        for line in common.name_origins(game, bots, specs):
            click.echo(line)


def run_with_progress(
    spec: TourneySpec, replays: Path, executor: Executor, *, show: bool
) -> TourneyResult:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bar

    console = Console(stderr=True)
    unit = "games" if spec.game == "roshambolo" else "matches"
    with Bar(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
             TextColumn(unit), TimeElapsedColumn(), TextColumn("{task.fields[last]}"),
             console=console, transient=True, disable=not (show and console.is_terminal)) as bar:
        task = bar.add_task(f"{spec.game} tourney", total=None, last="")

        def progress(p: Progress) -> None:
            bar.update(task, completed=p.done, total=p.total, last=p.last[:60])

        async def main() -> TourneyResult:
            async with executor:
                bar.update(task, last=executor.describe()[:60])
                return await run_tourney(spec, replays=replays, progress=progress,
                                         executor=executor)

        return trio.run(main)


def _number(value: float) -> str:
    return f"{value:g}" if value != int(value) else str(int(value))


def print_tourney(result: TourneyResult, layer: str | None = None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    title = f"{result.game} tourney · {result.format} · seed {result.seed}"
    if layer is not None:
        title += f" · sandbox: {layer}"
    console.print(f"[bold]{title}[/]")
    if result.game == "counting":
        runs = int(result.options.get("runs", 1))
        others = len(result.standings) - 1
        shown = {
            "score": lambda v: f"{v / runs:.0f}",
            "wins": lambda v: f"{v / runs:.1f}/{others}",
            "overall": lambda v: f"{v:.0f} pts",
        }
        for board in result.boards:
            table = Table(title=f"By {board.name}: {board.description}")
            for column in ("rank", "bot", board.name):
                table.add_column(column)
            for row in board.rows:
                table.add_row(str(row.rank), row.name, shown[board.name](row.value))
            console.print(table)
    else:
        table = Table()
        columns = ["rank", "bot", "games won" if result.game != "rps" else "points"]
        columns += ["played", "won", "drawn", "lost", "DQ", "score"]
        for column in columns:
            table.add_column(column)
        for s in result.standings:
            table.add_row(str(s.rank), s.name, _number(s.points), str(s.played),
                          _number(s.games_won), str(s.draws), str(s.losses), str(s.disqualified),
                          _number(s.score))
        console.print(table)
    leaders = [s.name for s in result.standings if s.rank == 1]
    console.print(f"[bold]{' and '.join(leaders)}[/] {'win' if len(leaders) > 1 else 'wins'} "
                  f"({len(result.matches)} matches, {result.duration_s:.1f} s)")
    if result.replays:
        console.print(f"replays: {result.replays}/")


COMMANDS = [tourney]
