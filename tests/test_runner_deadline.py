"""The turn deadline is exact although the runner moves its scope's deadline only every 2 ms.

After fast turns the scope keeps the previous turn's deadline (up to DEADLINE_SLACK early);
when it fires early the runner waits on to the real deadline. These bots answer fast, then
once close to the 1 s deadline on either side of it.
"""

from __future__ import annotations

import pytest

from bench.common import BUILD_DIR, build
from judge.models import BotSpec, MatchSpec
from judge.runner import CHECKPOINT_EVERY, DEADLINE_SLACK, run_match
from tests.conftest import builtin, rps_spec


def slow_bot(delay_ms: int, turn: int) -> BotSpec:
    path = build("slow_bot")
    return BotSpec(
        name=f"slow{delay_ms}",
        argv=(str(path), str(delay_ms), str(turn), "1"),
        readonly_paths=(BUILD_DIR,),
    )


@pytest.mark.parametrize(("delay_ms", "outcome"), [(950, "ok"), (1050, "timeout")])
async def test_answer_near_the_deadline_after_fast_turns(delay_ms: int, outcome: str) -> None:
    assert DEADLINE_SLACK * 1000 < 1000 - 950  # the early fire is within the margin tested
    spec = rps_spec(builtin("rps", "scissors"), slow_bot(delay_ms, 30), turns=32, turn_deadline=1.0)
    result = await run_match(spec)
    slow = result.players[1]
    assert slow.outcome == outcome, slow.reason
    if outcome == "ok":
        assert result.turns == 32
        assert slow.response.max_ms >= delay_ms
    else:
        assert slow.turn == 30 and result.turns == 29
        assert slow.reason == "no complete answer within 1 s"


async def test_a_judge_busy_past_a_waiting_turns_deadline_loses_no_match() -> None:
    """Another match keeps the judge's thread busy (a blocking sink) for longer than the
    deadline of a turn that is waiting for an answer which came in time. The expired deadline
    cancels that match's scope after the answer is already taken; the match must go on, its
    bot not disqualified, and the busy match must finish too."""
    import time

    import trio

    # Match A's slow bot answers turn 64 after 300 ms; right after that turn the runner
    # checkpoints (every CHECKPOINT_EVERY turns), where the cancellation lands.
    assert CHECKPOINT_EVERY == 64
    waiting_from = 63
    seen = {"a": 0, "blocked": False}

    def count_a(line: str) -> None:
        if not line.startswith("#"):
            seen["a"] += 1

    def block_once(line: str) -> None:
        if not line.startswith("#") and seen["a"] >= waiting_from and not seen["blocked"]:
            seen["blocked"] = True
            time.sleep(1.5)  # the whole judge stalls, as under heavy load

    a = rps_spec(
        builtin("rps", "rock"),
        slow_bot(300, waiting_from + 1),
        turns=200,
        turn_deadline=1.0,
        startup_allowance=0.5,
    )
    b = rps_spec(builtin("rps", "rock"), builtin("rps", "paper"), turns=3000)
    results = {}

    async def play(name: str, spec: MatchSpec, sink: object) -> None:
        results[name] = await run_match(spec, sinks=[sink])  # type: ignore[list-item]

    async with trio.open_nursery() as nursery:
        nursery.start_soon(play, "a", a, count_a)
        nursery.start_soon(play, "b", b, block_once)
    assert seen["blocked"]
    assert [p.outcome for p in results["a"].players] == ["ok", "ok"], results["a"].players
    assert results["a"].turns == 200 and results["b"].turns == 3000


async def test_slow_turns_let_other_matches_run() -> None:
    """Turns that take long in the judge (here a sink that blocks 3 ms, as a big arena turn
    does) still let the judge's other tasks run every few turns, not only every
    CHECKPOINT_EVERY turns: otherwise every other match's answers wait.

    On one CPU the C bots' answers are in their pipes when the judge looks (after its yield),
    so turns run inline and only the runner's own checkpoints let another task in."""
    import itertools
    import os
    import time

    import trio

    from bench.common import c_bot
    from judge.runner import CHECKPOINT_AFTER

    assert CHECKPOINT_AFTER < 0.003 and CHECKPOINT_EVERY > 8
    played = {"turns": 0, "over": False}
    seen_at: list[int] = []

    def slow_sink(line: str) -> None:
        if not line.startswith("#"):
            played["turns"] += 1
            time.sleep(0.003)

    async def match() -> None:
        spec = rps_spec(c_bot(), c_bot(), turns=200)
        await run_match(spec, sinks=[slow_sink])
        played["over"] = True

    async def other_task() -> None:
        while not played["over"]:
            seen_at.append(played["turns"])
            await trio.lowlevel.checkpoint()

    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cpus)})
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(match)
            nursery.start_soon(other_task)
    finally:
        os.sched_setaffinity(0, cpus)
    assert played["turns"] == 200
    gaps = [b - a for a, b in itertools.pairwise(seen_at)]
    assert max(gaps) <= 4, [g for g in gaps if g]  # trio may run either task first in a round
