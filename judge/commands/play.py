"""``judge play GAME [BOTS...]``: a person plays against bots in the terminal.

The person is a real seat: ``bots/human.py`` (with the game's ``games/<game>/human.py``)
is started like any bot and speaks the protocol, while it talks to the person on this
terminal (its path is passed in ``JUDGE_TTY``). The match runner is the same one as
everywhere else; only the turn deadline is long, because people think slowly.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click
import trio

from games import get_plugin
from games.seeds import random_seed
from judge.botfiles import BOTS_DIR, GAMES_DIR
from judge.commands import options as shared
from judge.models import BotSpec, MatchSpec
from judge.sandbox import BotProcess, PlainSandbox, Sandbox

HUMAN_SCRIPT = BOTS_DIR / "human.py"


def human_spec(game: str, tty: str, name: str) -> BotSpec:
    return BotSpec(
        name=name,
        argv=(sys.executable, "-S", "-s", str(HUMAN_SCRIPT), game),
        env={"JUDGE_TTY": tty},
        readonly_paths=(BOTS_DIR, GAMES_DIR),
    )


class HumanSeatSandbox(Sandbox):
    """Starts the human seat outside any isolation (it must reach the terminal), bots inside."""

    def __init__(self, bots: Sandbox, human: BotSpec) -> None:
        self.bots = bots
        self.human = human
        self.layer = bots.layer

    async def start(self, bot: BotSpec, *, seed: int) -> BotProcess:
        if bot == self.human:
            return await PlainSandbox().start(bot, seed=seed)
        return await self.bots.start(bot, seed=seed)


@click.command("play", cls=shared.GameCommand)
@click.argument("game")
@click.argument("bots", nargs=-1)
@click.option(
    "--seat", type=click.IntRange(min=1), default=1, show_default=True, help="your seat (1 = first)"
)
@click.option("--name", default="human", show_default=True, help="your name in the results")
@shared.SEED
@shared.EXTRA
@shared.REPLAY
@click.option(
    "--think",
    type=float,
    default=3600.0,
    show_default=True,
    help="seconds a turn may take (yours and the bots')",
)
@shared.ADAPTER
def play(
    game: str,
    bots: tuple[str, ...],
    seat: int,
    name: str,
    seed: int | None,
    flags: dict[str, Any],
    extra: tuple[str, ...],
    replay: Path | None,
    think: float,
    adapter: str | None,
) -> None:
    """Play GAME yourself against BOTS (default: the game's usual opponents, a short match).

    \b
    judge play rps                 # against the random built-in, 10 turns
    judge play liarsdice computer computer --seat 2
    judge play counting crab --rounds 5
    """
    from games import all_plugins, get_game
    from judge.commands import common
    from judge.sandbox.select import default_sandbox

    game = common.game_name(game)
    plugin = get_plugin(game)
    if plugin.play is None or plugin.path("human.py") is None:
        playable = ", ".join(
            known
            for known, p in all_plugins().items()
            if p.play is not None and p.path("human.py") is not None
        )
        raise click.UsageError(f"no human seat for {game} (playable: {playable})")
    if not sys.stdin.isatty():
        raise click.UsageError("judge play needs a terminal: run it in an interactive shell")
    if think <= 0:
        raise click.UsageError("--think must be > 0")
    opponents = bots or plugin.play.opponents
    cls = get_game(game)
    seats = len(opponents) + 1
    if not cls.min_seats <= seats <= cls.max_seats:
        raise click.UsageError(
            f"{game} takes {cls.seats_text()} seats with you included, got {seats}"
        )
    if seat > seats:
        raise click.UsageError(f"--seat {seat} is past the last seat ({seats})")
    defaults: dict[str, Any] = dict(plugin.play.options)
    pairs = {**defaults, **common.option_pairs(game, flags, extra)}
    options = common.game_options(game, pairs)
    if replay is not None and not replay.parent.exists():
        raise click.UsageError(f"directory {replay.parent} does not exist")
    specs = common.resolve_bots(game, opponents, adapter)
    human = human_spec(game, os.ttyname(sys.stdin.fileno()), name)
    specs.insert(seat - 1, human)
    seed = seed if seed is not None else random_seed()
    spec = MatchSpec(
        game=game,
        bots=specs,
        seed=seed,
        options=options,
        turn_deadline=think,
        startup_allowance=5.0,
    )
    sandbox = HumanSeatSandbox(default_sandbox(), human)
    from judge.runner import run_match

    try:
        result = trio.run(lambda: run_match(spec, sandbox=sandbox, replay_path=replay))
    except KeyboardInterrupt:
        click.echo("\ninterrupted: the match is abandoned", err=True)
        raise SystemExit(130) from None
    common.print_result(result)


COMMANDS = [play]
