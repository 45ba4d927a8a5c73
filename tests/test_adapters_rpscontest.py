"""rpscontest.com programs, run unchanged through games/rps/adapter.py in the rps game."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.bots import resolve
from judge.models import BotSpec, MatchResult, MatchSpec
from judge.runner import run_match
from tests.conftest import TEST_BOTS, builtin

ORIGINAL = TEST_BOTS / "original" / "rpscontest"


def program(name: str, adapter: str | None = None) -> BotSpec:
    return resolve(str(ORIGINAL / f"{name}.py"), "rps", adapter=adapter)


async def play(
    first: BotSpec, second: str, turns: int = 20, seed: int = 1, replay: Path | None = None
) -> MatchResult:
    spec = MatchSpec(
        game="rps", bots=[first, builtin("rps", second)], seed=seed, options={"turns": turns}
    )
    return await run_match(spec, replay_path=replay)


def test_programs_are_detected_by_their_output_global() -> None:
    # [python, -s, adapter, file] and, for an entry run as Python 2, its translation
    assert program("freq").argv[2].endswith("games/rps/adapter.py")
    assert program("cycle_main").argv[2].endswith("games/rps/adapter.py")


def test_output_only_read_in_an_assignment_does_not_make_an_entry() -> None:
    from judge.adapters import detect_style

    # `counts[output] = ...` stores into counts, not into output: a protocol bot
    source = (
        "import sys\ncounts = {}\noutput = None\nfor line in sys.stdin:\n    counts[line] = 1\n"
    )
    assert detect_style(source, "rps") == "rpscontest"  # (output = None assigns it)
    source = "import sys\ncounts = {}\nfor output in sys.stdin:\n    counts[output] = 1\n"
    assert detect_style(source, "rps") == "protocol"


async def test_an_entry_that_assigns_output_through_a_tuple_is_an_entry(tmp_path: Path) -> None:
    entry = tmp_path / "pair.py"
    entry.write_text(
        "def act(n):\n    return 'RPS'[n % 3], n + 1\n"
        "if input == '':\n    n = 0\noutput, n = act(n)\n"
    )
    result = await play(resolve(str(entry), "rps"), "rock", turns=6)
    assert [p.outcome for p in result.players] == ["ok", "ok"]
    assert [p.score for p in result.players] == [2, 2]  # R P S R P S against rock


async def test_frequency_counter_beats_rock_every_round() -> None:
    result = await play(program("freq"), "rock", turns=50)
    assert [p.score for p in result.players] == [50, 0]
    assert [p.outcome for p in result.players] == ["ok", "ok"]


async def test_input_is_empty_first_then_the_opponents_previous_move() -> None:
    # echo plays R, then whatever cycle played last; cycle's next move beats its last one.
    result = await play(program("echo"), "cycle", turns=30)
    assert [p.score for p in result.players] == [0, 29]


async def test_namespace_persists_and_name_is_main() -> None:
    # cycle_main counts rounds in a global and only sets output under the __main__ guard.
    result = await play(program("cycle_main"), "rock", turns=20)
    assert [p.score for p in result.players] == [7, 6]
    assert result.players[0].outcome == "ok"


async def test_prints_never_reach_the_protocol() -> None:
    result = await play(program("noisy"), "rock", turns=20)
    assert [p.score for p in result.players] == [20, 0]
    assert "round with input ''" in result.players[0].stderr
    assert "round with input 'R'" in result.players[0].stderr


async def test_an_output_that_is_not_exactly_r_p_or_s_disqualifies() -> None:
    result = await play(program("bad_output"), "rock", turns=20)
    bad, rock = result.players
    assert (bad.outcome, bad.turn) == ("invalid_order", 3)
    assert "output='RP'" in bad.reason
    assert "output is 'RP'; it must be exactly 'R', 'P' or 'S'" in bad.stderr
    assert rock.outcome == "ok" and result.winner == 1
    assert result.turns == 2


async def test_an_exception_is_a_crash_naming_it_and_its_line() -> None:
    result = await play(program("raises"), "rock", turns=20)
    failed = result.players[0]
    assert (failed.outcome, failed.turn) == ("crash", 2)
    assert "Traceback" in failed.stderr
    last = failed.stderr.strip().splitlines()[-1]
    assert last == "KeyError: 'R' (line 5 of raises.py)", last
    assert result.winner == 1


async def test_a_python2_program_is_detected_and_runs_translated() -> None:
    # More in test_adapters_python2.py (a program that cannot be translated, Python 2 meaning).
    result = await play(program("py2"), "rock")
    assert [p.outcome for p in result.players] == ["ok", "ok"]
    assert [p.score for p in result.players] == [0, 0]  # R against rock every round
    assert result.players[0].stderr.startswith("hello\n")


@pytest.mark.parametrize("seed", [5, 6])
async def test_random_is_seeded_per_bot(tmp_path: Path, seed: int) -> None:
    bodies = []
    for run in range(2):
        replay = tmp_path / f"{run}.replay"
        await play(program("seeded"), "rock", turns=60, seed=seed, replay=replay)
        bodies.append([x for x in replay.read_text().splitlines() if not x.startswith("#")])
    assert bodies[0] == bodies[1]
    moves = {line.split(" ")[2] for line in bodies[0]}
    assert moves == {"R", "P", "S"}


def test_judge_match_runs_a_program_unchanged() -> None:
    import json
    import subprocess
    import sys

    from tests.conftest import ROOT

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "judge.cli",
            "match",
            "rps",
            str(ORIGINAL / "freq.py"),
            "rock",
            "--turns",
            "50",
            "--seed",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert [p["score"] for p in result["players"]] == [50, 0]
    assert result["players"][0]["name"] == "freq" and result["winner"] == 0
