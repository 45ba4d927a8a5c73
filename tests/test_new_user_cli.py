"""What a new user met on the command line (issue 31), each run as a real `judge` process:
a crashed Python bot's exception and line, a TOML error in bot.toml, "1 turn", `judge time`'s
comparison and game, tron's --summary, counting's boards, `judge tourney` leaving nothing
behind, and `judge new` saying what a server needs."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_cli import judge

CRASHY = """\
import sys

def answer(x):
    return 1 / x

for line in sys.stdin:
    if line.strip() == ".":
        print(answer(0))
"""


def test_a_crashed_python_bot_shows_its_exception_and_line(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    bot = tmp_path / "crashy.py"
    bot.write_text(CRASHY)
    table = judge("match", "rps", str(bot), "rock", "--turns", "3")
    assert table.returncode == 0, table.stderr
    flat = " ".join(table.stdout.split())  # (rich wraps long lines)
    assert f'stderr: File "{bot}", line 4, in answer' in flat, table.stdout
    assert "stderr: ZeroDivisionError: division by zero" in flat
    result = json.loads(judge("match", "rps", str(bot), "rock", "--turns", "3", "--json").stdout)
    reason = result["players"][0]["reason"]
    assert (
        reason == "exited with status 1: ZeroDivisionError: division by zero (line 4 of crashy.py)"
    )


def test_a_toml_error_in_bot_toml_says_so_without_an_unrelated_hint(tmp_path: Path) -> None:
    box = tmp_path / "bot"
    box.mkdir()
    (box / "bot.toml").write_text('run = "./bot\n')
    proc = judge("match", "rps", str(box), "rock")
    assert proc.returncode == 2
    assert "bot.toml is not valid TOML" in proc.stderr and "--allow-path" not in proc.stderr


def test_one_turn_is_one_turn() -> None:
    proc = judge("match", "rps", "rock", "paper", "--turns", "1")
    assert "· 1 turn" in proc.stdout and "1 turns" not in proc.stdout, proc.stdout
    tourney = judge("tourney", "rps", "rock", "paper", "--turns", "1")
    assert "(1 match," in tourney.stdout, tourney.stdout


def test_time_says_faster_for_a_faster_bot_and_takes_the_game_from_the_bot(
    tmp_path: Path,
) -> None:
    from judge.commands.timing import compared

    assert compared(0.8) == "1.2x faster than"
    assert compared(2.0) == "2.0x slower than" and compared(1.0) == "about as fast as"
    tmp_path.chmod(0o755)
    agent = tmp_path / "agent.py"
    agent.write_text("def agent(observation, configuration):\n    return 1\n")
    proc = judge("time", str(agent), "-o", "turns=50")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("rps (") and "no --game" not in proc.stderr, proc.stdout
    assert (
        "x slower than" in proc.stdout
        or "faster than" in proc.stdout
        or "as fast as" in (proc.stdout)
    )
    unknown = tmp_path / "plain.py"
    unknown.write_text(
        "import sys\nfor line in sys.stdin:\n    if line.strip() == '.':\n        print('1\\n.')\n"
    )
    said = judge("time", str(unknown), "-o", "race_to=5", "-o", "rounds=1", "--matches", "1")
    assert "no --game given" in said.stderr, said.stderr


def test_tron_summary_shows_its_grid_as_lines(tmp_path: Path) -> None:
    replay = tmp_path / "t.replay"
    judge("match", "tron", "flood", "random", "--seed", "3", "--replay", str(replay))
    proc = judge("replay", str(replay), "--summary")
    assert proc.returncode == 0, proc.stderr
    assert "\\n" not in proc.stdout and "map=arena, grid:" in proc.stdout
    assert "###############" in proc.stdout


def test_tourney_without_replays_leaves_nothing_and_counting_boards_read_plainly(
    tmp_path: Path,
) -> None:
    proc = judge(
        "tourney", "counting", "naive", "crab", "random", "--rounds", "20", "--runs", "3",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert list(tmp_path.iterdir()) == [], "a tourney-* folder left behind"
    assert "replays:" not in proc.stdout
    flat = " ".join(proc.stdout.split())
    assert "shown /" not in flat and "(the average of 3 runs)" in flat
    kept = judge("tourney", "rps", "rock", "paper", "--turns", "3", "--replays", "r", cwd=tmp_path)
    assert kept.returncode == 0 and len(list((tmp_path / "r").glob("*.replay"))) == 1


def test_new_rust_says_a_server_needs_rustc_on_its_bots_path(tmp_path: Path) -> None:
    proc = judge("new", "rps", "rust", str(tmp_path / "kit"))
    assert proc.returncode == 0, proc.stderr
    assert "its own rustc, which must be on its bots' PATH" in proc.stdout, proc.stdout
