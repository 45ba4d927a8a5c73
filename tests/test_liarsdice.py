"""Liar's dice: the state machine (examples from rules.md §2, properties), bots and adapter."""

from __future__ import annotations

import json
import random
import re
import shutil
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import GameOptions, IllegalOrder
from games.liarsdice.rules import LiarsDice
from judge.bots import resolve
from judge.models import BotSpec, MatchSpec
from judge.runner import run_match
from tests.conftest import TEST_BOTS, misbehaving

ORIGINAL = TEST_BOTS / "original"
HANDS = re.compile(r"[A-Z]:([1-6]*|x*)(,[A-Z]:([1-6]*|x*))*")
HISTORY = re.compile(r"([A-Z]:[0-9]+(,[A-Z]:[0-9]+)*)?")


class ScriptedRng(random.Random):
    """Seat order and dice chosen by the test: ``shuffle`` applies ``order``, ``randint`` pops."""

    def __init__(self, order: Sequence[int], dice: Sequence[int]) -> None:
        super().__init__(0)
        self.order = list(order)
        self.rolls: Iterator[int] = iter(dice)

    def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
        x[:] = [x[i] for i in self.order]

    def randint(self, a: int, b: int) -> int:
        return next(self.rolls)


def game(seats: int, rng: random.Random) -> LiarsDice:
    return LiarsDice(seats=seats, options=GameOptions(), rng=rng)


def play(state: LiarsDice, order: str) -> tuple[dict[int, list[str]], str]:
    messages = state.begin_turn()
    (seat,) = messages
    return messages, state.apply({seat: state.parse_order(seat, [order])})


def test_the_robot_example_of_rules_2_6() -> None:
    # Seat order B, A; hand 1: B 55431, A 66543; hand 2: B 6551, A 65321 (the logs in §2.6).
    rng = ScriptedRng([1, 0], [5, 5, 4, 3, 1, 6, 6, 5, 4, 3, 6, 5, 5, 1, 6, 5, 3, 2, 1])
    state = game(2, rng)
    assert state.to_move() == (1,)
    messages, line = play(state, "0")
    assert messages == {1: ["Y B", "H B:55431,A:xxxxx", "P"]}
    assert line == "H1 B 0 | B:55431,A:66543 B:0 LOSER:B 1"
    # The next hand is opened by the first seat with dice after the caller: A.
    assert state.to_move() == (0,)
    messages, line = play(state, "16")
    assert messages == {0: ["Y A", "S B:55431,A:66543 B:0 B 1", "H B:xxxx,A:65321", "P"]}
    assert line == "H2 A 16"
    messages, line = play(state, "0")
    assert messages == {1: ["Y B", "S B:55431,A:66543 B:0 B 1", "H B:6551,A:xxxxx", "P A:16"]}
    assert line == "H2 B 0 | B:6551,A:65321 A:16,B:0 LOSER:B 2"
    assert state.cups == [5, 3]


def test_bid_not_met_costs_the_bidder_and_eliminated_seats_show_empty() -> None:
    # Order A, B, C; C starts with a single die. Hand 1: A 11111, B 22222, C 3.
    rng = ScriptedRng([0, 1, 2], [1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3] + [4] * 100)
    state = game(3, rng)
    state.cups[2] = 1
    _, line = play(state, "23")
    assert line == "H1 A 23"
    _, line = play(state, "0")  # one three < two threes: the bidder A loses
    assert line == "H1 B 0 | A:11111,B:22222,C:3 A:23,B:0 LOSER:A 3"
    assert state.to_move() == (2,)  # C, the first seat with dice after the caller B
    _, line = play(state, "0")
    assert line == "H2 C 0 | A:4444,B:44444,C:4 C:0 LOSER:C 1"
    messages, _ = play(state, "12")
    assert messages[0][-2:] == ["H A:4444,B:xxxxx,C:", "P"]
    assert state.eliminated == [2]


def test_illegal_and_non_increasing_bids_are_liar_calls_recorded_as_0() -> None:
    rng = ScriptedRng([0, 1], [6] * 200)
    state = game(2, rng)
    _, line = play(state, "37")  # face 7 is illegal
    assert line == "H1 A 0 illegal:37 | A:66666,B:66666 A:0 LOSER:A 1"
    _, line = play(state, "116")  # eleven sixes: over the cap of 10 dice
    assert line == "H2 B 0 illegal:116 | A:6666,B:66666 B:0 LOSER:B 1"
    _, line = play(state, "34")
    _, line = play(state, "33")  # lower face, same quantity
    assert line == "H3 B 0 not-increasing:33 | A:6666,B:6666 A:34,B:0 LOSER:A 3"
    assert state.history_string() == ""


def test_quantity_cap_is_the_initial_total_of_dice() -> None:
    rng = ScriptedRng([0, 1], [6] * 200)
    state = game(2, rng)
    state.cups = [1, 1]
    _, line = play(state, "106")  # ten sixes with only 2 dice left: legal, just false
    assert line == "H1 A 106"
    _, line = play(state, "0")
    assert line.endswith("LOSER:A 3")
    assert state.is_over() and state.result().winner == 1


@pytest.mark.parametrize("text", ["abc", "1.5", "", "16 17", "0x10"])
def test_answers_that_are_not_whole_numbers_disqualify(text: str) -> None:
    state = game(2, random.Random(1))
    state.begin_turn()
    with pytest.raises(IllegalOrder):
        state.parse_order(state.to_move()[0], text.split(" ") if text else [])


def test_parse_order_canonical_forms() -> None:
    state = game(2, random.Random(1))
    assert state.parse_order(0, [" +016 "]) == "16"
    assert state.parse_order(0, ["-5"]) == "-5"


def test_disqualified_mover_loses_all_dice_and_the_hand_is_void() -> None:
    state = game(3, random.Random(4))
    first = state.to_move()[0]
    play(state, "12")
    second = state.to_move()[0]
    state.begin_turn()
    state.disqualify(second, "timeout")
    assert state.cups[second] == 0 and not state.is_over()
    third = state.next_active_after(second)
    assert state.to_move() == (third,)
    messages = state.begin_turn()
    assert messages[third][1] == f"D {'ABC'[second]} timeout"
    assert messages[third][-1] == "P"  # a fresh hand
    assert state.hand == 2
    shown = dict(entry.split(":") for entry in messages[third][2][2:].split(","))
    assert shown["ABC"[second]] == ""
    assert first != second


def test_disqualification_of_one_of_two_ends_the_game() -> None:
    state = game(2, random.Random(4))
    state.disqualify(0, "start_failed")
    assert state.is_over()
    result = state.result()
    assert result.winner == 1 and result.ranks == (2, 1)


def test_final_message_carries_unseen_showdowns_to_the_eliminated() -> None:
    rng = ScriptedRng([0, 1, 2], [6] * 500)
    state = game(3, rng)
    state.cups[1] = 1
    play(state, "0")  # A opens with liar: A loses a die
    messages, _ = play(state, "0")  # B (told of hand 1 now) opens with liar: B is out
    assert messages[1][1] == "S A:66666,B:6,C:66666 A:0 A 1"
    play(state, "0")  # C opens with liar; B no longer plays but must see both showdowns
    final = state.final_message(1)
    assert final[0] == "Y B"
    assert [ln for ln in final if ln.startswith("S ")] == [
        "S A:6666,B:6,C:66666 B:0 B 1",
        "S A:6666,C:66666 C:0 C 1",
    ]
    assert final[-1].startswith("END")
    assert state.final_message(1) == ["Y B", final[-1]]  # told once


def drive(state: LiarsDice, choose: Any) -> list[str]:
    lines = []
    for _ in range(20_000):
        if state.is_over():
            break
        messages = state.begin_turn()
        (seat,) = messages
        lines.append(state.apply({seat: state.parse_order(seat, [str(choose(messages[seat]))])}))
    return lines


@settings(max_examples=150, deadline=None)
@given(seats=st.integers(2, 7), seed=st.integers(0, 2**32), data=st.data())
def test_properties_of_whole_games(seats: int, seed: int, data: st.DataObject) -> None:
    state = game(seats, random.Random(seed))
    plays = st.one_of(st.just(0), st.integers(-20, 400), st.integers(11, 66))
    cups_before = list(state.cups)
    hands_seen = 0
    for _ in range(20_000):
        if state.is_over():
            break
        messages = state.begin_turn()
        assert len(messages) == 1
        ((seat, lines),) = messages.items()
        assert lines[0] == f"Y {'ABCDEFG'[seat]}"
        hands = lines[-2].removeprefix("H ")
        history = lines[-1].removeprefix("P").removeprefix(" ")
        assert HANDS.fullmatch(hands) and HISTORY.fullmatch(history)
        shown = dict(entry.split(":") for entry in hands.split(","))
        assert list(shown) == ["ABCDEFG"[s] for s in state.order]
        own = shown["ABCDEFG"[seat]]
        assert own == "".join(sorted(own, reverse=True)) and len(own) == state.cups[seat] > 0
        assert all(set(v) <= {"x"} for k, v in shown.items() if k != "ABCDEFG"[seat])
        line = state.apply({seat: str(data.draw(plays))})
        if " | " in line:
            hands_seen += 1
            changes = [b - a for a, b in zip(cups_before, state.cups, strict=True)]
            assert sorted(changes) == [-1] + [0] * (seats - 1)  # exactly one die lost
            cups_before = list(state.cups)
    assert state.is_over()
    result = state.result()
    assert result.scores.count(1.0) == 1 and result.winner is not None
    assert sorted(result.ranks) == list(range(1, seats + 1))
    assert hands_seen == seats * 5 - state.cups[result.winner]


@settings(max_examples=40, deadline=None)
@given(seats=st.integers(2, 5), seed=st.integers(0, 2**32))
def test_replay_lines_re_simulate_from_the_seed(seats: int, seed: int) -> None:
    chooser = random.Random(seed + 1)
    choices = [0, 12, 25, 34, 99, 7]
    lines = drive(game(seats, random.Random(seed)), lambda _: chooser.choice(choices))
    again = game(seats, random.Random(seed))
    replayed = []
    for line in lines:
        again.begin_turn()
        replayed.append(again.apply(again.orders_from_line(line)))
    assert replayed == lines and again.is_over()


# -- real processes --------------------------------------------------------------------------


def spec(*bots: str, seed: int = 3) -> MatchSpec:
    return MatchSpec(game="liarsdice", bots=[resolve(b, "liarsdice") for b in bots], seed=seed)


async def test_computer_beats_robot_with_all_its_dice(tmp_path: Path) -> None:
    replay = tmp_path / "ld.replay"
    result = await run_match(spec("robot", "computer"), replay_path=replay)
    assert result.winner == 1 and [p.outcome for p in result.players] == ["ok", "ok"]
    body = [ln for ln in replay.read_text().splitlines() if not ln.startswith("#")]
    enders = [ln for ln in body if " | " in ln]
    # The robot loses every hand (an opening liar call, or a call on a true "one of my highest").
    assert len(enders) == 5 and all(ln.endswith(("LOSER:A 1", "LOSER:A 2")) for ln in enders)


async def test_three_seats_with_a_crashing_bot_go_on(tmp_path: Path) -> None:
    computer = resolve("computer", "liarsdice")
    bots = [computer, misbehaving("crash", 1), computer]
    result = await run_match(MatchSpec(game="liarsdice", bots=bots, seed=11))
    # The runner may see the closed pipe before the exit status (a race of the core runner).
    assert result.players[1].outcome in ("crash", "closed_stdout")
    assert result.players[1].rank == 3
    assert result.winner in (0, 2)
    assert sorted(p.rank for p in result.players) == [1, 2, 3]


async def test_adapter_makes_the_original_calls_including_the_showdown(tmp_path: Path) -> None:
    bot = tmp_path / "ld_recorder.py"
    shutil.copy(ORIGINAL / "ld_recorder.py", bot)
    replay = tmp_path / "m.replay"
    result = await run_match(spec(str(bot), "robot", seed=5), replay_path=replay)
    assert [p.outcome for p in result.players] == ["ok", "ok"]
    assert result.winner == 0
    calls = [line.split("|") for line in (tmp_path / "calls.log").read_text().splitlines()]
    body = [ln for ln in replay.read_text().splitlines() if not ln.startswith("#")]
    showdowns = [(ln.split(" | ")[1].split(" ")[:2]) for ln in body if " | " in ln]
    seen_showdowns = [[h, hist] for me, h, hist in calls if hist.endswith(":0")]
    assert seen_showdowns == showdowns  # every hand's showdown, revealed, in order
    assert all(me == "A" for me, _, _ in calls)
    turns = [(h, hist) for _, h, hist in calls if not hist.endswith(":0")]
    assert turns and all(re.fullmatch(r"[AB]:[1-6x]+,[AB]:[1-6x]+", h) for h, _ in turns)
    assert all("x" not in h.split("A:")[1].split(",")[0] for h, _ in turns)  # own dice shown


async def test_adapter_exceptions_count_as_liar_and_int_conversion(tmp_path: Path) -> None:
    bots = (str(ORIGINAL / "ld_raises.py"), str(ORIGINAL / "ld_float.py"))
    result = await run_match(spec(*bots, seed=0))  # (dice where its liar calls lose)
    assert [p.outcome for p in result.players] == ["ok", "ok"]
    assert result.winner == 1
    assert "this bot is broken" in result.players[0].stderr


async def test_a_mid_hand_disqualification_replays_and_verifies(tmp_path: Path) -> None:
    from replays.verify import verify_file

    quitter = BotSpec(name="quitter", argv=(sys.executable, str(TEST_BOTS / "ld_quits.py"), "3"))
    computer = resolve("computer", "liarsdice")
    for seed in (1, 3, 4, 5):  # (dice that have B leave inside a hand)
        replay = tmp_path / f"{seed}.replay"
        result = await run_match(
            MatchSpec(game="liarsdice", bots=[computer, quitter, computer], seed=seed),
            replay_path=replay,
        )
        assert result.players[1].outcome in ("exit", "crash", "closed_stdout")
        assert result.players[1].rank == 3 and result.winner in (0, 2)
        report = verify_file(replay)
        assert report.ok, report.describe()
        lines = [ln for ln in replay.read_text().splitlines() if not ln.startswith("#j")]
        at = next(i for i, ln in enumerate(lines) if ln.startswith("#dq "))
        assert json.loads(lines[at][4:])["seat"] == 1
        before, after = lines[at - 1], lines[at + 1]
        # B left in the middle of a hand: no showdown, the next hand has a new number and is
        # opened by the first seat after B in seat order.
        assert " | " not in before
        assert int(after.split()[0][1:]) == int(before.split()[0][1:]) + 1
        order = result.summary.split("seat order ")[1].rstrip(")").split(",")
        assert after.split()[1] == order[(order.index("B") + 1) % 3]
