"""Resolving BOT arguments into runnable bots, then running them for real."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from judge.bots import BotError, check_command, resolve
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


# -- no host path from a bot's command line (issue 11 §2) ------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "./bot /srv/judge-data",
        "python3 /home/alice/bot.py",
        "/root/.cargo/bin/mybot",
        "../other-bot/bot",
        "./bot ../../judge.sqlite3",
        "node --require=/srv/x bot.js",
        "cc -I/root/include -o bot main.c",
        'sh -c "cat /var/lib/judge/db"',
        "~/bin/bot",
    ],
)
def test_commands_naming_host_paths_are_refused(command: str) -> None:
    with pytest.raises(BotError, match=r"cannot be used: .* (outside|leads out|home)"):
        check_command(command)


@pytest.mark.parametrize(
    "command",
    [
        "./bot",
        "python3 bot.py --fast",
        "/usr/bin/python3 -u bot.py",
        "node lib/main.js",
        "cc -O2 -o bot main.c",
        "make",
        'sh -c \'cp -R src "$HOME/w" && make -C "$HOME/w"\'',
        "java -cp classes:lib/x.jar Main",
    ],
)
def test_commands_inside_the_box_or_the_system_are_accepted(command: str) -> None:
    assert check_command(command) == shlex.split(command)


def test_a_directory_bot_naming_an_outside_file_needs_allow_path(tmp_path: Path) -> None:
    secret_dir = tmp_path / "elsewhere"
    secret_dir.mkdir()
    (secret_dir / "secret").write_text("s3cret\n")
    box = tmp_path / "bot"
    box.mkdir()
    (box / "bot.toml").write_text(f'run = "/bin/cat {secret_dir}/secret"\n')
    with pytest.raises(BotError, match=r"outside the bot's directory.*--allow-path"):
        resolve(str(box), "rps")
    spec = resolve(str(box), "rps", allowed=[secret_dir])
    assert spec.readonly_paths == (secret_dir.resolve(),)


def test_a_command_bot_with_files_in_two_directories_needs_allow_path(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "bot.js").write_text("")
    (tmp_path / "b" / "data.txt").write_text("")
    command = f"node {tmp_path}/a/bot.js {tmp_path}/b/data.txt"
    with pytest.raises(BotError, match="--allow-path"):
        resolve(command, "rps")
    spec = resolve(command, "rps", allowed=[tmp_path / "b"])
    assert spec.box == tmp_path / "a" and spec.readonly_paths == (tmp_path / "b",)


VENV_BOT = """
import sys, onlyhere
for line in sys.stdin:
    if line.startswith("END"):
        break
    if line.strip() == ".":
        print(onlyhere.MOVE + "\\n.", flush=True)
"""


def venv_with_a_module(tmp_path: Path) -> tuple[Path, Path]:
    """A virtual environment holding a module no other Python has, and a bot importing it."""
    import subprocess
    import sys
    import sysconfig

    venv = tmp_path / "env"
    base = Path(sys.base_prefix) / "bin" / "python3"
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)})
    Path(purelib).mkdir(parents=True, exist_ok=True)
    (Path(purelib) / "onlyhere.py").write_text('MOVE = "P"\n')
    box = tmp_path / "box"
    box.mkdir()
    (box / "bot.py").write_text(VENV_BOT)
    return venv, box


async def test_a_virtual_environments_python_runs_that_environment(tmp_path: Path) -> None:
    """`ENV/bin/python bot.py`: the environment's packages, not the base interpreter's."""
    venv, box = venv_with_a_module(tmp_path)
    command = f"{venv}/bin/python {box}/bot.py"
    with pytest.raises(BotError, match="--allow-path"):
        resolve(command, "rps")
    bot = resolve(command, "rps", allowed=[venv])
    assert bot.argv[0] == f"{venv}/bin/python"
    result = await run_match(rps_spec(bot, builtin("rps", "rock"), turns=5))
    assert result.players[0].outcome == "ok", result.players[0].stderr
    assert [p.score for p in result.players] == [5, 0]


HASH_BOT = """
import botlib
for turn, _ in enumerate(botlib.messages()):
    botlib.answer("RPS"[hash(f"turn {turn}") % 3])
"""


async def test_a_python_bots_string_hashes_are_the_same_every_run(tmp_path: Path) -> None:
    (tmp_path / "hashes.py").write_text(HASH_BOT)
    bot = resolve(str(tmp_path / "hashes.py"), "rps")
    scores = set()
    for _ in range(3):
        result = await run_match(rps_spec(bot, builtin("rps", "cycle"), turns=30))
        assert result.players[0].outcome == "ok", result.players[0].stderr
        scores.add(tuple(p.score for p in result.players))
    assert len(scores) == 1, scores
