"""The turn deadline is exact although the runner moves its scope's deadline only every 2 ms.

After fast turns the scope keeps the previous turn's deadline (up to DEADLINE_SLACK early);
when it fires early the runner waits on to the real deadline. These bots answer fast, then
once close to the 1 s deadline on either side of it.
"""

from __future__ import annotations

import pytest

from bench.common import BUILD_DIR, build
from judge.models import BotSpec
from judge.runner import DEADLINE_SLACK, run_match
from tests.conftest import builtin, rps_spec


def slow_bot(delay_ms: int, turn: int) -> BotSpec:
    path = build("slow_bot")
    return BotSpec(name=f"slow{delay_ms}", argv=(str(path), str(delay_ms), str(turn), "1"),
                   readonly_paths=(BUILD_DIR,))


@pytest.mark.parametrize(("delay_ms", "outcome"), [(950, "ok"), (1050, "timeout")])
async def test_answer_near_the_deadline_after_fast_turns(delay_ms: int, outcome: str) -> None:
    assert DEADLINE_SLACK * 1000 < 1000 - 950  # the early fire is within the margin tested
    spec = rps_spec(builtin("rps", "scissors"), slow_bot(delay_ms, 30), turns=32,
                    turn_deadline=1.0)
    result = await run_match(spec)
    slow = result.players[1]
    assert slow.outcome == outcome, slow.reason
    if outcome == "ok":
        assert result.turns == 32
        assert slow.response.max_ms >= delay_ms
    else:
        assert slow.turn == 30 and result.turns == 29
        assert slow.reason == "no complete answer within 1 s"
