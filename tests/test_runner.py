"""The match runner against real misbehaving bot processes."""

from __future__ import annotations

import os
import sys
import tempfile
import time

import pytest
import trio

from judge import runner
from judge.cpus import claim_cpu
from judge.models import BotSpec
from judge.runner import run_match
from tests.conftest import TEST_BOTS, builtin, misbehaving, processes_running, rps_spec


async def test_paper_beats_rock_1000_to_0() -> None:
    spec = rps_spec(builtin("rps", "rock"), builtin("rps", "paper"), turns=1000)
    result = await run_match(spec)
    assert [p.score for p in result.players] == [0, 1000]
    assert result.winner == 1 and not result.draw
    assert [p.outcome for p in result.players] == ["ok", "ok"]
    assert result.turns == 1000
    assert result.players[0].response.count == 1000


async def test_cycle_against_rock_exact_score() -> None:
    # cycle plays R, P, S...: ties on R, wins on P, loses on S. 1000 turns = 333 full cycles + R.
    spec = rps_spec(builtin("rps", "cycle"), builtin("rps", "rock"), turns=1000)
    result = await run_match(spec)
    assert [p.score for p in result.players] == [333, 333]
    assert result.draw and result.winner is None


async def test_same_seed_gives_identical_replay_body(tmp_path) -> None:
    bodies = []
    for run in range(2):
        path = tmp_path / f"{run}.replay"
        spec = rps_spec(builtin("rps", "random"), builtin("rps", "predictor"), turns=300, seed=42)
        await run_match(spec, replay_path=path)
        bodies.append([ln for ln in path.read_text().splitlines() if not ln.startswith("#")])
    assert bodies[0] == bodies[1]
    assert len(bodies[0]) == 300


async def test_replay_grows_while_the_match_runs(tmp_path) -> None:
    path = tmp_path / "live.replay"
    seen: list[int] = []

    async def watch() -> None:
        while True:
            if path.exists():
                lines = path.read_text().splitlines()
                seen.append(sum(1 for ln in lines if not ln.startswith("#")))
            await trio.sleep(0.05)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch)
        spec = rps_spec(builtin("rps", "rock"), misbehaving("slow", 1), turns=6)
        result = await run_match(spec, replay_path=path)
        nursery.cancel_scope.cancel()
    assert result.players[1].outcome == "ok"
    partial = [n for n in seen if 0 < n < 6]
    assert partial, f"the replay never held a partial match: {seen}"


# (mode, turn it misbehaves on, expected outcome code)
CASES = [
    ("sleep", 3, "timeout"),
    ("crash", 4, "crash"),
    ("exit", 2, "exit"),
    ("close_stdout", 2, "closed_stdout"),
    ("close_stdin", 2, "closed_stdin"),
    ("two_orders", 2, "multiple_orders"),
    ("only_dot", 1, "no_order"),
    ("illegal", 5, "invalid_order"),
    ("flood", 1, "protocol_error"),
    ("line_flood", 1, "protocol_error"),
    ("no_dot", 1, "timeout"),
    ("bad_utf8", 1, "protocol_error"),
    ("orphan", 2, "exit"),
]


@pytest.mark.parametrize(("mode", "turn", "outcome"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.usefixtures("no_leftovers")
async def test_misbehaving_bot_is_disqualified(mode: str, turn: int, outcome: str) -> None:
    spec = rps_spec(
        builtin("rps", "scissors"), misbehaving(mode, turn), turns=10, startup_allowance=2.0
    )
    began = time.monotonic()
    result = await run_match(spec)
    elapsed = time.monotonic() - began
    bad = result.players[1]
    assert bad.outcome == outcome, bad.reason
    assert bad.reason
    # It misbehaves on turn `turn`, so turn - 1 turns were played; a closed stdin
    # only shows when the judge next writes, one turn later.
    caught = turn + 1 if mode == "close_stdin" else turn
    assert result.turns == caught - 1
    assert bad.turn == caught
    assert result.winner == 0, "the well-behaved bot wins even though it was losing on score"
    assert bad.rank == 2
    assert elapsed < 10


@pytest.mark.usefixtures("no_leftovers")
async def test_answer_at_half_a_second_is_not_disqualified() -> None:
    spec = rps_spec(builtin("rps", "scissors"), misbehaving("slow", 1), turns=3)
    result = await run_match(spec)
    assert [p.outcome for p in result.players] == ["ok", "ok"]
    assert result.players[1].score == 3
    assert result.players[1].response.median_ms >= 450


@pytest.mark.usefixtures("no_leftovers")
async def test_bot_ignoring_sigterm_is_killed_after_the_end() -> None:
    spec = rps_spec(builtin("rps", "scissors"), misbehaving("ignore_term"), turns=5, end_grace=0.2)
    began = time.monotonic()
    result = await run_match(spec)
    assert time.monotonic() - began < 5
    assert [p.outcome for p in result.players] == ["ok", "ok"]
    assert result.players[1].score == 5


async def test_both_bots_failing_the_same_turn_is_a_draw() -> None:
    spec = rps_spec(misbehaving("crash", 2), misbehaving("illegal", 2), turns=10)
    result = await run_match(spec)
    assert [p.outcome for p in result.players] == ["crash", "invalid_order"]
    assert result.draw
    assert not processes_running(str(TEST_BOTS / "misbehave.py"))


async def test_missing_program_is_start_failed() -> None:
    from judge.models import BotSpec

    ghost = BotSpec(name="ghost", argv=("/nonexistent/bot",))
    result = await run_match(rps_spec(builtin("rps", "rock"), ghost))
    assert result.players[1].outcome == "start_failed"
    assert result.winner == 0


async def test_stderr_is_kept_bounded(tmp_path) -> None:
    from judge.models import BotSpec

    script = tmp_path / "noisy.py"
    script.write_text(
        "import sys\n"
        "sys.stderr.write('first words\\n' + 'x' * 200000 + '\\nlast words\\n')\n"
        "for line in sys.stdin:\n"
        "    if line.strip() == '.':\n"
        "        print('R'); print('.', flush=True)\n"
    )
    import sys

    noisy = BotSpec(name="noisy", argv=(sys.executable, str(script)))
    result = await run_match(rps_spec(noisy, builtin("rps", "rock"), turns=3))
    stderr = result.players[0].stderr
    assert stderr.startswith("first words")
    assert stderr.rstrip().endswith("last words")
    assert len(stderr) < 10000
    assert "bytes dropped" in stderr


@pytest.mark.usefixtures("no_leftovers")
@pytest.mark.parametrize("slow_seat", [0, 1])
async def test_a_slow_seat_adds_nothing_to_the_other_seats_times(slow_seat: int) -> None:
    # Issue 14 bug 2: rock's times included the 0.5 s of the slow bot in the seat before it.
    bots = [builtin("rps", "rock")]
    bots.insert(slow_seat, misbehaving("slow", 1))
    result = await run_match(rps_spec(*bots, turns=3))
    slow, rock = result.players[slow_seat], result.players[1 - slow_seat]
    assert [p.outcome for p in result.players] == ["ok", "ok"]
    assert slow.response.median_ms >= 450
    assert rock.response.count == 3
    assert rock.response.median_ms < 250, rock.response  # (the first answer includes start-up)


def _cpus_by_turn(stderr: str) -> dict[int, int]:
    """``turn T cpus N`` lines of tests/bots/affinity.py -> {T: N}."""
    found = {}
    for line in stderr.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[0] == "turn" and fields[2] == "cpus":
            found[int(fields[1])] = int(fields[3])
    return found


def _affinity_bot(slow_turn: int, nap_from: int = 0, nap: float = 0.002) -> BotSpec:
    script = TEST_BOTS / "affinity.py"
    argv = (sys.executable, str(script), str(slow_turn), str(nap_from), str(nap))
    return BotSpec(name=f"affinity-{slow_turn}-{nap_from}", argv=argv)


@pytest.fixture
def private_cpu_claims(tmp_path, monkeypatch):
    """CPU claims (judge.cpus lock files) in a directory of this test's own, so judges of
    other test runs on the machine cannot hold the CPUs it needs."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("co-location needs two CPUs")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    # Long enough that a loaded machine never spreads the bots before the slow turn.
    monkeypatch.setattr(runner, "COLOCATED_PATIENCE", 0.2)
    return tmp_path


@pytest.mark.usefixtures("private_cpu_claims")
async def test_colocated_match_shares_one_cpu_until_an_answer_takes_long() -> None:
    everywhere = len(os.sched_getaffinity(0))
    result = await run_match(rps_spec(_affinity_bot(5), _affinity_bot(0), turns=8), colocate=True)
    assert [p.outcome for p in result.players] == ["ok", "ok"]
    for player in result.players:
        cpus = _cpus_by_turn(player.stderr)
        assert sorted(cpus) == list(range(1, 9)), player.stderr
        assert cpus[1] == everywhere  # (bots start spread; the judge gathers them after turn 1)
        assert [cpus[t] for t in (2, 3, 4)] == [1, 1, 1], cpus
        # Seat 1 thought for 0.5 s on turn 5: the judge spread both bots while it waited.
        assert [cpus[t] for t in (6, 7, 8)] == [everywhere] * 3, cpus
    assert len(os.sched_getaffinity(0)) == everywhere  # the judge thread spread again too


@pytest.mark.usefixtures("private_cpu_claims")
async def test_match_is_not_colocated_when_every_cpu_is_claimed_or_not_asked() -> None:
    everywhere = len(os.sched_getaffinity(0))
    claims = [claim_cpu([cpu]) for cpu in sorted(os.sched_getaffinity(0))]
    try:
        held = await run_match(rps_spec(_affinity_bot(0), _affinity_bot(0), turns=4), colocate=True)
    finally:
        for claim in claims:
            assert claim is not None
            claim.release()
    plain = await run_match(rps_spec(_affinity_bot(0), _affinity_bot(0), turns=4))
    for result in (held, plain):
        for player in result.players:
            assert set(_cpus_by_turn(player.stderr).values()) == {everywhere}, player.stderr


@pytest.mark.usefixtures("private_cpu_claims")
async def test_spread_bots_are_gathered_again_later(monkeypatch) -> None:
    monkeypatch.setattr(runner, "REGATHER_AFTER", 3)
    result = await run_match(rps_spec(_affinity_bot(3), _affinity_bot(0), turns=9), colocate=True)
    everywhere = len(os.sched_getaffinity(0))
    for player in result.players:
        cpus = _cpus_by_turn(player.stderr)
        # Spread while turn 3 waited (2 turns played), gathered again once 2 + 3 were played.
        assert [cpus[t] for t in (2, 4, 5, 6, 7, 8, 9)] == [1, everywhere, everywhere, 1, 1, 1, 1]


@pytest.mark.usefixtures("private_cpu_claims")
async def test_spread_bots_are_gathered_again_as_soon_after_every_spreading(monkeypatch) -> None:
    # Each spreading lasts REGATHER_AFTER turns, the second one too: under load a long match
    # was spread for most of its turns once the spreadings doubled (issue 15 §2).
    monkeypatch.setattr(runner, "REGATHER_AFTER", 2)
    result = await run_match(rps_spec(_affinity_bot(3), _affinity_bot(7), turns=10), colocate=True)
    everywhere = len(os.sched_getaffinity(0))
    for player in result.players:
        cpus = _cpus_by_turn(player.stderr)
        # Spread while turn 3 waited, gathered once 4 were played; spread while turn 7
        # waited, gathered again once 8 were played.
        assert [cpus[t] for t in (2, 4, 5, 6, 8, 9, 10)] == [1, everywhere, 1, 1, everywhere, 1, 1]


@pytest.mark.usefixtures("private_cpu_claims")
async def test_colocated_bots_spread_when_the_judge_keeps_having_to_wait() -> None:
    # From turn 3 on one bot answers after a 2 ms sleep (less than the patience): every
    # turn waits, so at the checkpoint of turn 64 the bots are spread.
    everywhere = len(os.sched_getaffinity(0))
    result = await run_match(
        rps_spec(_affinity_bot(0, nap_from=3), _affinity_bot(0), turns=70), colocate=True
    )
    for player in result.players:
        cpus = _cpus_by_turn(player.stderr)
        assert cpus[2] == 1 and cpus[3] == 1, cpus
        assert [cpus[t] for t in range(66, 71)] == [everywhere] * 5, cpus


@pytest.mark.usefixtures("private_cpu_claims")
async def test_colocated_bots_stay_together_when_every_wait_is_short() -> None:
    # From turn 3 on one bot answers after a 0.1 ms sleep: every turn waits, but briefly (a
    # bot the judge's write did not run at once runs as the judge sleeps). A long match of
    # such turns stayed spread most of the time (issue 15 §2): they must not spread it.
    result = await run_match(
        rps_spec(_affinity_bot(0, nap_from=3, nap=0.0001), _affinity_bot(0), turns=200),
        colocate=True,
    )
    for player in result.players:
        cpus = _cpus_by_turn(player.stderr)
        assert [cpus[t] for t in range(2, 201)] == [1] * 199, cpus


async def test_young_collections_are_fewer_while_matches_run_then_as_before() -> None:
    # Two matches at once: the threshold is raised while either runs, restored after both.
    import gc

    before = gc.get_threshold()
    seen: list[int] = []

    def note(line: str) -> None:
        seen.append(gc.get_threshold()[0])

    async with trio.open_nursery() as nursery:
        for turns in (5, 400):
            spec = rps_spec(builtin("rps", "rock"), builtin("rps", "paper"), turns=turns)
            nursery.start_soon(lambda spec=spec: run_match(spec, sinks=[note]))
    assert len(seen) == 5 + 400 + 2 * 2  # (turn lines, and each match's header and result)
    assert set(seen) == {runner.GC_YOUNG_THRESHOLD}
    assert gc.get_threshold() == before


def test_response_stats_count_answers_sent_ahead_as_zeros() -> None:
    # Answers already queued when their turn began are counted, not stored: the statistics
    # are those of the list with that many zeros in it.
    import statistics

    times = [0.004, 0.001, 0.003, 0.002]
    for instant in range(8):
        everything = sorted(times + [0.0] * instant)
        stats = runner._stats(times, instant)
        assert stats.count == len(everything)
        assert stats.mean_ms == round(statistics.fmean(everything) * 1000, 3)
        assert stats.median_ms == round(statistics.median(everything) * 1000, 3)
        assert stats.p95_ms == round(everything[int(len(everything) * 0.95)] * 1000, 3)
        assert stats.max_ms == 4.0
    assert runner._stats([], 3).median_ms == runner._stats([], 3).max_ms == 0.0
