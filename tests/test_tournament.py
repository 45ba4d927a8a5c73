"""Tournaments with real bot processes: every format, exact boards, determinism, the CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from judge.bots import resolve
from judge.executors import MatchJob
from judge.executors.inproc import InProcessExecutor
from judge.models import BotSpec, MatchResult
from judge.tournament import Progress, TourneySpec, match_seed, run_tourney
from tests.conftest import ROOT


def files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def spec(game: str, *bots: str, **kw: object) -> TourneySpec:
    return TourneySpec(game=game, bots=[resolve(b, game) for b in bots], **kw)  # type: ignore[arg-type]


async def test_counting_three_boards_exactly_as_the_arena(tmp_path: Path) -> None:
    # Constant bots, 10 rounds, 2 runs. Per run: crab beats everyone but crab#2 (2 a round),
    # zoidberg (48) beats both counters (96 a round), the counters draw 1000-1000.
    bots = ("crab", "zoidberg", "dedicated", "crab", "dedicated")
    result = await run_tourney(
        spec("counting", *bots, options={"rounds": 10}, settings={"runs": 2}, seed=5),
        replays=tmp_path,
    )
    score, wins, overall = result.boards
    assert [(r.name, r.rank, r.value) for r in score.rows] == [
        ("zoidberg", 1, 3840),
        ("dedicated", 2, 2000),
        ("dedicated#2", 2, 2000),
        ("crab", 4, 120),
        ("crab#2", 4, 120),
    ]
    assert [(r.name, r.rank, r.value) for r in wins.rows] == [
        ("crab", 1, 6),
        ("crab#2", 1, 6),
        ("zoidberg", 3, 4),
        ("dedicated", 4, 0),
        ("dedicated#2", 4, 0),
    ]
    assert [(r.name, r.rank, r.value) for r in overall.rows] == [
        ("zoidberg", 1, 4),
        ("crab", 2, 5),
        ("crab#2", 2, 5),
        ("dedicated", 4, 6),
        ("dedicated#2", 4, 6),
    ]
    assert [s.name for s in result.standings] == [r.name for r in overall.rows]
    crab = result.standings[1]
    assert crab.ranks == {"score": 4, "wins": 1, "overall": 2} and crab.games_won == 6
    # Pairing-runs: crab draws crab#2 (1 v 1 scores nothing) and beats the other three.
    assert (crab.played, crab.draws, crab.losses) == (8, 2, 0)
    ded = next(s for s in result.standings if s.name == "dedicated")
    assert (ded.games_won, ded.played, ded.draws, ded.losses) == (0, 8, 2, 6)
    # Arena matches of every bot: the 2 runs shared out over 2 matches (concurrency 2).
    assert [m.bots for m in result.matches] == [[0, 1, 2, 3, 4]] * 2
    assert [m.options["runs"] for m in result.matches] == [1, 1]
    assert len(files(tmp_path)) == 2


async def test_counting_boards_do_not_depend_on_how_runs_are_shared_out() -> None:
    boards = []
    for concurrency in (1, 3):
        result = await run_tourney(
            spec(
                "counting",
                "naive",
                "tit_for_tat",
                "crab",
                "grim_trigger",
                options={"rounds": 30},
                settings={"runs": 3},
                seed=2,
                concurrency=concurrency,
            )
        )
        assert len(result.matches) == (1 if concurrency == 1 else 3)
        boards.append([[(r.name, r.rank, r.value) for r in b.rows] for b in result.boards])
    assert boards[0] == boards[1]


async def test_liarsdice_free_for_all_games(tmp_path: Path) -> None:
    seen: list[Progress] = []
    result = await run_tourney(
        spec("liarsdice", "robot", "computer", settings={"games": 4}, seed=2),
        replays=tmp_path,
        progress=seen.append,
    )
    assert [(s.name, s.games_won, s.rank, s.played) for s in result.standings] == [
        ("computer", 4, 1, 4),
        ("robot", 0, 2, 4),
    ]
    assert all(m.bots == [0, 1] for m in result.matches)
    assert [p.done for p in seen] == [0, 1, 2, 3, 4] and {p.total for p in seen} == {4}
    assert files(tmp_path) == [f"0000{k}-robot-computer.replay" for k in range(1, 5)]


async def test_a_format_that_counts_no_lines_asks_for_none(tmp_path: Path) -> None:
    """A match's lines go to a sink only where the format counts its units in them (a
    roshambolo tourney's games): a sink makes a match run elsewhere stream its lines back."""
    sinks: dict[str, list[int]] = {}

    class Recording(InProcessExecutor):
        async def run(self, job: MatchJob) -> MatchResult:
            sinks.setdefault(job.spec.game, []).append(len(job.sinks))
            return await super().run(job)

    for game, bots, options, settings in (
        ("liarsdice", ("robot", "computer"), {}, {"games": 3}),
        ("roshambolo", ("rock", "random"), {"rounds": 1, "race_to": 3}, {}),
    ):
        async with Recording() as executor:
            await run_tourney(
                spec(game, *bots, settings=settings, options=options),
                replays=tmp_path / game,
                executor=executor,
            )
    assert sinks == {"liarsdice": [0, 0, 0], "roshambolo": [1]}
    assert len(files(tmp_path / "liarsdice")) == 3


async def test_rps_round_robin_ties_share_a_rank() -> None:
    result = await run_tourney(spec("rps", "rock", "paper", "scissors", options={"turns": 10}))
    assert [(s.name, s.rank, s.points) for s in result.standings] == [
        ("rock", 1, 1.0),
        ("paper", 1, 1.0),
        ("scissors", 1, 1.0),
    ]
    assert len(result.matches) == 3


async def test_roshambolo_is_one_match_of_every_bot(tmp_path: Path) -> None:
    seen: list[Progress] = []
    result = await run_tourney(
        spec("roshambolo", "rock", "random", "counter", options={"rounds": 2, "race_to": 5}),
        replays=tmp_path,
        progress=seen.append,
    )
    assert len(result.matches) == 1 and result.matches[0].bots == [0, 1, 2]
    assert sum(s.games_won for s in result.standings) == 2 * 3  # rounds x pairs
    assert all(s.played == 4 for s in result.standings)
    assert seen[-1].done == seen[-1].total == 6
    # Each game counts as it ends (the replay's turn lines carry its id), not all at the end.
    assert [p.done for p in seen] == [0, 1, 2, 3, 4, 5, 6]
    assert len(files(tmp_path)) == 1


async def test_same_seed_same_tourney_whatever_the_concurrency() -> None:
    runs = []
    for concurrency in (1, 3):
        result = await run_tourney(
            spec(
                "liarsdice",
                "computer",
                "computer",
                "computer",
                settings={"games": 5},
                seed=9,
                concurrency=concurrency,
            )
        )
        runs.append([(m.seed, m.winner, m.summary) for m in result.matches])
    assert runs[0] == runs[1]
    assert runs[0][0][0] == match_seed(9, 1)


def test_cli_json_lists_every_bot(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "judge.cli",
            "tourney",
            "counting",
            "naive",
            "crab",
            "random",
            "--rounds",
            "20",
            "--runs",
            "2",
            "--seed",
            "3",
            "--json",
            "--replays",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert sorted(s["name"] for s in data["standings"]) == ["crab", "naive", "random"]
    for standing in data["standings"]:
        assert set(standing["ranks"]) == {"score", "wins", "overall"}
        assert {"games_won", "points", "rank"} <= set(standing)
    assert len(list((tmp_path / "r").iterdir())) == 2  # two arena matches of one run each


def test_cli_usage_errors_before_any_process(tmp_path: Path) -> None:
    for args in (
        ["rps", "rock"],
        ["rps", "rock", "paper", "--runs", "2"],
        ["nosuchgame", "a", "b"],
        ["counting", "naive", "crab", "--rounds", "0"],
        ["counting", "naive", "crab", "--runs", "5000"],
        ["counting", *["crab"] * 30, "--runs", "1000", "-j", "1"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "judge.cli", "tourney", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Error:" in proc.stderr and "Traceback" not in proc.stderr
        assert not list(tmp_path.iterdir())
        if "--runs" in args and "crab" in args:
            assert "runs" in proc.stderr


async def test_counting_arena_bots_run_batch_scheduled_and_the_judge_returns_to_normal() -> None:
    policy = os.sched_getscheduler(0)
    bot = str(ROOT / "tests" / "bots" / "ct_policy.py")
    result = await run_tourney(
        spec("counting", bot, "dedicated", options={"rounds": 4}, settings={"runs": 1})
    )
    # 3 against the counter's 100: six points a round, so the bot ran batch-scheduled.
    assert [s.score for s in sorted(result.standings, key=lambda s: s.index)] == [24, 0]
    assert os.sched_getscheduler(0) == policy


async def test_a_free_for_all_tourney_runs_its_bots_batch_scheduled_too(tmp_path: Path) -> None:
    policy = os.sched_getscheduler(0)
    box = tmp_path / "box"
    box.mkdir()
    shutil.copy(ROOT / "tests" / "bots" / "ld_policy.py", box / "bot.py")
    for path in (tmp_path, box, box / "bot.py"):
        path.chmod(0o755)
    bot = BotSpec(name="policy", argv=(sys.executable, str(box / "bot.py")), cwd=box, box=box)
    tourney = TourneySpec(
        game="liarsdice", bots=[bot, resolve("computer", "liarsdice")], settings={"games": 2}
    )
    result = await run_tourney(tourney)
    # It answers nonsense (a disqualification) unless it runs batch-scheduled.
    assert [s.disqualified for s in sorted(result.standings, key=lambda s: s.index)] == [0, 0]
    assert os.sched_getscheduler(0) == policy


def test_counting_standings_read_two_bot_records_without_details() -> None:
    # Tournaments stored by a server before arena matches: one record per pair and run.
    from judge.tournament import MatchRecord, standings_for

    tourney = spec("counting", "crab", "dedicated", "zoidberg", settings={"runs": 1})
    records = [
        MatchRecord(
            number=1,
            seed=0,
            bots=[1, 0],
            winner=0,
            scores=[0, 20],
            outcomes=["ok", "ok"],
            summary="",
            replay=None,
        ),
        MatchRecord(
            number=2,
            seed=0,
            bots=[2, 0],
            winner=0,
            scores=[0, 20],
            outcomes=["ok", "ok"],
            summary="",
            replay=None,
        ),
        MatchRecord(
            number=3,
            seed=0,
            bots=[2, 1],
            winner=None,
            scores=[0, 0],
            outcomes=["ok", "ok"],
            summary="",
            replay=None,
        ),
    ]
    standings, _ = standings_for(tourney, tourney.bots, records)
    crab = next(s for s in standings if s.name == "crab")
    dedicated = next(s for s in standings if s.name == "dedicated")
    assert (crab.games_won, crab.played, crab.draws, crab.losses) == (2, 2, 0, 0)
    assert (dedicated.games_won, dedicated.draws, dedicated.losses) == (0, 1, 1)
