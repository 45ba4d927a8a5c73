"""``judge time BOT``: how long a bot takes to answer, next to a built-in reference bot.

Like the ``time`` command of an original project (its game is the default, ``Timing.default``):
the same lineup is played twice, first with the reference bot in the timed seat, then with
BOT there, and the two seats' response times (as the runner measures them: writing the
message to reading the whole answer) are compared. The median is the headline figure
because the first turn also pays for the interpreter's start-up.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import trio

from games.seeds import random_seed
from judge.commands import options as shared
from judge.models import MatchResult, MatchSpec, PlayerResult, ResponseStats


@dataclass(frozen=True)
class Lineup:
    """Who plays the timing matches: the timed seat holds the reference bot, then BOT."""

    reference: str
    others: tuple[str, ...]  # built-ins in the other seats, in seat order around the timed one
    timed_seat: int
    options: dict[str, Any] = field(default_factory=dict)
    matches: int = 1  # games whose matches are short are timed over several (seeds seed, seed+1...)

    def seats(self, timed: str) -> list[str]:
        names = list(self.others)
        names.insert(self.timed_seat, timed)
        return names


def lineup_for(game: str) -> Lineup | None:
    """The game's lineup, else the built-in ``random`` (or the first built-in) in every seat."""
    from games import get_plugin
    from judge.bots import builtin_bots

    plugin = get_plugin(game)
    if plugin.timing is not None:
        t = plugin.timing
        return Lineup(t.reference, t.others, t.timed_seat, dict(t.options), t.matches)
    builtins = list(builtin_bots(game))
    if not builtins:
        return None
    reference = "random" if "random" in builtins else builtins[0]
    others = (reference,) * (plugin.rules.min_seats - 1)
    return Lineup(reference, others, 0)


def default_game() -> str:
    from games import all_plugins

    timed = [n for n, p in all_plugins().items() if p.timing is not None and p.timing.default]
    if not timed:
        raise click.UsageError("no game is timed by default: name one with --game")
    return timed[0]


def ratio(bot: float, reference: float) -> float | None:
    return round(bot / reference, 3) if reference > 0 else None


def describe(name: str, stats: ResponseStats) -> str:
    return (
        f"  {name:<20} {stats.count:>7} answers   median {stats.median_ms:8.3f} ms   "
        f"mean {stats.mean_ms:8.3f} ms   p95 {stats.p95_ms:8.3f} ms   max {stats.max_ms:8.3f} ms"
    )


@click.command("time")
@click.argument("bot")
@click.option(
    "--game",
    default=None,
    help="game to time BOT in [default: the game whose original had a time command]",
)
@shared.SEED
@click.option(
    "--option",
    "-o",
    "extra",
    multiple=True,
    metavar="KEY=VALUE",
    help="game option for the timing matches (e.g. -o rounds=5)",
)
@click.option(
    "--matches",
    type=click.IntRange(1, 1000),
    default=None,
    help="matches per side, seeds SEED, SEED+1, ... (default: per game)",
)
@shared.ADAPTER
@shared.DEADLINE
@shared.JSON
def time_bot(
    bot: str,
    game: str | None,
    seed: int | None,
    extra: tuple[str, ...],
    matches: int | None,
    adapter: str | None,
    deadline: float,
    as_json: bool,
) -> None:
    """Compare BOT's response time with the game's reference built-in bot over many turns."""
    from judge.commands import common
    from judge.sandbox.select import default_sandbox

    if game is None:
        game = game_of(bot)
        if game is None:
            game = default_game()
            click.echo(
                f"no --game given and nothing in {bot!r} says which game it plays: timing it "
                f"in {game}, whose original had this command (another: --game GAME)",
                err=True,
            )
    game = common.game_name(game)
    lineup = lineup_for(game)
    if lineup is None:
        raise click.UsageError(f"{game} has no built-in bot to compare with")
    if deadline <= 0:
        raise click.UsageError("--deadline must be > 0")
    options = common.game_options(game, {**lineup.options, **common.parse_option_pairs(extra)})
    reference_specs = common.resolve_bots(game, tuple(lineup.seats(lineup.reference)), None)
    other_game = builtin_of_another_game(bot, game)
    if other_game:
        raise click.UsageError(
            f"{bot!r} is a built-in {other_game} bot, not a {game} one: "
            f"judge time {bot} --game {other_game}"
        )
    bot_spec = common.resolve_bots(game, (bot,), adapter)[0]
    bot_specs = list(reference_specs)
    bot_specs[lineup.timed_seat] = bot_spec
    seed = seed if seed is not None else random_seed()

    runs = matches or lineup.matches
    sides: list[list[PlayerResult]] = []
    stack = contextlib.ExitStack()
    for specs in (reference_specs, bot_specs):
        side: list[PlayerResult] = []
        for offset in range(runs):
            spec = MatchSpec(
                game=game, bots=specs, seed=seed + offset, options=options, turn_deadline=deadline
            )
            replay = None
            if specs is bot_specs and offset == 0:
                scratch = stack.enter_context(tempfile.TemporaryDirectory())
                replay = Path(scratch) / "first.replay"
            result: MatchResult = trio.run(_run, spec, default_sandbox(), replay)
            side.append(result.players[lineup.timed_seat])
            if replay is not None:
                foreign = off_rules_answers(replay, lineup.timed_seat)
                if foreign is not None:
                    raise click.ClickException(
                        f"{result.players[lineup.timed_seat].name} does not play {game}: "
                        f"{foreign}. Is it a bot of another game? Say which with --game"
                    )
            if side[-1].outcome != "ok":
                break
        sides.append(side)
    stack.close()
    reference, timed = (
        side[-1].model_copy(update={"response": ResponseStats.pooled([p.response for p in side])})
        for side in sides
    )
    median = ratio(timed.response.median_ms, reference.response.median_ms)
    mean = ratio(timed.response.mean_ms, reference.response.mean_ms)

    if as_json:
        click.echo(
            json.dumps(
                {
                    "game": game,
                    "seed": seed,
                    "matches": runs,
                    "options": options,
                    "reference": reference.model_dump(
                        mode="json", include={"name", "outcome", "response"}
                    ),
                    "bot": timed.model_dump(
                        mode="json", include={"name", "outcome", "reason", "response"}
                    ),
                    "ratio_median": median,
                    "ratio_mean": mean,
                }
            )
        )
    else:
        settings = ", ".join(f"{k}={v}" for k, v in options.items()) or "default options"
        seats = ", ".join(lineup.seats("BOT"))
        over = (
            f"{runs} matches per side, seeds {seed}..{seed + runs - 1}"
            if runs > 1
            else (f"seed {seed}")
        )
        click.echo(f"{game} ({settings}), {over}, seats: {seats}")
        click.echo(describe(f"{reference.name} (reference)", reference.response))
        click.echo(describe(timed.name, timed.response))
        if median is not None:
            click.echo(
                f"{timed.name} is {compared(median)} {reference.name} "
                f"(median response time; mean: {mean}x the reference's)"
            )
    if timed.outcome != "ok":
        click.echo(
            f"{timed.name} was disqualified ({timed.outcome}: {timed.reason}); "
            "its figures cover the turns before that",
            err=True,
        )
        raise SystemExit(1)


async def _run(spec: MatchSpec, sandbox: Any, replay: Path | None = None) -> MatchResult:
    from judge.runner import run_match

    return await run_match(spec, sandbox=sandbox, replay_path=replay)


def compared(ratio: float) -> str:
    """How a median response time compares with the reference's: ``1.3x faster than``."""
    if ratio >= 1.05:
        return f"{ratio:.1f}x slower than"
    if ratio <= 0.95:
        return f"{1 / ratio:.1f}x faster than" if ratio > 0 else "faster than"
    return "about as fast as"


def game_of(bot: str) -> str | None:
    """The one game BOT is for, when it says so: a built-in bot's name of one game only, or a
    .py file written for one game's original project (None when nothing says)."""
    from games import all_games
    from judge.adapters import PROTOCOL, detect_style
    from judge.bots import builtin_bots

    path = Path(bot)
    if not path.exists():
        games = [g for g in all_games() if bot in builtin_bots(g)]
        return games[0] if len(games) == 1 else None
    if path.suffix != ".py" or not path.is_file():
        return None
    try:
        source = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    games = [g for g in all_games() if detect_style(source, g) != PROTOCOL]
    return games[0] if len(games) == 1 else None


def builtin_of_another_game(bot: str, game: str) -> str | None:
    """The game whose built-in BOT names, when it is not one of ``game``'s and not a file."""
    from games import all_games
    from judge.bots import builtin_bots

    if Path(bot).exists() or bot in builtin_bots(game):
        return None
    return next((other for other in all_games() if bot in builtin_bots(other)), None)


def off_rules_answers(replay: Path, seat: int) -> str | None:
    """Why the seat's answers in a replay are no moves of its game, when most of them are not
    (a game that plays on whatever a bot answers, e.g. roshambolo, hides that otherwise)."""
    import random as _random

    from games import get_game
    from replays.reader import Header, ReplayReader, Turn

    state = None
    answered = foreign = 0
    example = ""
    for record in ReplayReader(replay):
        if isinstance(record, Header):
            header = record.header
            cls = get_game(header.game)
            state = cls(
                seats=len(header.players),
                options=cls.Options(**header.options),
                rng=_random.Random(0),
            )
        elif isinstance(record, Turn) and state is not None:
            order = state.orders_from_line(record.line).get(seat)
            if order is None:
                continue
            answered += 1
            note = state.off_rules(order)
            if note:
                foreign += 1
                example = example or note
    if state is not None and answered and foreign * 2 > answered:
        return f"{foreign} of its {answered} answers are no {state.name} moves (e.g. {example})"
    return None


COMMANDS = [time_bot]
