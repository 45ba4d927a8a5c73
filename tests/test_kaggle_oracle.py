"""``-o rules=kaggle`` plays rps exactly as Kaggle does, with kaggle-environments (a dev
dependency) as the oracle: every ordered pair of Kaggle's own rps agents, and agents of ours
for each edge case, make the same moves and end with the same result in both."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from judge.bots import resolve
from judge.models import MatchResult, MatchSpec
from judge.runner import run_match
from tests.conftest import TEST_BOTS

ORACLE = Path(__file__).resolve().parent / "kaggle_oracle.py"
KAGGLE = TEST_BOTS / "kaggle"
SEED = 11

pytest.importorskip("kaggle_environments", reason="kaggle-environments (a dev dependency)")


def oracle(request: dict[str, Any], tmp_path: Path) -> Any:
    ask = tmp_path / "request.json"
    out = tmp_path / "oracle.json"
    ask.write_text(json.dumps({**request, "out": str(out)}))
    done = subprocess.run(
        [sys.executable, str(ORACLE), str(ask)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


async def judged(
    pair: list[str], episode_steps: int, overage: float, tmp_path: Path
) -> tuple[MatchResult, list[list[int]]]:
    options = {"rules": "kaggle", "turns": episode_steps, "overage": overage}
    spec = MatchSpec(game="rps", bots=[resolve(p, "rps") for p in pair], seed=SEED, options=options)
    replay = tmp_path / "judged.replay"
    result = await run_match(spec, replay_path=replay)
    moves = [
        ["RPS".index(order) for order in line.split()[2:4]]
        for line in replay.read_text().splitlines()
        if line and not line.startswith("#")
    ]
    return result, moves


def kaggle_winner(rewards: list[float | None]) -> int | None:
    """The seat Kaggle's rewards make the winner (None: a draw); None is a failed agent's."""
    first, second = rewards
    if first is None or second is None:
        return None if first is second else (1 if first is None else 0)
    return None if first == second else (0 if first > second else 1)


def same_play(kaggle: dict[str, Any], result: MatchResult, moves: list[list[int]]) -> None:
    played = [step for step in kaggle["actions"] if None not in step]
    assert moves == played, f"first difference at round {_first_difference(moves, played)}"
    assert result.winner == kaggle_winner(kaggle["rewards"]), (kaggle, result.players)
    assert result.draw == (result.winner is None)


def _first_difference(mine: list[list[int]], theirs: list[list[int]]) -> int:
    for index, (a, b) in enumerate(zip(mine, theirs, strict=False)):
        if a != b:
            return index + 1
    return min(len(mine), len(theirs)) + 1


@pytest.mark.timeout(900)
async def test_every_pair_of_kaggles_own_agents_plays_as_on_kaggle(tmp_path: Path) -> None:
    files = oracle({"write_builtin_agents": str(tmp_path)}, tmp_path)
    assert {"statistical", "reactionary", "copy_opponent"} <= set(files)
    pairs = [[files[a], files[b]] for a in sorted(files) for b in sorted(files)]
    expected = oracle(
        {"pairs": pairs, "episode_steps": 1000, "overage": 60, "seed": SEED}, tmp_path
    )
    draws = 0
    for pair, kaggle in zip(pairs, expected, strict=True):
        result, moves = await judged(pair, 1000, 60, tmp_path)
        assert len(moves) == 999, (pair, result.players)  # episodeSteps 1000: 999 rounds
        same_play(kaggle, result, moves)
        draws += result.draw
    # Kaggle's draws by tieRewardThreshold (rock vs rock, and pairs within 20) are draws here.
    assert draws >= 7


EDGE_CASES = [
    "returns_none.py",
    "one_parameter.py",
    "one_parameter_other_name.py",
    "agent_then_last.py",
    "numpy_action.py",
    "missing_field.py",
    "raises.py",
    "bad_action.py",
]


@pytest.mark.timeout(600)
async def test_our_edge_case_agents_play_as_on_kaggle(tmp_path: Path) -> None:
    files = oracle({"write_builtin_agents": str(tmp_path)}, tmp_path)
    opponents = [files["statistical"], files["reactionary"]]
    pairs = [[str(KAGGLE / name), opponent] for name in EDGE_CASES for opponent in opponents]
    pairs += [[files["copy_opponent"], str(KAGGLE / name)] for name in EDGE_CASES]
    expected = oracle({"pairs": pairs, "episode_steps": 60, "overage": 60, "seed": SEED}, tmp_path)
    for pair, kaggle in zip(pairs, expected, strict=True):
        result, moves = await judged(pair, 60, 60, tmp_path)
        same_play(kaggle, result, moves)
    # Not vacuous: the None agent played (rock for None), the numpy agent was refused.
    none_agent = expected[0]
    assert none_agent["statuses"] == ["DONE", "DONE"] and none_agent["actions"][0][0] == 0
    numpy_agent = expected[EDGE_CASES.index("numpy_action.py") * 2]
    assert numpy_agent["statuses"][0] == "INVALID"


@pytest.mark.timeout(300)
async def test_slow_steps_within_and_beyond_the_overage_as_on_kaggle(tmp_path: Path) -> None:
    """One second per step plus a budget that counts down (1 s here, Kaggle's 60 s in play):
    a 1.4 s step leaves 0.6 s, which the agent is told; 1.7 s steps run out at the second."""
    pairs = [
        [str(KAGGLE / "slow_within_overage.py"), str(KAGGLE / "one_parameter.py")],
        [str(KAGGLE / "one_parameter.py"), str(KAGGLE / "slow_beyond_overage.py")],
    ]
    expected = oracle({"pairs": pairs, "episode_steps": 8, "overage": 1, "seed": SEED}, tmp_path)
    within, beyond = expected
    assert within["statuses"] == ["DONE", "DONE"] and within["actions"][3][0] == 1
    assert beyond["statuses"][1] in ("TIMEOUT", "INVALID") and len(beyond["actions"]) == 4
    for pair, kaggle in zip(pairs, expected, strict=True):
        result, moves = await judged(pair, 8, 1, tmp_path)
        same_play(kaggle, result, moves)
    slow = result.players[1]
    assert (slow.outcome, slow.turn) == ("timeout", 4), slow
