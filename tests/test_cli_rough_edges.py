"""Issue 14's CLI rough edges, each run as a real `judge` process: unreachable servers,
seat counts in words, `.js` files, `judge time` on another game's bot, repeated names."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_cli import judge
from tests.test_imports import imported_by


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    "args",
    [
        ["submit", str(ROOT / "bots/examples/sh/rps.sh"), "--game", "rps", "--token", "T"],
        ["submit", str(ROOT / "bots/examples"), "--token", "T"],
        ["remote", "match", "rps", "a", "b", "--token", "T"],
        ["remote", "watch", "m1"],
        ["remote", "show", "m1"],
    ],
)
def test_every_client_command_says_in_one_line_that_the_server_is_unreachable(
    args: list[str], tmp_path: Path
) -> None:
    (tmp_path / "bot.toml").write_text('run = "./bot"\n')
    args = [str(tmp_path) if a == str(ROOT / "bots/examples") else a for a in args]
    server = f"http://127.0.0.1:{closed_port()}"
    proc = judge(*args, "--server", server)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"cannot reach {server}" in lines[0], proc.stderr


def test_a_server_that_is_not_a_url_is_a_usage_error() -> None:
    proc = judge("remote", "show", "m1", "--server", "ftp://example.org")
    assert proc.returncode == 2 and "not an http:// or https:// URL" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_seat_counts_read_as_words() -> None:
    from games import get_game

    rps, liarsdice = get_game("rps"), get_game("liarsdice")
    with pytest.raises(ValueError, match=r"^rps takes 2 bots, got 3$"):
        rps.check_setup(3, rps.Options())
    with pytest.raises(ValueError, match=r"^liarsdice takes 2 to \d+ bots, got 1$"):
        liarsdice.check_setup(1, liarsdice.Options())


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_a_js_file_runs_with_node_as_it_does_on_the_server(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)  # the sandbox's unprivileged uid reads the bot
    bot = tmp_path / "paper.js"
    bot.write_text(
        'const rl = require("readline").createInterface({input: process.stdin});\n'
        'rl.on("line", (l) => { if (l === ".") console.log("P\\n."); });\n'
    )
    proc = judge("match", "rps", str(bot), "rock", "--turns", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    assert '"summary":"3-0"' in proc.stdout, proc.stdout


def test_a_file_is_what_the_server_would_take_it_for(tmp_path: Path) -> None:
    from judge.bots import BotError, file_launch
    from judge.server.uploads import UploadRefused, launch_for

    for name, body in (
        ("a.js", "x"),
        ("b.py", "x"),
        ("c.c", "x"),
        ("d", "#!/bin/sh\n"),
        ("e.txt", "hello"),
    ):
        (tmp_path / name).write_text(body)
        try:
            local = file_launch(tmp_path / name)
        except BotError as exc:
            with pytest.raises(UploadRefused, match="neither an executable"):
                launch_for(tmp_path, name)
            assert "neither an executable" in str(exc)
            continue
        served = launch_for(tmp_path, name)
        assert (served.run or served.file, served.build) == (local.run, local.build)


def test_time_refuses_a_builtin_of_another_game() -> None:
    proc = judge("time", "predictor", "--game", "roshambolo")
    assert proc.returncode == 2
    assert "built-in rps bot" in proc.stderr and "--game rps" in proc.stderr
    # Without --game, a built-in's name says its game.
    inferred = judge("time", "predictor", "-o", "turns=100")
    assert inferred.returncode == 0, inferred.stderr
    assert inferred.stdout.startswith("rps (turns=100)"), inferred.stdout


def test_time_notices_a_bot_of_another_game_that_roshambolo_would_play_anyway() -> None:
    proc = judge(
        "time",
        str(ROOT / "bots/examples/python/rps_bot.py"),
        "--matches",
        "1",
        "-o",
        "rounds=1",
        "-o",
        "race_to=20",
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "does not play roshambolo" in proc.stderr and "--game" in proc.stderr
    assert "slower than" not in proc.stdout


def test_repeated_names_say_where_each_bot_comes_from(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    shutil.copy(ROOT / "bots/examples/python/rps_bot.py", mine / "cycle.py")
    proc = judge(
        "tourney",
        "rps",
        "cycle",
        str(mine / "cycle.py"),
        "--turns",
        "5",
        "--replays",
        str(tmp_path / "r"),
    )
    assert proc.returncode == 0, proc.stderr
    assert "cycle: built-in rps bot cycle" in proc.stdout
    assert f"cycle#2: {mine / 'cycle.py'}" in proc.stdout
    proc = judge("match", "rps", "cycle", str(mine / "cycle.py"), "--turns", "5")
    assert "seat 1 cycle: built-in rps bot cycle" in proc.stdout
    assert f"seat 2 cycle: {mine / 'cycle.py'}" in proc.stdout


def test_the_match_table_says_why_a_bot_failed(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    bot = tmp_path / "crashy.py"
    bot.write_text(
        "import sys\nfor line in sys.stdin:\n    if line.strip() == '.':\n        print(1 / 0)\n"
    )
    proc = judge("match", "rps", str(bot), "rock", "--turns", "3")
    assert proc.returncode == 0, proc.stderr
    assert "seat 1 crashy: crash in turn 1: exited with status 1" in proc.stdout
    assert "stderr: ZeroDivisionError: division by zero" in proc.stdout


def test_help_imports_no_command_module_and_every_command_is_listed() -> None:

    import click

    from judge.cli import COMMANDS, main

    modules, out, _ = imported_by("judge", "--help")
    for heavy in ("trio", "pydantic", "httpx", "structlog", "rich", "games", "judge.commands"):
        assert heavy not in modules, heavy
    assert {m for m in modules if m.split(".")[0] == "judge"} == {"judge", "judge.cli"}
    for name in COMMANDS:
        assert f"  {name} " in out
    ctx = click.Context(main)
    for name, (module_name, _) in COMMANDS.items():
        command = main.get_command(ctx, name)
        assert command is not None and command.name == name, name
        module = __import__(module_name, fromlist=["COMMANDS"])
        assert {c.name for c in module.COMMANDS} <= set(COMMANDS), module_name
