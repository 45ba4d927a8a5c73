"""``judge tourney GAME BOTS...``: the game's own tournament format (its ``GamePlugin.format``)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import click
import trio
from pydantic import ValidationError

from games import get_plugin
from games.base import counted
from games.seeds import random_seed
from games.tourney import number
from judge.commands.cluster_options import cluster_options
from judge.commands.common import bot_python_option
from judge.executors import ClusterTLS, Executor
from judge.sandbox.base import LAYERS
from judge.tournament import (
    Progress,
    TourneyResult,
    TourneySpec,
    run_tourney,
    validate,
)


@click.command("tourney")
@click.argument("game")
@click.argument("bots", nargs=-1, required=True)
@click.option(
    "--seed", type=int, default=None, help="tourney seed; every match's seed derives from it"
)
@click.option(
    "--turns", type=click.IntRange(min=1), default=None, help="game option turns (per match)"
)
@click.option("--rounds", type=click.IntRange(min=1), default=None, help="game option rounds")
@click.option("--race-to", type=click.IntRange(min=1), default=None, help="game option race_to")
@click.option(
    "--games",
    type=click.IntRange(min=1),
    default=None,
    help="free-for-all formats: games [default: 100]",
)
@click.option(
    "--runs",
    type=click.IntRange(min=1),
    default=None,
    help="arena formats: runs of every pair [default: 10]",
)
@click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE", help="any game option")
@click.option(
    "--replays",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="keep every match's replay in this directory [default: none kept]",
)
@click.option(
    "--concurrency",
    "-j",
    type=click.IntRange(1, 256),
    default=None,
    help="matches at once [default: number of CPUs]",
)
@click.option(
    "--executor",
    "executor_name",
    default="inproc",
    show_default=True,
    metavar="inproc|local|tls://HOST:PORT|dask-local",
    help="where matches run: this process, a judge process per core, the workers "
    "of a Dask scheduler, or a Dask LocalCluster started for the run",
)
@click.option("--deadline", type=float, default=1.0, show_default=True, help="seconds per turn")
@click.option(
    "--startup",
    type=float,
    default=5.0,
    show_default=True,
    help="extra seconds on a bot's first turn",
)
@click.option("--adapter", default=None, help="adapter for .py bots of the original projects")
@click.option("--json", "as_json", is_flag=True, help="print the result as one JSON object")
@click.option(
    "--sandbox",
    "layer",
    type=click.Choice(LAYERS),
    default=None,
    help="isolation layer (default: the strongest available; see `judge sandbox`)",
)
@click.option(
    "--min-sandbox",
    "min_layer",
    type=click.Choice(LAYERS),
    default=None,
    help="refuse to run below this isolation layer",
)
@click.option(
    "--allow-path",
    "allowed",
    multiple=True,
    metavar="DIR",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="show this directory (read-only) to the bots, whose commands may then name files in it",
)
@cluster_options
@bot_python_option
def tourney(
    game: str,
    bots: tuple[str, ...],
    seed: int | None,
    turns: int | None,
    rounds: int | None,
    race_to: int | None,
    games: int | None,
    runs: int | None,
    extra: tuple[str, ...],
    replays: Path | None,
    concurrency: int | None,
    executor_name: str,
    deadline: float,
    startup: float,
    adapter: str | None,
    as_json: bool,
    layer: str | None = None,
    min_layer: str | None = None,
    allowed: tuple[Path, ...] = (),
    tls: ClusterTLS | None = None,
    insecure_cluster: bool = False,
    python: Path | None = None,
) -> None:
    """Run GAME's tournament format (its original's; see `judge games`) between BOTS."""
    from judge.commands import common
    from judge.executors import check_executor

    game = common.game_name(game)
    if len(bots) < 2:
        raise click.UsageError("a tourney needs at least 2 bots")
    plugin = get_plugin(game)
    fields = plugin.rules.Options.model_fields
    misplaced = {
        "--turns": turns is not None and "turns" not in fields,
        "--race-to": race_to is not None and "race_to" not in fields,
        "--rounds": rounds is not None and "rounds" not in fields,
        "--games": games is not None and "games" not in plugin.format.settings,
        "--runs": runs is not None and "runs" not in plugin.format.settings,
    }
    for flag, wrong in misplaced.items():
        if wrong:
            raise click.UsageError(f"{flag} does not apply to a {game} tourney")
    try:
        check_executor(executor_name, tls=tls, insecure_cluster=insecure_cluster)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--executor") from None
    if deadline <= 0 or startup < 0:
        raise click.UsageError("--deadline must be > 0 and --startup >= 0")
    pairs: dict[str, Any] = {
        "turns": turns,
        "race_to": race_to,
        "rounds": rounds,
        **common.parse_option_pairs(extra),
    }
    options = common.game_options(game, pairs)
    seed = seed if seed is not None else random_seed()
    # Without --replays they are written to a scratch directory, gone at the end.
    scratch = tempfile.TemporaryDirectory(prefix=f"tourney-{game}-") if replays is None else None
    keep = replays is not None
    replays = replays if replays is not None else Path(scratch.name) if scratch else Path()
    if replays.exists() and not replays.is_dir():
        raise click.UsageError(f"{replays} exists and is not a directory")
    if not replays.parent.exists():
        raise click.UsageError(f"directory {replays.parent} does not exist")
    sandbox = common.sandbox_or_exit(layer, min_layer)
    specs = common.resolve_bots(game, bots, adapter, allowed, python)
    try:
        spec = TourneySpec(
            game=game,
            bots=specs,
            seed=seed,
            options=options,
            games=games or 100,
            runs=runs or 10,
            turn_deadline=deadline,
            startup_allowance=startup,
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
        executor_name,
        sandbox=sandbox,
        min_layer=min_layer,
        concurrency=spec.concurrency if executor_name == "inproc" else concurrency,
        tls=tls,
        insecure_cluster=insecure_cluster,
    )
    try:
        result = run_with_progress(spec, replays, executor, show=not as_json)
    except ExecutorError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        if scratch is not None:
            scratch.cleanup()
    if not keep:
        result = result.model_copy(update={"replays": None})
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
    unit = get_plugin(spec.game).format.unit
    with Bar(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        TimeElapsedColumn(),
        TextColumn("{task.fields[last]}"),
        console=console,
        transient=True,
        disable=not (show and console.is_terminal),
    ) as bar:
        task = bar.add_task(f"{spec.game} tourney", total=None, last="")

        def progress(p: Progress) -> None:
            bar.update(task, completed=p.done, total=p.total, last=p.last[:60])

        async def main() -> TourneyResult:
            async with executor:
                bar.update(task, last=executor.describe()[:60])
                return await run_tourney(
                    spec, replays=replays, progress=progress, executor=executor
                )

        return trio.run(main)


def print_tourney(result: TourneyResult, layer: str | None = None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    title = f"{result.game} tourney · {result.format} · seed {result.seed}"
    if layer is not None:
        title += f" · sandbox: {layer}"
    console.print(f"[bold]{title}[/]")
    form = get_plugin(result.game).format
    if form.boards_only:
        for board in result.boards:
            table = Table(title=f"By {board.name}: {board.description}")
            for column in ("rank", "bot", board.name):
                table.add_column(column)
            for row in board.rows:
                shown = form.board_cell(
                    board.name, row.value, result.options, len(result.standings)
                )
                table.add_row(str(row.rank), row.name, shown)
            console.print(table)
    else:
        table = Table()
        columns = ["rank", "bot", form.points_label]
        columns += ["played", "won", "drawn", "lost", "DQ", "score"]
        for column in columns:
            table.add_column(column)
        for s in result.standings:
            table.add_row(
                str(s.rank),
                s.name,
                number(s.points),
                str(s.played),
                number(s.games_won),
                str(s.draws),
                str(s.losses),
                str(s.disqualified),
                number(s.score),
            )
        console.print(table)
    leaders = [s.name for s in result.standings if s.rank == 1]
    console.print(
        f"[bold]{' and '.join(leaders)}[/] {'win' if len(leaders) > 1 else 'wins'} "
        f"({counted(len(result.matches), 'match', 'matches')}, {result.duration_s:.1f} s)"
    )
    if result.replays:
        console.print(f"replays: {result.replays}/")


COMMANDS = [tourney]
