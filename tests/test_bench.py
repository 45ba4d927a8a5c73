"""The bench's own logic: statistics, ratios, the reference runners against the judge, quick mode.

No timing is asserted anywhere: figures depend on the machine; their plumbing does not.
"""

from __future__ import annotations

import json

import pytest

from bench import arenas
from bench.arena import counting_tourney, judge_counting_scores, ours_roshambolo
from bench.common import RESULTS_DIR, Spread, paired_ratios
from games.counting.rules import score_round
from games.seeds import game_rng, secret_from_seed
from judge.bots import resolve
from judge.models import MatchSpec
from judge.runner import run_match
from judge.tournament import run_tourney


def test_spread_is_median_and_range() -> None:
    spread = Spread.of([3.0, 1.0, 2.0, 10.0])
    assert (spread.median, spread.low, spread.high, spread.runs) == (2.5, 1.0, 10.0, 4)
    assert spread.scaled(2).median == 5.0
    assert spread.text(1) == "2.5 (1.0..10.0)"
    with pytest.raises(ValueError):
        Spread.of([])


def test_paired_ratios_divide_run_by_run() -> None:
    ratios = paired_ratios([2.0, 9.0, 4.0], [1.0, 3.0, 4.0])
    assert (ratios.median, ratios.low, ratios.high) == (2.0, 1.0, 3.0)
    # A run whose denominator is zero has no ratio; it is left out, not divided by.
    assert paired_ratios([1.0, 5.0], [0.0, 5.0]).runs == 1
    with pytest.raises(ValueError):
        paired_ratios([1.0], [1.0, 2.0])


def test_reference_counting_round_matches_the_game() -> None:
    for a in range(1, 101):
        for b in range(1, 101):
            assert arenas.counting_round(a, b) == score_round(a, b)


def test_legacy_strategy_uses_turn() -> None:
    fighter = arenas.load(arenas.COUNTING_DIR / "desperate_fighter.py")
    assert arenas.counting_choice(fighter, [(50, False)]) == 1
    assert arenas.counting_choice(fighter, [(70, False)]) == 100


DETERMINISTIC = ["crab", "desperate_fighter", "grim_trigger", "naiive", "shortcut", "tit_for_tat"]


async def test_reference_counting_scores_equal_the_judges() -> None:
    """The in-process arena and our judge's tourney (adapters, real processes) score alike."""
    paths = [arenas.COUNTING_DIR / f"{name}.py" for name in DETERMINISTIC]
    modules = [arenas.load(path) for path in paths]
    ref_scores, ref_wins = arenas.counting_arena(modules, rounds=30, runs=3)
    spec = counting_tourney(rounds=30, runs=3, count=len(paths))
    spec = spec.model_copy(update={"bots": [resolve(str(p), "counting") for p in paths]})
    result = await run_tourney(spec)
    assert len(result.matches) == 2  # the runs shared out over two arena matches
    assert all(s.disqualified == 0 for s in result.standings)
    scores, wins = judge_counting_scores(result)
    assert scores == ref_scores
    assert wins == ref_wins


def test_counting_tourney_takes_the_strategy_files_in_order() -> None:
    spec = counting_tourney(rounds=5, runs=2, count=4)
    assert [b.name for b in spec.bots] == [p.stem for p in arenas.counting_files()[:4]]
    assert (spec.settings["runs"], spec.options, spec.concurrency) == (2, {"rounds": 5}, 2)


async def test_reference_roshambolo_agrees_with_the_judge() -> None:
    paths = [arenas.ROSHAMBOLO_DIR / "rock.py", arenas.ROSHAMBOLO_DIR / "counter.py"]
    won = arenas.roshambolo_tourney(
        [arenas.load(p) for p in paths], rounds=3, race_to=10, rng=game_rng(secret_from_seed(5))
    )
    bots = [resolve(str(p), "roshambolo") for p in paths]
    result = await run_match(
        MatchSpec(game="roshambolo", bots=bots, seed=5, options={"rounds": 3, "race_to": 10})
    )
    assert won == [0, 3]
    assert [p.score for p in result.players] == [0, 3]


def test_quick_bench_runs_every_item_and_writes_json(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.__main__ import ITEMS, main

    assert main(["--quick"]) == 0
    table = capsys.readouterr().out
    for item in ITEMS:
        payload = json.loads((RESULTS_DIR / f"{item}-quick.json").read_text())
        assert payload["quick"] is True and payload["rows"], item
        assert any(row["value"] is not None for row in payload["rows"]), item
    for label in (
        "1 floor",
        "2 overhead",
        "3 throughput",
        "4 arenas",
        "5 start-up",
        "6 deadline",
        "7 scale",
        "9 bot CPU",
        "11 database",
        "12 short games",
        "13 source",
    ):
        assert label in table
    deadline = json.loads((RESULTS_DIR / "deadline-quick.json").read_text())["data"]["outcomes"]
    # The bench's deadline bots really are slow: 1,100 ms answers are disqualified.
    assert all(o["outcome"] == "timeout" for o in deadline["1100"])


def test_unknown_item_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.__main__ import main

    assert main(["nonsense"]) == 2
    assert "unknown bench item" in capsys.readouterr().err


async def test_the_roshambolo_tourney_of_the_bench_scores_100_0_200() -> None:
    # `tourney 100 1000` of rock, random and counter, as the bench times it (co-located, one
    # match, the strongest sandbox): the original's result.
    _, result = await ours_roshambolo(rounds=100, race_to=1000)
    assert [p.score for p in result.players] == [100, 0, 200]
    assert [p.outcome for p in result.players] == ["ok"] * 3


def test_botcost_rows_show_no_ratio_over_a_base_that_measured_no_cpu() -> None:
    from bench import botcost

    per_turn = {
        "C (bots/examples/c/rps_bot.c)": [0.0],
        "bare Python loop": [0.0],
        "Python through botlib (built-in rock)": [12.0],
    }
    rows = {row.figure: row for row in botcost.rows(per_turn, quick=True)}
    ratio = rows["Python through botlib (built-in rock) / bare Python loop (same run)"]
    assert ratio.value is None and ratio.met is None
    assert ratio.note == "C bot: no CPU measured"
    assert rows["bare Python loop: CPU per turn"].value == Spread.of([0.0])

    per_turn["bare Python loop"] = [4.0]
    per_turn["C (bots/examples/c/rps_bot.c)"] = [2.0]
    ratio = {row.figure: row for row in botcost.rows(per_turn, quick=False)}[ratio.figure]
    assert ratio.value == Spread.of([3.0]) and ratio.met is False
    assert ratio.note == "6.0x the C bot"
