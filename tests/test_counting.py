"""Cooperative counting: scoring rule, messages, invalid values, bots and the adapter."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.base import IllegalOrder
from games.counting.rules import Counting, CountingOptions, score_round
from judge.bots import resolve
from judge.models import MatchSpec
from judge.runner import run_match
from replays.verify import verify_file
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
        game="counting",
        bots=[resolve(b, "counting") for b in bots],
        seed=2,
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


# -- the arena: three or more seats, or several runs, in one match ---------------------------


def arena_state(seats: int, rounds: int, runs: int = 1) -> Counting:
    return Counting(
        seats=seats, options=CountingOptions(rounds=rounds, runs=runs), rng=random.Random(0)
    )


@given(
    st.integers(3, 5),
    st.integers(1, 2),
    st.integers(1, 4),
    st.randoms(use_true_random=False),
)
def test_the_arena_plays_every_pairing_run_as_its_own_game(
    seats: int, runs: int, rounds: int, rng: random.Random
) -> None:
    state = arena_state(seats, rounds, runs)
    # Every game (run, i, j < i) replayed on its own with score_round.
    games = {(run, i, j): [0, 0] for run in range(runs) for i in range(seats) for j in range(i)}
    last: dict[tuple[int, int, int], tuple[tuple[int, bool], tuple[int, bool]]] = {}
    totals = [0] * seats
    for number in range(1, rounds + 1):
        messages = state.begin_turn()
        answers: dict[int, list[int]] = {}
        for seat in range(seats):
            lines = messages[seat]
            assert lines[0] == f"R {number}"
            # One O line per game of this seat: run by run, opponents ascending.
            expected = []
            for run in range(runs):
                for other in range(seats):
                    if other == seat:
                        continue
                    key = (run, max(seat, other), min(seat, other))
                    news = f"O {other + 1} {run + 1}"
                    if key in last:
                        value, won = last[key][0 if seat > other else 1]
                        news += f" {value} {int(won)}"
                    expected.append(news)
            assert lines[1:] == expected
            answers[seat] = [rng.randint(1, 100) for _ in expected]
        orders = {
            s: state.parse_order(s, [str(v) for v in values]) for s, values in answers.items()
        }
        line = state.apply(orders)
        for run, i, j in games:
            k = run * (seats - 1)
            a = answers[i][k + j]  # i's opponents below i keep their index
            b = answers[j][k + i - 1]  # j's opponents above j shift down by one
            result_a, result_b, points_a, points_b = score_round(a, b)
            games[(run, i, j)][0] += points_a
            games[(run, i, j)][1] += points_b
            totals[i] += points_a
            totals[j] += points_b
            last[(run, i, j)] = (result_a, result_b)
        assert line.split(" ")[:seats] == [str(t) for t in totals]
        assert state.orders_from_line(line) == orders
    assert state.is_over()
    result = state.result()
    assert list(result.scores) == totals
    won = [0] * seats
    drawn = [0] * seats
    for (_, i, j), (a, b) in games.items():
        if a == b:
            drawn[i] += 1
            drawn[j] += 1
        else:
            won[i if a > b else j] += 1
    assert list(result.details["pairings_won"]) == won
    assert list(result.details["pairings_drawn"]) == drawn


def test_arena_answers_one_choice_per_game_per_line_or_with_commas() -> None:
    state = arena_state(3, 5)
    state.begin_turn()
    assert state.parse_order(0, ["7", "100"]) == state.parse_order(0, ["7,100"]) == "7,100"
    assert state.parse_order(0, [" 07 , +100"]) == "7,100"
    with pytest.raises(IllegalOrder, match="3 choices, 2 expected") as caught:
        state.parse_order(0, ["1,2,3"])
    assert caught.value.code == "multiple_orders"
    with pytest.raises(IllegalOrder, match="1 choices, 2 expected"):
        state.parse_order(0, ["1"])
    with pytest.raises(IllegalOrder, match="'0'"):
        state.parse_order(0, ["0,5"])


def test_arena_disqualified_seat_forfeits_its_games_and_the_rest_play_on() -> None:
    state = arena_state(3, rounds=2, runs=2)
    state.begin_turn()
    orders = {0: "5,5,5,5", 2: "9,9,9,9"}
    state.disqualify(1, "timeout")
    state.apply(orders)
    messages = state.begin_turn()
    assert sorted(messages) == [0, 2]  # seat 2 is left out of the messages...
    assert messages[0][1:] == ["O 3 1 5 1", "O 3 2 5 1"]  # ...and of the games
    state.apply({0: "5,5", 2: "5,5"})
    assert state.is_over()
    won = state.result().details["pairings_won"]
    # Seats 1 and 3 each win both of their runs against seat 2 by forfeit; seat 1 beat 3
    # in both runs (5 < 9 in round 1, then 5 = 5).
    assert won == (4.0, 0.0, 2.0)
    assert state.result().ranks[1] == 3


def arena(*bots: str, rounds: int, runs: int = 1) -> MatchSpec:
    return MatchSpec(
        game="counting",
        bots=[resolve(b, "counting") for b in bots],
        seed=4,
        options={"rounds": rounds, "runs": runs},
    )


ARENA_BOTS = (
    str(ORIGINAL / "ct_legacy.py"),
    "naive",
    str(ORIGINAL / "ct_mutates.py"),
    "tit_for_tat",
    str(ORIGINAL / "ct_float.py"),
    "grim_trigger",
    "crab",
)


async def test_an_arena_match_gives_what_separate_matches_give(tmp_path: Path) -> None:
    # Real processes: built-in bots and original-style files through the adapter, which
    # keeps a module instance and a history per game, so each game is a match of its own.
    result = await run_match(
        arena(*ARENA_BOTS, rounds=12, runs=2), replay_path=tmp_path / "arena.replay"
    )
    assert [p.outcome for p in result.players] == ["ok"] * len(ARENA_BOTS)
    assert result.turns == 12
    scores = [0.0] * len(ARENA_BOTS)
    won = [0.0] * len(ARENA_BOTS)
    for i in range(len(ARENA_BOTS)):
        for j in range(i):
            pair = await run_match(match(ARENA_BOTS[i], ARENA_BOTS[j], rounds=12))
            for seat, bot in ((0, i), (1, j)):
                scores[bot] += 2 * pair.players[seat].score
                won[bot] += 2 * (pair.winner == seat)
    assert [p.score for p in result.players] == scores
    assert list(result.details["pairings_won"]) == won
    assert "chatter on stdout" in result.players[4].stderr
    report = verify_file(tmp_path / "arena.replay")
    assert report.ok, report


async def test_an_arena_disqualifies_one_bot_and_plays_on(tmp_path: Path) -> None:
    bots = ("naive", str(ORIGINAL / "ct_bad.py"), "crab", "tit_for_tat")
    result = await run_match(arena(*bots, rounds=6), replay_path=tmp_path / "dq.replay")
    bad = result.players[1]
    assert (bad.outcome, bad.turn) == ("invalid_order", 3) and "'150'" in bad.reason
    assert [p.outcome for p in result.players] == ["ok", "invalid_order", "ok", "ok"]
    assert result.turns == 6 and bad.rank == 4
    # Every other bot wins its game against the disqualified one.
    won = result.details["pairings_won"]
    assert won[1] == 0 and all(won[k] >= 1 for k in (0, 2, 3))
    assert verify_file(tmp_path / "dq.replay").ok


def test_an_arena_too_large_for_one_match_is_refused_up_front() -> None:
    with pytest.raises(ValueError, match="300000 games in one match; at most 100000"):
        Counting.check_setup(25, CountingOptions(runs=1000))
    Counting.check_setup(25, CountingOptions(runs=100))  # 30,000 games: fine
    with pytest.raises(ValueError, match="takes 2 to 256 bots, got 1"):
        Counting.check_setup(1, CountingOptions())
