"""Resolving BOT arguments into runnable bots, then running them for real."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from judge.bots import BotError, resolve
from judge.runner import run_match
from tests.conftest import ROOT, builtin, rps_spec


async def test_directory_with_manifest_builds_then_runs(tmp_path: Path) -> None:
    box = tmp_path / "mybot"
    box.mkdir()
    shutil.copy(ROOT / "bots/examples/c/rps_bot.c", box / "main.c")
    (box / "bot.toml").write_text('name = "cbot"\nbuild = "cc -O2 -o bot main.c"\nrun = "./bot"\n')
    spec = resolve(str(box), "rps")
    assert spec.name == "cbot"
    assert (box / "bot").exists()
    result = await run_match(rps_spec(spec, builtin("rps", "rock"), turns=10))
    # The C example answers what beats the enemy's last move: paper from turn 2 on.
    assert [p.score for p in result.players] == [9, 0]


def test_manifest_errors_are_clear(tmp_path: Path) -> None:
    box = tmp_path / "b"
    box.mkdir()
    with pytest.raises(BotError, match=r"without a bot\.toml"):
        resolve(str(box), "rps")
    (box / "bot.toml").write_text("run = 3\n")
    with pytest.raises(BotError, match="needs a run command"):
        resolve(str(box), "rps")
    (box / "bot.toml").write_text('run = "./x"\nbuild = "false"\n')
    with pytest.raises(BotError, match="failed"):
        resolve(str(box), "rps")
    (box / "bot.toml").write_text('run = "./x"\nbuild = ""\n')
    with pytest.raises(BotError, match="build must be a command string"):
        resolve(str(box), "rps")
    (box / "bot.toml").write_text('run = "./x \'unclosed"\n')
    with pytest.raises(BotError, match="cannot parse the run command"):
        resolve(str(box), "rps")
    (box / "bot.toml").write_text("run = [\n")
    with pytest.raises(BotError, match=r"bot\.toml"):
        resolve(str(box), "rps")


def test_c_source_is_compiled_on_first_use(tmp_path: Path) -> None:
    source = tmp_path / "bot.c"
    shutil.copy(ROOT / "bots/examples/c/rps_bot.c", source)
    spec = resolve(str(tmp_path / "bot"), "rps")
    assert Path(spec.argv[0]) == (tmp_path / "bot").resolve()
    broken = tmp_path / "broken.c"
    broken.write_text("int main( {")
    with pytest.raises(BotError, match="compiling"):
        resolve(str(broken), "rps")


def test_command_string_and_builtins() -> None:
    spec = resolve("node bots/examples/js/rps.js", "rps")
    assert spec.argv[0].endswith("node")
    assert spec.argv[1] == str((ROOT / "bots/examples/js/rps.js").resolve())
    assert resolve("rock", "rps").name == "rock"
    with pytest.raises(BotError, match="built-ins: rock"):
        resolve("rocket", "rps")
