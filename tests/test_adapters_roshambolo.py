"""Roshambolo bot files of the original's kind, run unchanged through the roshambolo adapter."""

from __future__ import annotations

import json
from pathlib import Path

from games.seeds import game_rng, secret_from_seed
from judge.bots import resolve
from judge.models import BotSpec, MatchResult, MatchSpec
from judge.runner import run_match
from tests.conftest import TEST_BOTS, builtin

ORIGINAL = TEST_BOTS / "original" / "roshambolo"


def bot(name: str) -> BotSpec:
    if (ORIGINAL / f"{name}.py").is_file():
        return resolve(str(ORIGINAL / f"{name}.py"), "roshambolo")
    return builtin("roshambolo", name)


async def play(
    tmp_path: Path, *names: str, seed: int = 1, race_to: int = 20, rounds: int = 1, tag: str = ""
) -> tuple[MatchResult, list[str]]:
    replay = tmp_path / f"{'-'.join(names)}{tag}.replay"
    spec = MatchSpec(
        game="roshambolo",
        bots=[bot(n) for n in names],
        seed=seed,
        options={"race_to": race_to, "rounds": rounds},
    )
    result = await run_match(spec, replay_path=replay)
    body = [line for line in replay.read_text().splitlines() if not line.startswith("#")]
    return result, body


def test_bot_files_are_detected_as_roshambolo_modules() -> None:
    spec = bot("p_counter")
    assert spec.argv[2].endswith("games/roshambolo/adapter.py")
    assert spec.argv[3] == str(ORIGINAL / "p_counter.py")


async def test_observing_counter_file_plays_exactly_like_the_builtin(tmp_path: Path) -> None:
    # The counter's choices depend on every round it observes, its own games and the others'.
    by_file, file_lines = await play(tmp_path, "rock", "random", "p_counter", rounds=3)
    by_builtin, builtin_lines = await play(tmp_path, "rock", "random", "counter", rounds=3)
    assert file_lines == builtin_lines
    assert [p.score for p in by_file.players] == [3, 0, 6]
    assert [p.outcome for p in by_file.players] == ["ok"] * 3
    assert by_file.summary == by_builtin.summary


async def test_rock_file_against_counter_file(tmp_path: Path) -> None:
    result, lines = await play(tmp_path, "p_rock", "p_counter", race_to=100, seed=4)
    assert result.winner == 1 and result.summary.endswith("-100")
    assert all(line.endswith(" beats") for line in lines[1:])


async def test_prints_never_reach_the_protocol(tmp_path: Path) -> None:
    _, quiet_lines = await play(tmp_path, "p_counter", "random", rounds=2, seed=9)
    loud, loud_lines = await play(tmp_path, "p_loud", "random", rounds=2, seed=9)
    assert loud_lines == quiet_lines
    assert loud.players[0].outcome == "ok"
    stderr = loud.players[0].stderr
    assert stderr.startswith("loading p_loud\n")
    assert "thinking about game 1" in stderr and "2\n.\n3\n.\n" in stderr


async def test_answers_are_converted_with_int_as_the_original_does(tmp_path: Path) -> None:
    result, lines = await play(tmp_path, "p_convert", "p_rock", race_to=12, seed=2)
    assert result.players[0].outcome == "ok"
    seat_label = result.players[0].label
    answers, shapes = [], []
    for line in lines:
        f = line.split(" ")
        side = 0 if f[1] == seat_label else 1
        answers.append(f[3 + side])
        shapes.append(int(f[5 + side]))
    # "2", 2.7, True, None, "2.7", 7, an exception, input() at EOF; then 3 forever.
    assert answers[:9] == ["2", "2", "1", "0", "0", "7", "0", "0", "3"]
    assert shapes[:3] == [2, 2, 1] and shapes[8] == 3
    assert all(1 <= s <= 3 for s in shapes[3:8])
    stderr = result.players[0].stderr
    assert "TypeError" in stderr and "ValueError" in stderr and "RuntimeError" in stderr
    assert "EOFError" in stderr


async def test_every_bot_observes_every_round_of_a_tourney(tmp_path: Path) -> None:
    result, lines = await play(
        tmp_path, "p_watcher", "p_counter", "rock", race_to=5, rounds=2, seed=3
    )
    assert [p.outcome for p in result.players] == ["ok"] * 3
    summary_line = next(x for x in result.players[0].stderr.splitlines() if x.startswith("WATCHER"))
    summary = json.loads(summary_line.removeprefix("WATCHER "))
    games = sorted({int(line.split(" ")[0]) for line in lines})
    assert games == list(range(1, 7))
    assert summary["games"] == games  # including the two games per round it does not play
    assert summary["rounds"] == len(lines) == result.turns
    assert summary["my_ids"] == [1]  # the same id in every game
    mine = [x for x in lines if "1" in x.split(" ")[1:3]]
    assert summary["asked"] == len(mine)
    f = lines[-1].split(" ")
    assert summary["last"] == [int(f[i]) for i in (0, 1, 2, 5, 6, 7)]


def test_judge_match_runs_original_files_unchanged() -> None:
    import subprocess
    import sys

    from tests.conftest import ROOT

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "judge.cli",
            "match",
            "roshambolo",
            str(ORIGINAL / "p_rock.py"),
            str(ORIGINAL / "p_counter.py"),
            "--race-to",
            "100",
            "--seed",
            "4",
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert [p["name"] for p in result["players"]] == ["p_rock", "p_counter"]
    assert [p["score"] for p in result["players"]] == [0, 1]
    assert result["summary"].startswith("games 0-1, rounds ") and result["summary"].endswith("-100")


def play_calls(result: MatchResult, seat: int) -> list[list[int]]:
    line = next(x for x in result.players[seat].stderr.splitlines() if x.startswith("CALLS "))
    calls: list[list[int]] = json.loads(line.removeprefix("CALLS "))
    return calls


async def test_a_file_without_observe_plays_ahead_with_exactly_the_originals_calls(
    tmp_path: Path,
) -> None:
    # Asked for up to N k plays at once, it makes one play() call per round it plays, in
    # order, and the match is the same as round by round (the same file with an observe()).
    ahead, ahead_lines = await play(
        tmp_path, "p_ahead", "rock", "p_counter", race_to=30, rounds=3, seed=7
    )
    stepwise, step_lines = await play(
        tmp_path, "p_ahead_observing", "rock", "p_counter", race_to=30, rounds=3, seed=7
    )
    assert ahead_lines == step_lines
    assert ahead.summary == stepwise.summary
    assert [p.outcome for p in ahead.players] == ["ok"] * 3
    mine = [line.split(" ")[:3] for line in ahead_lines if "1" in line.split(" ")[1:3]]
    expected = [[int(g), 1, int(b if a == "1" else a)] for g, a, b in mine]
    assert play_calls(ahead, 0) == expected == play_calls(stepwise, 0)
    assert ahead.players[0].response.count == len(expected)  # one answer taken per round


async def test_the_2014_api_plays_and_caught_exceptions_are_counted_and_shown(
    tmp_path: Path,
) -> None:
    """The 2014 entrants' play(my_id, opponent_id) and observe without game_id are called
    as such; the exceptions the adapter catches (as the original harness does) are counted,
    with the first one's message, in the result and the replay."""
    result, _ = await play(tmp_path, "p_old_api", "rock", race_to=30)
    old = result.players[0]
    assert old.outcome == "ok"
    # Its bug raises on every fifth play: those, and only those, were caught.
    assert old.caught == result.turns // 5 and old.caught_first == "KeyError: 2", old
    assert result.players[1].caught == 0
    replay = tmp_path / "p_old_api-rock.replay"
    final = json.loads(replay.read_text().splitlines()[-1].partition(" ")[2])
    assert final["players"][0]["caught"] == old.caught
    assert final["players"][0]["caught_first"] == "KeyError: 2"


async def test_observe_and_play_calls_are_the_in_process_originals(capsys) -> None:
    # The recorder sees exactly the calls, in exactly the order, that the original's tourney
    # makes in process (bench/arenas: play a, play b, every observer observes; same seed),
    # with the match co-located as `judge match` runs it and rock playing ahead.
    from bench import arenas

    names = ("p_rock", "p_recorder", "p_counter")
    modules = [arenas.load(ORIGINAL / f"{name}.py") for name in names]
    won = arenas.roshambolo_tourney(
        modules, rounds=3, race_to=15, rng=game_rng(secret_from_seed(11))
    )
    capsys.readouterr()  # (the recorder's stderr in this process)
    spec = MatchSpec(
        game="roshambolo",
        bots=[bot(name) for name in names],
        seed=11,
        options={"race_to": 15, "rounds": 3},
    )
    result = await run_match(spec, colocate=True)
    assert [p.score for p in result.players] == won
    last = result.players[1].stderr.strip().splitlines()[-1]
    assert last == f"CALLS {modules[1].count} {modules[1].calls.hexdigest()}"
    assert modules[1].count > 3 * 3 * 15  # (plays and observations of 9 games)


def test_the_adapter_reads_messages_in_any_pieces() -> None:
    """Messages split anywhere (one byte per write), CRLF lines, repeated lines (which the
    adapter parses once) and an unreadable observation: every line is read as written."""
    import os
    import subprocess
    import time

    spec = bot("p_watcher")
    messages = [
        "P 1 1 2\n.\n",
        "O 1 1 2 3 1 0\r\nP 1 1 2\r\n.\r\n",
        "O 1 1 2 3 1 0\nO 1 1 2 3 1 0\nO 1 1 2 x 1 0\nP 1 1 2\n.\n",
        "O 1 1 2 3 1 0\nP 1 1 2\n.\n",
        "O 2 3 1 1 2 1\nEND 1 1 0\n.\n",
    ]
    proc = subprocess.Popen(
        spec.argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=spec.cwd,
        env={**os.environ, **spec.env},
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers = []
    for message in messages:
        for byte in message.encode():
            proc.stdin.write(bytes([byte]))
            proc.stdin.flush()
            time.sleep(0.0002)
        if not message.startswith("O 2"):
            answers.append(proc.stdout.readline() + proc.stdout.readline())
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    assert answers == [b"3\n.\n"] * 4
    assert "unreadable observation ['1', '1', '2', 'x', '1', '0']" in stderr
    line = next(x for x in stderr.splitlines() if x.startswith("WATCHER"))
    summary = json.loads(line.removeprefix("WATCHER "))
    assert summary["asked"] == 4 and summary["rounds"] == 5
    assert summary["last"] == [2, 3, 1, 1, 2, 1] and summary["games"] == [1, 2]


async def test_rounds_both_seats_played_ahead_are_played_at_once_alike(
    tmp_path: Path, monkeypatch
) -> None:
    # When both seats of a game play ahead, the runner hands their queued answers to the
    # game at once (play_queued) instead of a turn each: the same replay, result and counts.
    from games.base import GameState
    from games.roshambolo.rules import Roshambolo

    at_once_played: list[int] = []

    def counted(self, queued, turns):  # type: ignore[no-untyped-def]
        lines = original(self, queued, turns)
        at_once_played.append(len(lines))
        return lines

    original = Roshambolo.play_queued
    monkeypatch.setattr(Roshambolo, "play_queued", counted)
    names = ("p_ahead", "p_rock", "p_counter")
    at_once, at_once_lines = await play(tmp_path, *names, race_to=30, rounds=3, seed=7)
    assert sum(at_once_played) > 30  # (three games of p_ahead against p_rock, at least 30 each)
    monkeypatch.setattr(Roshambolo, "play_queued", GameState.play_queued)
    by_turn, by_turn_lines = await play(tmp_path, *names, race_to=30, rounds=3, seed=7, tag="b")
    assert at_once_lines == by_turn_lines
    assert at_once.summary == by_turn.summary and at_once.turns == by_turn.turns
    assert [p.response.count for p in at_once.players] == [
        p.response.count for p in by_turn.players
    ]
    assert play_calls(at_once, 0) == play_calls(by_turn, 0)
    # Answers already there when their round began took no time: most of p_ahead's.
    assert at_once.players[0].response.median_ms == 0.0 < at_once.players[0].response.max_ms


def test_a_caught_line_across_the_kept_head_and_tail_is_read() -> None:
    """Where the ``judge-caught:`` line falls depends on what the bot wrote before it (a
    traceback names the bot's path): across the kept head's end it is still one line."""
    from judge.runner import STDERR_HEAD, StderrTail

    for before in range(STDERR_HEAD - 30, STDERR_HEAD + 2):
        kept = StderrTail()
        kept.add(b"x" * (before - 1) + b"\n")
        kept.add(b'judge-caught: {"count": 9, "first": "KeyError: 2"}\n')
        assert kept.caught() == (9, "KeyError: 2"), before
    dropped = StderrTail()
    dropped.add(b"y" * 20000 + b'\njudge-caught: {"count": 3, "first": "E"}\n')
    assert dropped.dropped and dropped.caught() == (3, "E")
