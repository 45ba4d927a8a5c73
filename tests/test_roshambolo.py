"""Roshambolo: the rules (rules.md §1.2) on the state machine, and whole matches of processes."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from games import get_game
from games.base import IllegalOrder, ReplayMismatch
from games.roshambolo.rules import PAPER, ROCK, SCISSORS, Roshambolo, decide, shape_of
from judge.models import BotSpec, MatchSpec
from judge.runner import run_match
from replays.verify import verify_file
from tests.conftest import ROOT, builtin, misbehaving

GAME = get_game("roshambolo")
WINS_OVER = {ROCK: SCISSORS, PAPER: ROCK, SCISSORS: PAPER}  # key beats value, from the README


def new_state(seats: int = 2, *, race_to: int = 3, rounds: int = 1, seed: int = 0) -> Roshambolo:
    state = GAME(
        seats=seats, options=GAME.Options(race_to=race_to, rounds=rounds), rng=random.Random(seed)
    )
    assert isinstance(state, Roshambolo)
    return state


def play_out(state: Roshambolo, answer_of) -> tuple[list[str], dict[int, list[str]]]:
    """Run the state to the end like the runner; return the turn lines and every seat's O lines."""
    lines: list[str] = []
    told: dict[int, list[str]] = {s: [] for s in range(state.seats)}
    while not state.is_over():
        movers = state.to_move()
        messages = state.begin_turn()
        assert sorted(messages) == sorted(movers)
        orders = {}
        for seat, message in messages.items():
            assert message[-1].startswith("P ")
            told[seat] += message[:-1]
            orders[seat] = state.parse_order(seat, [answer_of(seat, len(lines))])
        lines.append(state.apply(orders))
    for seat in range(state.seats):
        final = state.final_message(seat)
        assert final[-1].startswith("END ")
        told[seat] += final[:-1]
    return lines, told


def fields(line: str) -> dict[str, str]:
    keys = (
        "game",
        "a",
        "b",
        "answer_a",
        "answer_b",
        "shape_a",
        "shape_b",
        "result",
        "wins_a",
        "wins_b",
        "how",
    )
    return dict(zip(keys, line.split(" "), strict=True))


# -- the round rule ----------------------------------------------------------------
@pytest.mark.parametrize(("a", "b"), [(a, b) for a in (1, 2, 3) for b in (1, 2, 3) if a != b])
def test_different_shapes_follow_rock_paper_scissors(a: int, b: int) -> None:
    winner, how = decide(a, b, [0] * 4, [0] * 4)
    assert how == "beats"
    assert winner == (0 if WINS_OVER[a] == b else 1)


def test_same_shape_goes_to_who_played_it_more() -> None:
    assert decide(ROCK, ROCK, [0, 3, 0, 0], [0, 2, 9, 9]) == (0, "more")
    assert decide(PAPER, PAPER, [0, 0, 1, 0], [0, 0, 4, 0]) == (1, "more")


def test_then_who_played_the_shape_that_beats_it_more() -> None:
    # Both played rock twice; paper beats rock and b played paper more.
    assert decide(ROCK, ROCK, [0, 2, 1, 5], [0, 2, 3, 0]) == (1, "counter")
    # Scissors is beaten by rock.
    assert decide(SCISSORS, SCISSORS, [0, 4, 0, 1], [0, 1, 0, 1]) == (0, "counter")


def test_then_a_coin_toss_from_the_seeded_rng() -> None:
    assert decide(PAPER, PAPER, [0, 1, 1, 1], [0, 5, 1, 1]) == (None, "coin")
    outcomes = set()
    for seed in range(20):
        state = new_state(seed=seed, race_to=1)
        first = state.current
        assert first is not None
        lines, _ = play_out(state, lambda seat, turn: "1")
        assert len(lines) == 1 and fields(lines[0])["how"] == "coin"
        outcomes.add(fields(lines[0])["result"])
        again, _ = play_out(new_state(seed=seed, race_to=1), lambda seat, turn: "1")
        assert again == lines
    assert outcomes == {"0", "1"}


@pytest.mark.parametrize(
    ("answer", "shape"),
    [
        ("1", 1),
        ("2", 2),
        ("3", 3),
        ("+3", 3),
        ("02", 2),
        ("0", None),
        ("4", None),
        ("-1", None),
        ("2.7", None),
        ("R", None),
        ("two", None),
        ("1 2", None),
    ],
)
def test_answers_are_read_with_pythons_int(answer: str, shape: int | None) -> None:
    assert shape_of(answer) == shape


def test_an_answer_must_be_exactly_one_line() -> None:
    state = new_state()
    with pytest.raises(IllegalOrder) as empty:
        state.parse_order(0, [])
    assert empty.value.code == "no_order"
    with pytest.raises(IllegalOrder) as two:
        state.parse_order(0, ["1", "2"])
    assert two.value.code == "multiple_orders"
    assert state.parse_order(0, ["", " 2 "]) == "2"


def test_race_to_must_be_at_least_one() -> None:
    with pytest.raises(ValidationError):
        GAME.Options(race_to=0)
    with pytest.raises(ValidationError):
        GAME.Options(rounds=0)
    assert GAME.Options().model_dump() == {"race_to": 100, "rounds": 1}


def test_invalid_plays_become_seeded_random_shapes_in_order_a_then_b() -> None:
    state = new_state(seed=11, race_to=1)
    assert state.current is not None
    a, _ = state.current
    # Replay the rng by hand: a's draw comes first, then b's, then a coin if needed.
    rng = random.Random(11)
    rng.shuffle([0, 1])
    expected_a, expected_b = rng.randint(1, 3), rng.randint(1, 3)
    lines, _ = play_out(state, lambda seat, turn: "x" if seat == a else "2.5")
    f = fields(lines[0])
    assert (f["answer_a"], f["answer_b"]) == ("x", "2.5")
    assert (int(f["shape_a"]), int(f["shape_b"])) == (expected_a, expected_b)


def test_replay_line_format_and_encoding() -> None:
    state = new_state(seed=3, race_to=2)
    lines, _ = play_out(state, lambda seat, turn: "1" if seat == 0 else "what now%*")
    f = fields(lines[0])
    assert f["game"] == "1"
    assert {f["a"], f["b"]} == {"1", "2"}
    assert "what%20now%25%2A" in (f["answer_a"], f["answer_b"])
    for line in lines:
        orders = state.orders_from_line(line)
        assert sorted(orders.values()) == ["1", "what now%*"]
    with pytest.raises(ReplayMismatch):
        state.orders_from_line("1 2 R P")
    with pytest.raises(ReplayMismatch):
        state.orders_from_line("1 9 2 1 1 1 1 0 1 0 beats")
    with pytest.raises(ReplayMismatch):
        state.orders_from_line("1 1 2 %ff 1 1 1 0 1 0 beats")


# -- properties ----------------------------------------------------------------------
ANSWERS = st.sampled_from(["1", "2", "3", "1", "2", "3", "0", "4", "2.7", "x", "+1", "03"])


@st.composite
def matches(draw: st.DrawFn) -> tuple[int, int, int, int, list[str]]:
    seats = draw(st.integers(2, 4))
    race_to = draw(st.integers(1, 6))
    rounds = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32))
    script = draw(st.lists(ANSWERS, min_size=1, max_size=40))
    return seats, race_to, rounds, seed, script


def scripted(script: list[str]):
    return lambda seat, turn: script[(turn * 7 + seat * 3) % len(script)]


@settings(max_examples=150, deadline=None)
@given(matches())
def test_rules_hold_for_any_answers(match: tuple[int, int, int, int, list[str]]) -> None:
    seats, race_to, rounds, seed, script = match
    state = new_state(seats, race_to=race_to, rounds=rounds, seed=seed)
    lines, told = play_out(state, scripted(script))

    games: dict[int, list[dict[str, str]]] = {}
    for line in lines:
        games.setdefault(int(fields(line)["game"]), []).append(fields(line))
    # Every pair plays `rounds` games; game ids count from 1 without gaps.
    assert sorted(games) == list(range(1, rounds * seats * (seats - 1) // 2 + 1))
    pairs = Counter(frozenset((g[0]["a"], g[0]["b"])) for g in games.values())
    assert set(pairs.values()) == {rounds}
    assert len(pairs) == seats * (seats - 1) // 2

    won = [0] * seats
    for rows in games.values():
        # A race to N lasts N..2N-1 rounds and every round has exactly one winner.
        assert race_to <= len(rows) <= 2 * race_to - 1
        wins = [0, 0]
        plays = [[0] * 4, [0] * 4]
        for row in rows:
            shape_a, shape_b, result = int(row["shape_a"]), int(row["shape_b"]), int(row["result"])
            assert result in (0, 1) and shape_a in (1, 2, 3) and shape_b in (1, 2, 3)
            for answer, shape in ((row["answer_a"], shape_a), (row["answer_b"], shape_b)):
                if shape_of(answer) is not None:
                    assert shape == shape_of(answer)
            # The tie-break, recomputed here from the counts before the round.
            if shape_a != shape_b:
                assert result == (0 if WINS_OVER[shape_a] == shape_b else 1)
            else:
                beater = next(s for s, beaten in WINS_OVER.items() if beaten == shape_a)
                if plays[0][shape_a] != plays[1][shape_b]:
                    assert result == (0 if plays[0][shape_a] > plays[1][shape_b] else 1)
                elif plays[0][beater] != plays[1][beater]:
                    assert result == (0 if plays[0][beater] > plays[1][beater] else 1)
                else:
                    assert row["how"] == "coin"
            plays[0][shape_a] += 1
            plays[1][shape_b] += 1
            wins[result] += 1
            assert [int(row["wins_a"]), int(row["wins_b"])] == wins
        assert max(wins) == race_to and min(wins) < race_to
        won[int(rows[0]["a" if wins[0] == race_to else "b"]) - 1] += 1
    assert list(state.result().scores) == won
    assert sum(won) == len(games)

    # Observe-all: every seat is told every round of every game, once, in order.
    observations = [
        "O " + " ".join(line.split(" ")[i] for i in (0, 1, 2, 5, 6, 7)) for line in lines
    ]
    for seat in range(seats):
        assert told[seat] == observations

    # Same seed and orders: the same lines; orders read back from the lines re-simulate them.
    again = new_state(seats, race_to=race_to, rounds=rounds, seed=seed)
    replayed = []
    for line in lines:
        again.begin_turn()
        replayed.append(again.apply(again.orders_from_line(line)))
    assert replayed == lines
    assert again.is_over()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(3, 6))
def test_seat_order_is_reshuffled_every_round(seed: int, seats: int) -> None:
    state = new_state(seats, race_to=1, rounds=4, seed=seed)
    lines, _ = play_out(state, lambda seat, turn: "1")
    per_round = seats * (seats - 1) // 2
    rng = random.Random(seed)
    order = list(range(seats))
    for r in range(4):
        rng.shuffle(order)
        pairs = itertools.combinations(range(seats), 2)
        expected = [(order[i] + 1, order[j] + 1) for i, j in pairs]
        played = lines[r * per_round :][:per_round]
        got = [(int(fields(x)["a"]), int(fields(x)["b"])) for x in played]
        assert got == expected
        # race_to=1 and both rock: one coin toss per game, drawn after the shuffle
        for _ in range(per_round):
            rng.randint(0, 1)


# -- disqualification --------------------------------------------------------------------
def test_a_seat_disqualified_mid_turn_forfeits_its_game_and_later_ones() -> None:
    state = new_state(3, race_to=2, rounds=2, seed=5)
    assert state.current is not None
    a, b = state.current
    messages = state.begin_turn()
    state.disqualify(a, "timeout")
    line = state.apply({b: state.parse_order(b, ["1"])})
    f = fields(line)
    assert f["how"] == "forfeit" and f["answer_a"] == "*" and f["shape_a"] == "*"
    assert state.orders_from_line(line) == {b: "1"}
    assert messages.keys() == {a, b}
    lines, _ = play_out(state, lambda seat, turn: "2")
    assert all(a + 1 not in (int(fields(x)["a"]), int(fields(x)["b"])) for x in lines)
    result = state.result()
    # b won the forfeit; both others also won their second-round game against a by forfeit.
    assert sum(result.scores) == 6 - 0  # 2 rounds x 3 pairs, all decided
    assert result.ranks[a] == 3 and result.scores[a] == 0


def test_both_seats_of_a_game_out_in_one_turn_void_it_and_play_goes_on() -> None:
    state = new_state(3, race_to=1, rounds=1, seed=2)
    assert state.current is not None
    a, b = state.current
    state.begin_turn()
    state.disqualify(a, "crash")
    state.disqualify(b, "timeout")
    assert state.is_over()  # one live seat left
    assert state.result().scores == (0, 0, 0) and sorted(state.result().ranks) == [1, 2, 2]


def test_a_seat_that_never_started_forfeits_every_game() -> None:
    state = new_state(3, race_to=1, rounds=2, seed=8)
    state.disqualify(0, "start_failed")
    lines, _ = play_out(state, lambda seat, turn: "1")
    assert len(lines) == 2  # only the game between seats 2 and 3 of each round is played
    scores = state.result().scores
    assert scores[0] == 0 and scores[1] + scores[2] == 6


def test_ties_in_games_won_share_the_rank_and_there_is_no_winner() -> None:
    for seed in range(40):
        state = new_state(2, race_to=1, rounds=2, seed=seed)
        play_out(state, lambda seat, turn: "1")
        if state.result().scores == (1, 1):
            assert state.result().ranks == (1, 1) and state.result().winner is None
            return
    pytest.fail("no seed gave a 1-1 split")


# -- whole matches through the runner and the CLI -------------------------------------------
def judge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_judge_match_rock_against_counter(tmp_path: Path) -> None:
    replay = tmp_path / "r.replay"
    proc = judge(
        "match",
        "roshambolo",
        "rock",
        "counter",
        "--race-to",
        "100",
        "--seed",
        "4",
        "--replay",
        str(replay),
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["winner"] == 1 and [p["score"] for p in result["players"]] == [0, 1]
    body = [line for line in replay.read_text().splitlines() if not line.startswith("#")]
    # Round 1 is rock against rock with empty counts: a coin toss. From then on the counter has
    # seen two rocks and plays paper, which beats rock every time.
    assert fields(body[0])["how"] == "coin"
    assert all(fields(x)["how"] == "beats" for x in body[1:])
    rock_rounds = int(fields(body[0])["result"] == ("0" if fields(body[0])["a"] == "1" else "1"))
    assert result["summary"] == f"games 0-1, rounds {rock_rounds}-100"
    assert result["turns"] == len(body) == 100 + rock_rounds
    last = fields(body[-1])
    assert {last["wins_a"], last["wins_b"]} == {"100", str(rock_rounds)}


async def test_tourney_of_rock_random_counter_ends_like_the_original() -> None:
    # rules.md §1.5: counter wins every game, rock beats random every time (200/100/0 at T=100).
    spec = MatchSpec(
        game="roshambolo",
        seed=1,
        options={"race_to": 100, "rounds": 10},
        bots=[builtin("roshambolo", n) for n in ("rock", "random", "counter")],
    )
    result = await run_match(spec)
    assert [p.score for p in result.players] == [10, 0, 20]
    assert [p.rank for p in result.players] == [2, 3, 1]
    assert result.winner == 2 and all(p.outcome == "ok" for p in result.players)
    assert result.summary.startswith("games 10-0-20, rounds ")


@pytest.mark.parametrize("mode", ["two_orders", "crash", "none"])
async def test_replays_re_simulate_including_forfeits(tmp_path: Path, mode: str) -> None:
    first = misbehaving(mode, 3) if mode != "none" else builtin("roshambolo", "random")
    replay = tmp_path / f"{mode}.replay"
    spec = MatchSpec(
        game="roshambolo",
        seed=6,
        options={"race_to": 5, "rounds": 2},
        bots=[first, builtin("roshambolo", "counter"), builtin("roshambolo", "rock")],
    )
    result = await run_match(spec, replay_path=replay)
    report = verify_file(replay)
    assert report.ok, report.describe()
    body = [x for x in replay.read_text().splitlines() if not x.startswith("#")]
    assert report.turns == len(body) == result.turns
    if mode == "none":
        assert all(p.outcome == "ok" for p in result.players)
        assert sum(p.score for p in result.players) == 6
        return
    dq = result.players[0]
    assert dq.outcome == ("multiple_orders" if mode == "two_orders" else "crash")
    assert dq.rank == 3 and dq.score == 0
    # Every scheduled game is decided: the disqualified seat forfeits the rest of its games.
    assert sum(p.score for p in result.players) == 6
    assert sum(line.endswith(" forfeit") for line in body) == 1
    after = body[next(i for i, x in enumerate(body) if x.endswith(" forfeit")) + 1 :]
    assert all("1" not in line.split(" ")[1:3] for line in after)


async def test_a_seat_that_cannot_start_forfeits_and_the_replay_verifies(tmp_path: Path) -> None:
    ghost = BotSpec(name="ghost", argv=("/nonexistent/bot",))
    replay = tmp_path / "ghost.replay"
    spec = MatchSpec(
        game="roshambolo",
        seed=2,
        options={"race_to": 3, "rounds": 2},
        bots=[builtin("roshambolo", "rock"), ghost, builtin("roshambolo", "counter")],
    )
    result = await run_match(spec, replay_path=replay)
    assert result.players[1].outcome == "start_failed"
    assert [p.rank for p in result.players] == [2, 3, 1]
    assert result.players[0].score + result.players[2].score == 6
    assert verify_file(replay).ok


def test_a_seat_that_plays_ahead_is_asked_for_the_rounds_certain_to_come() -> None:
    state = new_state(race_to=5, seed=2)
    a, b = state.to_move()
    first = state.begin_turn()
    assert first[a][-1].startswith("P ") and not first[a][0].startswith("N ")
    assert state.parse_order(a, ["2", "AHEAD"]) == "2"  # opts in with its first answer
    state.apply({a: "2", b: state.parse_order(b, ["1"])})  # paper beats rock: 1-0 for a
    asked = state.begin_turn()
    assert asked[a] == ["N 4", f"P 1 {a + 1} {b + 1}"]  # no O lines; 5 - 1 rounds certain
    assert asked[b][0].startswith("O ")
    lines = [state.apply({a: "2", b: "1"})]
    for _ in range(3):  # the 3 other answers it sent ahead: no message to it
        messages = state.begin_turn()
        assert list(messages) == [b]
        lines.append(state.apply({a: "2", b: "1"}))
    games_won = " ".join("1" if seat == a else "0" for seat in range(2))
    assert state.is_over() and state.final_message(a) == [f"END 1 {games_won}"]
    assert all(line.split(" ")[:3] == ["1", str(a + 1), str(b + 1)] for line in lines)
