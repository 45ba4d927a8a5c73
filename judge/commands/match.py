"""``judge match GAME BOTS...``: one match, or every pair when there are more bots than seats."""

from __future__ import annotations

from pathlib import Path

import click
import trio

from games import get_game
from judge.commands import common
from judge.models import MatchSpec
from judge.runner import run_match
from judge.sandbox.base import LAYERS


@click.command("match")
@click.argument("game")
@click.argument("bots", nargs=-1, required=True)
@click.option("--seed", type=int, default=None, help="random seed (default: random)")
@click.option("--turns", type=int, default=None, help="game option turns")
@click.option("--race-to", type=int, default=None, help="game option race_to")
@click.option("--rounds", type=int, default=None, help="game option rounds")
@click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE", help="any game option")
@click.option(
    "--replay",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="write the replay here (.gz/.zst compress)",
)
@click.option("--deadline", type=float, default=1.0, show_default=True, help="seconds per turn")
@click.option(
    "--startup",
    type=float,
    default=5.0,
    show_default=True,
    help="extra seconds on the first turn (interpreter and JIT start-up)",
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
    help="show this directory (read-only) to the bots, whose commands may then name "
    "files in it; a bot sees only its own directory and the system's otherwise",
)
@common.bot_python_option
def match(
    game: str,
    bots: tuple[str, ...],
    seed: int | None,
    turns: int | None,
    race_to: int | None,
    rounds: int | None,
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
    pairs = {
        "turns": turns,
        "race_to": race_to,
        "rounds": rounds,
        **common.parse_option_pairs(extra),
    }
    options = common.game_options(game, pairs)
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
        click.get_current_context().invoke(
            tourney,
            game=game,
            bots=bots,
            seed=seed,
            turns=turns,
            rounds=rounds,
            race_to=race_to,
            extra=extra,
            deadline=deadline,
            startup=startup,
            adapter=adapter,
            as_json=as_json,
            layer=layer,
            min_layer=min_layer,
            allowed=allowed,
            python=python,
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
