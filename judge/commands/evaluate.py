"""``judge evaluate GAME A B --episodes N``: how A fares against B over many matches."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from games.base import counted
from games.seeds import random_seed
from judge.commands import options as shared

if TYPE_CHECKING:
    from judge.evaluate import Evaluation
    from judge.executors.cluster import ClusterTLS


@click.command("evaluate", cls=shared.GameCommand)
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
@shared.SEED
@shared.EXTRA
@shared.MANY_MATCHES
@shared.BOT_RUN
def evaluate_command(
    game: str,
    a: str,
    b: str,
    episodes: int,
    seed: int | None,
    flags: dict[str, Any],
    extra: tuple[str, ...],
    replays: Path | None,
    concurrency: int | None,
    executor_name: str,
    deadline: float,
    startup: float,
    adapter: str | None,
    as_json: bool,
    layer: str | None,
    min_layer: str | None,
    allowed: tuple[Path, ...],
    python: Path | None,
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
    options = common.game_options(game, common.option_pairs(game, flags, extra))
    try:
        cls.check_setup(2, cls.Options(**options))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if replays is not None and not replays.parent.exists():
        raise click.UsageError(f"directory {replays.parent} does not exist")
    sandbox = common.sandbox_or_exit(layer, min_layer)
    spec_a, spec_b = common.resolve_bots(game, (a, b), adapter, allowed, python)
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
