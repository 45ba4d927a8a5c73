"""Starter kits: `judge new GAME LANGUAGE DIR` writes a bot that every game's real match
accepts as it is, in every language whose toolchain this machine has."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from games import all_plugins, get_plugin
from judge.bots import builtin_bots
from judge.kits import LANGUAGES
from judge.packing import pack_directory
from tests.conftest import ROOT

GAMES = list(all_plugins())
# Short matches against a built-in that plays every turn; with a third seat where the game
# then plays its bigger form (counting's arena, roshambolo's tourney, liar's dice's table).
OPPONENTS = {
    "rps": ["predictor"],
    "roshambolo": ["counter", "rock"],
    "liarsdice": ["computer", "robot"],
    "counting": ["naive", "crab"],
    "tron": ["flood"],
}
OPTIONS = {"rps": ["--turns", "30"], "roshambolo": ["--rounds", "2", "--race-to", "5"],
           "counting": ["--rounds", "30"]}  # fmt: skip
# Compiled kits cost a build per game: they are tested in test_kits_compiled.py (slow).
COMPILED = ["c", "cpp", "rust", "go", "java"]
INTERPRETED = [lang for lang in LANGUAGES if lang not in COMPILED]


def judge(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def test_every_game_has_every_language_and_opponents() -> None:
    for game in GAMES:
        plugin = get_plugin(game)
        assert all(plugin.kit(language) for language in LANGUAGES), game
        assert (plugin.folder / "kits" / "README.md").is_file()
        assert set(OPPONENTS[game]) <= set(builtin_bots(game))


@pytest.mark.parametrize("language", INTERPRETED)
@pytest.mark.parametrize("game", GAMES)
def test_a_kit_plays_a_real_match_legally(game: str, language: str, tmp_path: Path) -> None:
    play_kit(game, language, tmp_path)


def play_kit(game: str, language: str, tmp_path: Path) -> None:
    """`judge new` into tmp_path, then a real match against the game's built-ins."""
    missing = [p for p in LANGUAGES[language].programs if shutil.which(p) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed (the {language} kit needs it)")
    bot = tmp_path / "mybot"
    made = judge("new", game, language, str(bot))
    assert made.returncode == 0, made.stderr
    assert (bot / "bot.toml").is_file() and (bot / "README.md").is_file()
    played = judge(
        "match", game, str(bot), *OPPONENTS[game], *OPTIONS.get(game, []), "--seed", "3",
        "--json",
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    result = json.loads(played.stdout)
    kit = result["players"][0]
    assert kit["name"] == "mybot"
    assert kit["outcome"] == "ok", kit
    assert kit["response"]["count"] > 0
    # What `judge submit` would send: the sources and bot.toml, not what the build made.
    packed = pack_directory(bot)
    assert "bot.toml" in packed.files and "README.md" in packed.files


def test_the_default_directory_and_what_it_says(tmp_path: Path) -> None:
    made = judge("new", "rps", "py", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "play it:  judge match rps ./rps-python random\n" in made.stdout  # judge play's pick
    readme = (tmp_path / "rps-python" / "README.md").read_text()
    # The game's own page, under the kit's headings: its messages and its END line.
    assert readme.startswith("# A Python starter bot for rps\n")
    assert "## rps: rock-paper-scissors" in readme and "END <rank> <score 1> <score 2>" in readme
    assert 'run = "python3 bot.py"' in readme


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["chess", "python"], "unknown game 'chess' (known games: counting, liarsdice,"),
        (["rps", "cobol"], "unknown language 'cobol' (known languages: c, cpp, python,"),
        (["rps", "c", "taken"], "taken already exists and is not an empty directory"),
        (["rps", "c", "taken/file"], "taken/file already exists and is not an empty directory"),
    ],
)
def test_bad_arguments_are_one_error_line(args: list[str], error: str, tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "file").write_text("mine\n")
    proc = judge("new", *args, cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and error in proc.stderr, proc.stderr
    assert (tmp_path / "taken" / "file").read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_an_empty_directory_is_filled(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    proc = judge("new", "tron", "c", "empty", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert {"bot.c", "bot.toml", "README.md"} <= {p.name for p in (tmp_path / "empty").iterdir()}
