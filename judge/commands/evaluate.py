"""``judge evaluate GAME A B --episodes N``: how A fares against B over many matches."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from games.base import counted
from games.seeds import random_seed
from judge.commands.cluster_options import cluster_options
from judge.sandbox.base import LAYERS

if TYPE_CHECKING:
    from judge.evaluate import Evaluation
    from judge.executors.cluster import ClusterTLS


@click.command("evaluate")
@click.argument("game")
@click.argument("a")
@click.argument("b")
@click.option(
    "--episodes",
    "-n",
    type=click.IntRange(1, 100_000),
    default=20,
    show_default=True,
    help="matches to play (A takes the first seat in odd ones, the second in even)",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="evaluation seed; every match's seed derives from it (default: random)",
)
@click.option("--turns", type=int, default=None, help="game option turns")
@click.option("--race-to", type=int, default=None, help="game option race_to")
@click.option("--rounds", type=int, default=None, help="game option rounds")
@click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE", help="any game option")
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
    help="where matches run",
)
@click.option(
    "--replays",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="keep every match's replay in this directory",
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
@click.option(
    "--sandbox",
    "layer",
    type=click.Choice(LAYERS),
    default=None,
    help="isolation layer (default: the strongest available)",
)
@click.option(
    "--min-sandbox",
    "min_layer",
    type=click.Choice(LAYERS),
    default=None,
    help="refuse to run below this isolation layer",
)
@click.option("--json", "as_json", is_flag=True, help="print the figures as one JSON object")
@cluster_options
def evaluate_command(
    game: str,
    a: str,
    b: str,
    episodes: int,
    seed: int | None,
    turns: int | None,
    race_to: int | None,
    rounds: int | None,
    extra: tuple[str, ...],
    concurrency: int | None,
    executor_name: str,
    replays: Path | None,
    deadline: float,
    startup: float,
    adapter: str | None,
    layer: str | None,
    min_layer: str | None,
    as_json: bool,
    tls: ClusterTLS | None = None,
    insecure_cluster: bool = False,
) -> None:
    """Play A against B in EPISODES matches of GAME (seats alternated, seeds varied, in
    parallel): wins, draws and losses, the win rate with a 95 % confidence interval, mean
    scores and response times."""
    import os

    import trio

    from games import get_game
    from judge.commands import common
    from judge.evaluate import evaluate
    from judge.executors import ExecutorError, check_executor, open_executor

    game = common.game_name(game)
    cls = get_game(game)
    if not cls.min_seats <= 2 <= cls.max_seats:
        raise click.UsageError(f"{game} takes {cls.seats_text()} bots; evaluate plays two")
    try:
        check_executor(executor_name, tls=tls, insecure_cluster=insecure_cluster)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--executor") from None
    if deadline <= 0 or startup < 0:
        raise click.UsageError("--deadline must be > 0 and --startup >= 0")
    options = common.game_options(
        game,
        {"turns": turns, "race_to": race_to, "rounds": rounds, **common.parse_option_pairs(extra)},
    )
    try:
        cls.check_setup(2, cls.Options(**options))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if replays is not None and not replays.parent.exists():
        raise click.UsageError(f"directory {replays.parent} does not exist")
    sandbox = common.sandbox_or_exit(layer, min_layer)
    spec_a, spec_b = common.resolve_bots(game, (a, b), adapter)
    seed = seed if seed is not None else random_seed()
    slots = concurrency or max(1, os.cpu_count() or 1)
    executor = open_executor(
        executor_name,
        sandbox=sandbox,
        min_layer=min_layer,
        concurrency=slots,
        tls=tls,
        insecure_cluster=insecure_cluster,
    )

    async def main() -> Evaluation:
        async with executor:
            return await evaluate(
                game,
                spec_a,
                spec_b,
                episodes=episodes,
                seed=seed,
                options=options,
                executor=executor,
                deadline=deadline,
                startup=startup,
                replays=replays,
                concurrency=slots,
            )

    try:
        result = trio.run(main)
    except ExecutorError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(result.model_dump_json())
    else:
        print_evaluation(result)


def print_evaluation(result: Evaluation) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    settings = ", ".join(f"{k}={v}" for k, v in result.options.items())
    table = Table(
        title=(
            f"{result.game} · {counted(result.episodes, 'match', 'matches')} · seed {result.seed}"
        ),
        caption=f"{settings}; seats alternated; {result.duration_s:.1f} s",
    )
    for column in (
        "",
        "bot",
        "W-D-L",
        "win rate (95 % CI)",
        "mean score",
        "median/p95 ms",
        "disqualified",
    ):
        table.add_column(column)
    for tag, f in (("A", result.a), ("B", result.b)):
        low, high = f.win_rate_ci95
        dq = ", ".join(f"{code} ×{n}" for code, n in f.disqualified.items()) or "—"
        table.add_row(
            tag,
            escape(f.name),
            f"{f.wins}-{f.draws}-{f.losses}",
            f"{f.win_rate:.0%} ({low:.0%}–{high:.0%})",
            f"{f.mean_score:g}",
            f"{f.response.median_ms:.2f}/{f.response.p95_ms:.2f}",
            escape(dq),
        )
    console.print(table)
    a, b = result.a, result.b
    if a.win_rate_ci95[0] > 0.5:
        verdict = f"A ({escape(a.name)}) is the stronger bot (95 % sure: wins over half)"
    elif b.win_rate_ci95[0] > 0.5:
        verdict = f"B ({escape(b.name)}) is the stronger bot (95 % sure: wins over half)"
    else:
        verdict = "no bot wins over half of the matches with 95 % confidence"
    console.print(verdict)


COMMANDS = [evaluate_command]
