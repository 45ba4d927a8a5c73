"""The commands' options: shared ones written once, game and format flags from the games."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import textwrap
from pathlib import Path

import click

from tests.conftest import ROOT


def bot_commands() -> list[click.Command]:
    from judge.commands.evaluate import evaluate_command
    from judge.commands.match import match
    from judge.commands.play import play
    from judge.commands.timing import time_bot
    from judge.commands.tourney import tourney

    return [match, tourney, evaluate_command, play, time_bot]


def every_param(command: click.Command) -> list[click.Parameter]:
    """The command's options as ``--help`` lists them (the games' flags included)."""
    # No GAME: every game's flags, then a usage error.
    with click.Context(command) as ctx, contextlib.suppress(click.UsageError):
        command.parse_args(ctx, [])
    return command.params


def test_an_option_of_several_commands_has_one_help_text() -> None:
    helps: dict[str, set[str]] = {}
    for command in bot_commands():
        for param in every_param(command):
            if isinstance(param, click.Option) and param.name != "extra":
                helps.setdefault(param.opts[0], set()).add(param.help or "")
    drifted = {flag: texts for flag, texts in helps.items() if len(texts) > 1}
    assert not drifted
    assert {"--seed", "--deadline", "--startup", "--sandbox", "--json", "--turns"} <= set(helps)


def test_match_tourney_and_evaluate_take_the_same_bot_options() -> None:
    from judge.commands.evaluate import evaluate_command
    from judge.commands.match import match
    from judge.commands.tourney import tourney

    def flags(command: click.Command) -> set[str]:
        return {p.opts[0] for p in every_param(command) if isinstance(p, click.Option)}

    assert flags(match) - {"--replay"} <= flags(tourney)
    assert flags(match) - {"--replay"} <= flags(evaluate_command)
    assert flags(tourney) - flags(evaluate_command) == {"--games", "--runs"}


# A sixth game in a folder outside the repository (appended to the games package's path):
# its own option flag and its own format with a setting of its own.
THROWAWAY_GAME = """
from typing import ClassVar

from pydantic import Field

from games.plugin import GamePlugin
from games.rps.rules import Rps, RpsOptions
from games.tourney import FormatSettings, PlannedMatch, TourneyFormat


class LegsOptions(RpsOptions):
    flags: ClassVar[tuple[str, ...]] = ("turns", "handicap")
    handicap: int = Field(0, ge=0, le=5, description="turns the first seat gives away")


class Legs(Rps):
    name: ClassVar[str] = "legs"
    Options: ClassVar[type[RpsOptions]] = LegsOptions


class LegsSettings(FormatSettings):
    legs: int = Field(2, ge=1, le=9, description="matches of every pair")


class EveryPairInLegs(TourneyFormat):
    description = "every pair, several legs"
    Settings = LegsSettings

    def plan(self, spec):
        legs = spec.settings["legs"]
        return [PlannedMatch(k + 1, (0, 1), dict(spec.options)) for k in range(legs)]


GAME = GamePlugin(rules=Legs, format=EveryPairInLegs())
"""

RUN_WITH_THE_GAME = """
import sys

import games

games.__path__.append(sys.argv[1])

if sys.argv[2] == "plan":
    from judge.models import BotSpec
    from judge.tournament import TourneySpec, plan

    bots = [BotSpec(name=n, argv=("-",)) for n in "ab"]
    spec = TourneySpec(game="legs", bots=bots, settings={"legs": 3}, options={"handicap": 1})
    old = TourneySpec(game="legs", bots=bots, legs=4)  # as stored before ``settings``
    print(len(plan(spec)), len(plan(old)), spec.settings, old.settings)
else:
    from judge.cli import main

    main(sys.argv[2:], prog_name="judge")
"""


def run_with_game(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    folder = tmp_path / "more_games"
    (folder / "legs").mkdir(parents=True, exist_ok=True)
    (folder / "legs" / "__init__.py").write_text("")
    (folder / "legs" / "game.py").write_text(textwrap.dedent(THROWAWAY_GAME))
    return subprocess.run(
        [sys.executable, "-c", RUN_WITH_THE_GAME, str(folder), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )


def test_a_new_games_flags_and_format_settings_reach_the_cli_from_its_folder(
    tmp_path: Path,
) -> None:
    shown = run_with_game(tmp_path, "tourney", "--help")
    assert shown.returncode == 0, shown.stderr
    help_text = " ".join(shown.stdout.split())
    assert "--legs INTEGER legs: matches of every pair [default: 2]" in help_text
    assert "--handicap INTEGER legs: turns the first seat gives away" in help_text
    assert "legs: turns in the match" in help_text and "rps: turns in the match" in help_text
    assert "--games INTEGER liarsdice:" in help_text  # the five games' flags stay

    match_help = " ".join(run_with_game(tmp_path, "match", "--help").stdout.split())
    assert "--handicap" in match_help and "--legs" not in match_help

    for args, needle in [
        (["tourney", "legs", "rock", "paper", "--legs", "0"], "--legs:"),
        (["tourney", "legs", "rock", "paper", "--handicap", "9"], "--handicap:"),
        (["tourney", "rps", "rock", "paper", "--legs", "2"], "--legs does not apply"),
        (["match", "rps", "rock", "paper", "--handicap", "1"], "--handicap does not apply"),
    ]:
        refused = run_with_game(tmp_path, *args)
        assert refused.returncode == 2, (args, refused.stderr)
        assert needle in refused.stderr and "Traceback" not in refused.stderr, args

    planned = run_with_game(tmp_path, "plan")
    assert planned.returncode == 0, planned.stderr
    assert planned.stdout.split()[:2] == ["3", "4"]


GAMES_3 = ("--games", "3", "--seed", "1", "--json")


def test_tourney_settings_flags_reach_the_format(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "judge.cli", "tourney", "liarsdice", "computer", "robot", *GAMES_3],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert '"games":3' in proc.stdout.replace(" ", "")
