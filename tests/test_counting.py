"""Cooperative counting: scoring rule, messages, invalid values, bots and the adapter."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judge.bots import resolve
from judge.games import IllegalOrder
from judge.games.counting import Counting, CountingOptions, score_round
from judge.models import MatchSpec
from judge.runner import run_match
from tests.conftest import TEST_BOTS

ORIGINAL = TEST_BOTS / "original"


@given(st.integers(1, 100), st.integers(1, 100))
def test_points_per_round_follow_the_rule(a: int, b: int) -> None:
    result_a, result_b, points_a, points_b = score_round(a, b)
    if a == b == 100:
        assert (points_a, points_b) == (100, 100)
        assert result_a == result_b == (100, True)
    elif a == b:
        assert (points_a, points_b) == (0, 0)
        assert result_a == result_b == (a, False)
    elif a < b:
        assert (points_a, points_b) == (2 * a, 0)
        assert (result_a, result_b) == ((a, True), (a, False))
    else:
        assert (points_a, points_b) == (0, 2 * b)
        assert (result_a, result_b) == ((b, False), (b, True))


@given(st.lists(st.tuples(st.integers(1, 100), st.integers(1, 100)), min_size=1, max_size=50))
def test_a_match_sums_the_rounds_and_tells_each_seat_its_own_result(
    rounds: list[tuple[int, int]],
) -> None:
    state = Counting(seats=2, options=CountingOptions(rounds=len(rounds)), rng=random.Random(0))
    totals = [0, 0]
    previous = None
    for number, (a, b) in enumerate(rounds, 1):
        messages = state.begin_turn()
        expected = [f"R {number}"]
        if previous is not None:
            expected_0 = [*expected, f"L {previous[0][0]} {int(previous[0][1])}"]
            expected_1 = [*expected, f"L {previous[1][0]} {int(previous[1][1])}"]
        else:
            expected_0 = expected_1 = expected
        assert messages == {0: expected_0, 1: expected_1}
        line = state.apply({0: state.parse_order(0, [str(a)]), 1: state.parse_order(1, [str(b)])})
        result_a, result_b, points_a, points_b = score_round(a, b)
        totals[0] += points_a
        totals[1] += points_b
        previous = (result_a, result_b)
        assert line == f"{totals[0]} {totals[1]} {a} {b}"
        assert state.orders_from_line(line) == {0: str(a), 1: str(b)}
    assert state.is_over()
    result = state.result()
    assert list(result.scores) == totals
    assert result.winner == (None if totals[0] == totals[1] else totals.index(max(totals)))
    # The last round's result arrives with the end.
    assert state.final_message(0)[0] == f"L {previous[0][0]} {int(previous[0][1])}"


@pytest.mark.parametrize("text", ["0", "101", "-5", "50.5", "fifty", "1e2", "99999999999999"])
def test_invalid_values_are_illegal_orders(text: str) -> None:
    state = Counting(seats=2, options=CountingOptions(), rng=random.Random(0))
    with pytest.raises(IllegalOrder) as caught:
        state.parse_order(0, [text])
    assert caught.value.code == "invalid_order"
    assert "1 to 100" in caught.value.reason


def test_valid_forms() -> None:
    state = Counting(seats=2, options=CountingOptions(), rng=random.Random(0))
    assert state.parse_order(0, [" 050 "]) == "50"
    assert state.parse_order(0, ["+1"]) == "1"


def match(*bots: str, rounds: int = 10) -> MatchSpec:
    return MatchSpec(
        game="counting", bots=[resolve(b, "counting") for b in bots], seed=2,
        options={"rounds": rounds},
    )


@pytest.mark.parametrize(
    ("bots", "scores"),
    [
        # crab stops at 1: +2 in round 1, then naive drops to 1 too and nobody scores
        (("naive", "crab"), [0, 2]),
        (("dedicated", "dedicated"), [1000, 1000]),
        (("shortcut", "zoidberg"), [0, 960]),
        # tit for tat vs naive: 100/100, then both repeat 100 forever
        (("tit_for_tat", "naive"), [1000, 1000]),
        # grim trigger vs crab: 100 vs 1 (crab +2), then 1 vs 1 for nothing
        (("grim_trigger", "crab"), [0, 2]),
    ],
)
async def test_built_in_bots_exact_scores(bots: tuple[str, str], scores: list[int]) -> None:
    result = await run_match(match(*bots))
    assert [p.score for p in result.players] == scores
    assert [p.outcome for p in result.players] == ["ok", "ok"]


async def test_legacy_form_through_the_adapter() -> None:
    # Round 1: 100/100; then the legacy bot stops one below the last value: 99, 98, 97, 96.
    result = await run_match(match(str(ORIGINAL / "ct_legacy.py"), "dedicated", rounds=5))
    assert [p.score for p in result.players] == [100 + 198 + 196 + 194 + 192, 100]


async def test_floats_truncate_live_list_and_prints_stay_off_the_protocol() -> None:
    result = await run_match(match(str(ORIGINAL / "ct_float.py"), "dedicated", rounds=20))
    assert [p.outcome for p in result.players] == ["ok", "ok"]
    assert [p.score for p in result.players] == [20 * 62, 0]
    assert "chatter on stdout" in result.players[0].stderr


async def test_a_bot_mutating_its_history_only_corrupts_its_own() -> None:
    # It clears the list each round, so it only ever sees the one entry appended since:
    # 50 in round 1, then 40 (80 points each round).
    result = await run_match(match(str(ORIGINAL / "ct_mutates.py"), "dedicated", rounds=5))
    assert [p.score for p in result.players] == [100 + 4 * 80, 0]


@pytest.mark.parametrize(
    ("bot", "outcome", "turn", "reason"),
    [
        ("ct_bad.py", "invalid_order", 3, "'150'"),
        ("ct_text.py", "invalid_order", 2, "non-numeric 'fifty'"),
        ("ct_raises.py", "crash", 4, ""),
    ],
)
async def test_invalid_values_disqualify_only_that_bot(
    bot: str, outcome: str, turn: int, reason: str
) -> None:
    result = await run_match(match(str(ORIGINAL / bot), "naive", rounds=10))
    bad, good = result.players
    assert bad.outcome in ((outcome, "closed_stdout") if outcome == "crash" else (outcome,))
    assert bad.turn == turn and reason in bad.reason
    assert good.outcome == "ok" and result.winner == 1 and bad.rank == 2
    if outcome == "crash":
        assert "boom" in bad.stderr
