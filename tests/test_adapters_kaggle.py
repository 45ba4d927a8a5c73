"""Kaggle "Rock, Paper, Scissors" agents run unchanged in the rps game (games/rps/kaggle.py):
``agent(observation, configuration)`` or a file's last two-parameter function, actions 0/1/2."""

from __future__ import annotations

from pathlib import Path

from judge.bots import resolve
from judge.models import MatchResult, MatchSpec
from judge.runner import run_match
from tests.conftest import TEST_BOTS, builtin

KAGGLE = TEST_BOTS / "kaggle"

PROTOCOL_BOT = """
import sys

def choose(history, rng):
    return "P"

for line in sys.stdin:
    if line.startswith("END"):
        break
    if line.strip() == ".":
        print(choose([], None) + "\\n.", flush=True)
"""

LAST_FUNCTION_AGENT = """
def helper(a):
    return a % 3

def my_agent(obs, conf):
    return helper(obs.step + (obs.lastOpponentAction or 0))
"""


async def kaggle_match(path: Path, opponent: str = "rock", turns: int = 50) -> MatchResult:
    bots = [resolve(str(path), "rps"), builtin("rps", opponent)]
    return await run_match(MatchSpec(game="rps", bots=bots, seed=3, options={"turns": turns}))


async def test_a_stateful_agent_plays_unchanged_and_replays_exactly() -> None:
    bot = resolve(str(KAGGLE / "stateful.py"), "rps")
    assert bot.argv[-2].endswith("games/rps/kaggle.py")
    first = await kaggle_match(KAGGLE / "stateful.py")
    again = await kaggle_match(KAGGLE / "stateful.py")
    assert first.players[0].outcome == "ok" and first.turns == 50, first.players[0].stderr
    # Counting the opponent's moves, it plays paper against rock from turn 4 on.
    assert first.players[0].score >= 46
    assert [p.score for p in first.players] == [p.score for p in again.players]


async def test_the_last_two_parameter_function_is_the_agent(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(LAST_FUNCTION_AGENT)
    result = await kaggle_match(tmp_path / "agent.py", "rock", turns=9)
    # step + rock(0): rock, paper, scissors, ... against rock.
    assert result.players[0].outcome == "ok" and [p.score for p in result.players] == [3, 3]


async def test_a_protocol_bot_with_a_two_parameter_function_stays_a_protocol_bot(
    tmp_path: Path,
) -> None:
    (tmp_path / "bot.py").write_text(PROTOCOL_BOT)
    argv = resolve(str(tmp_path / "bot.py"), "rps").argv
    assert not any(word.endswith("kaggle.py") for word in argv), argv
    result = await kaggle_match(tmp_path / "bot.py", turns=5)
    assert result.players[0].outcome == "ok" and result.players[0].score == 5


async def test_an_agents_exception_is_a_crash_naming_it_and_its_line() -> None:
    result = await kaggle_match(KAGGLE / "raises.py", turns=10)
    failed = result.players[0]
    assert (failed.outcome, failed.turn) == ("crash", 5)
    last = failed.stderr.strip().splitlines()[-1]
    assert last == "IndexError: list index out of range (line 3 of raises.py)", last


async def test_an_action_that_is_not_0_1_or_2_is_an_invalid_order() -> None:
    result = await kaggle_match(KAGGLE / "bad_action.py", turns=10)
    bad = result.players[0]
    assert (bad.outcome, bad.turn) == ("invalid_order", 3)
    assert "action='rock'" in bad.reason


async def test_an_agent_using_numpy_scipy_and_sklearn_plays(tmp_path: Path) -> None:
    """The bot runtime (numpy, scipy, scikit-learn, installed by `uv sync`) is there for
    Python bots in the sandbox, as contest and Kaggle entries expect."""
    (tmp_path / "science.py").write_text(SCIENCE_AGENT)
    result = await kaggle_match(tmp_path / "science.py", "cycle", turns=30)
    assert result.players[0].outcome == "ok", result.players[0].stderr
    assert result.players[0].score >= 20  # it learns cycle's order
    numpy_agent = await kaggle_match(KAGGLE / "transition.py", "cycle", turns=60)
    assert numpy_agent.players[0].outcome == "ok", numpy_agent.players[0].stderr
    assert numpy_agent.players[0].score > numpy_agent.players[1].score


SCIENCE_AGENT = """
import numpy as np
from scipy.special import softmax
from sklearn.naive_bayes import MultinomialNB

seen = []

def agent(observation, configuration):
    if observation.step > 0:
        seen.append(observation.lastOpponentAction)
    if len(seen) < 3 or len(set(seen)) < 2:
        guess = seen[-1] if seen else 0
    else:
        model = MultinomialNB().fit(np.eye(3)[seen[:-1]], seen[1:])
        guess = int(np.argmax(softmax(model.predict_log_proba(np.eye(3)[[seen[-1]]])[0])))
    return (guess + 1) % 3
"""
