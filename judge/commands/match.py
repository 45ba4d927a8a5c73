"""``judge match GAME BOTS...``: one match, or every pair when there are more bots than seats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import trio

from games import get_game
from judge.commands import common
from judge.commands import options as shared
from judge.models import MatchSpec
from judge.runner import run_match


@click.command("match", cls=shared.GameCommand)
@click.argument("game")
@click.argument("bots", nargs=-1, required=True)
@shared.SEED
@shared.EXTRA
@shared.REPLAY
@shared.BOT_RUN
def match(
    game: str,
    bots: tuple[str, ...],
    seed: int | None,
    flags: dict[str, Any],
    extra: tuple[str, ...],
    replay: Path | None,
    deadline: float,
    startup: float,
    adapter: str | None,
    as_json: bool,
    layer: str | None,
    min_layer: str | None,
    allowed: tuple[Path, ...],
    python: Path | None,
) -> None:
    """Play one match of GAME between BOTS (paths, commands, directories or built-in names)."""
    from games.seeds import random_seed

    game = common.game_name(game)
    options = common.game_options(game, common.option_pairs(game, flags, extra))
    if deadline <= 0 or startup < 0:
        raise click.UsageError("--deadline must be > 0 and --startup >= 0")
    cls = get_game(game)
    if len(bots) > cls.max_seats >= 2 and len(bots) > 2:
        # More bots than seats: every pair plays, the way `judge tourney` runs a round robin.
        if replay is not None:
            raise click.UsageError(
                "--replay names one file; with more than "
                f"{cls.max_seats} bots use `judge tourney --replays DIR`"
            )
        from judge.commands.tourney import tourney

        click.echo(
            f"{game} is a {cls.max_seats}-player game: every pair of the "
            f"{len(bots)} bots plays (judge tourney {game}).",
            err=True,
        )
        # The options they share, as given (tourney takes the same ones).
        context = click.get_current_context()
        given = {k: v for k, v in context.params.items() if k != "replay"}
        context.invoke(tourney, **given, settings={})
        return
    if not cls.min_seats <= len(bots) <= cls.max_seats:
        raise click.UsageError(f"{game} takes {cls.seats_text()} bots, got {len(bots)}")
    try:
        cls.check_setup(len(bots), cls.Options(**options))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if replay is not None and not replay.parent.exists():
        raise click.UsageError(f"directory {replay.parent} does not exist")
    sandbox = common.sandbox_or_exit(layer, min_layer)
    specs = common.resolve_bots(game, bots, adapter, allowed, python)
    spec = MatchSpec(
        game=game,
        bots=specs,
        seed=seed if seed is not None else random_seed(),
        options=options,
        turn_deadline=deadline,
        startup_allowance=startup,
    )
    # One match alone: the judge and its bots share a core while the bots answer at once.
    result = trio.run(lambda: run_match(spec, sandbox=sandbox, replay_path=replay, colocate=True))
    if as_json:
        click.echo(result.model_dump_json())
    else:
        common.print_result(result)
        for line in common.name_origins(game, bots, specs, [p.label for p in result.players]):
            click.echo(line)


COMMANDS = [match]
