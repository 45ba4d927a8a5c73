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
from judge.commands import options as shared
from judge.executors import ClusterTLS, Executor
from judge.tournament import (
    Progress,
    TourneyResult,
    TourneySpec,
    run_tourney,
    validate,
)


@click.command("tourney", cls=shared.TourneyCommand)
@click.argument("game")
@click.argument("bots", nargs=-1, required=True)
@shared.SEED
@shared.EXTRA
@shared.MANY_MATCHES
@shared.BOT_RUN
def tourney(
    game: str,
    bots: tuple[str, ...],
    seed: int | None,
    flags: dict[str, Any],
    extra: tuple[str, ...],
    settings: dict[str, Any],
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
    pairs = common.option_pairs(game, flags, extra)
    settings = format_settings(game, settings)
    try:
        check_executor(executor_name, tls=tls, insecure_cluster=insecure_cluster)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--executor") from None
    if deadline <= 0 or startup < 0:
        raise click.UsageError("--deadline must be > 0 and --startup >= 0")
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
            settings=settings,
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


def format_settings(game: str, given: dict[str, Any]) -> dict[str, Any]:
    """The tourney format's settings from their flags, checked by the format."""
    form = get_plugin(game).format
    for name in given:
        if name not in form.Settings.model_fields:
            raise click.UsageError(f"{shared.flag_of(name)} does not apply to a {game} tourney")
    try:
        return form.Settings.model_validate(given).model_dump()
    except ValidationError as exc:
        problems = "; ".join(
            f"{shared.flag_of(str(e['loc'][0]))}: {e['msg']}" for e in exc.errors()
        )
        raise click.UsageError(problems) from None


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
