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


async def kaggle_match(
    path: Path, opponent: str = "rock", turns: int = 50, startup: float = 5.0
) -> MatchResult:
    bots = [resolve(str(path), "rps"), builtin("rps", opponent)]
    spec = MatchSpec(
        game="rps", bots=bots, seed=3, options={"turns": turns}, startup_allowance=startup
    )
    return await run_match(spec)


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
    # Importing scikit-learn takes seconds on a busy machine: not what this test is about.
    result = await kaggle_match(tmp_path / "science.py", "cycle", turns=30, startup=120)
    assert result.players[0].outcome == "ok", result.players[0].stderr
    assert result.players[0].score >= 20  # it learns cycle's order
    numpy_agent = await kaggle_match(KAGGLE / "transition.py", "cycle", turns=60, startup=120)
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


async def test_one_parameter_agents_are_found_and_called_with_the_observation() -> None:
    named = await kaggle_match(KAGGLE / "one_parameter.py", "rock", turns=9)
    assert named.players[0].outcome == "ok", named.players[0].stderr
    assert [p.score for p in named.players] == [3, 3]  # step % 3: R, P, S... against rock
    other = resolve(str(KAGGLE / "one_parameter_other_name.py"), "rps")
    assert other.argv[-2].endswith("games/rps/kaggle.py"), other.argv


async def test_under_the_default_rules_the_judges_own_choices_hold() -> None:
    """None is refused, numpy integers count, ``agent`` is preferred to a later function,
    a field not there yet reads None, and there is no overage: one 1.5 s step times out."""
    none = await kaggle_match(KAGGLE / "returns_none.py", turns=5)
    assert (none.players[0].outcome, none.players[0].turn) == ("invalid_order", 1)
    numpy = await kaggle_match(KAGGLE / "numpy_action.py", turns=9)
    assert numpy.players[0].outcome == "ok" and numpy.players[0].score == 3
    named = await kaggle_match(KAGGLE / "agent_then_last.py", "scissors", turns=10)
    assert [p.score for p in named.players] == [10, 0]  # agent's rock, not second's random
    missing = await kaggle_match(KAGGLE / "missing_field.py", "rock", turns=3)
    assert missing.players[0].outcome == "crash", missing.players[0].stderr
    assert "TypeError" in missing.players[0].stderr  # None + 1, not Kaggle's AttributeError
    slow = await kaggle_match(KAGGLE / "slow_within_overage.py", turns=5)
    assert (slow.players[0].outcome, slow.players[0].turn) == ("timeout", 3)


async def test_under_kaggles_rules_a_none_is_rock_and_episode_steps_count_the_first() -> None:
    bots = [resolve(str(KAGGLE / "returns_none.py"), "rps"), builtin("rps", "paper")]
    result = await run_match(
        MatchSpec(game="rps", bots=bots, seed=3, options={"turns": 30, "rules": "kaggle"})
    )
    assert result.players[0].outcome == "ok", result.players[0].stderr
    assert result.turns == 29
    # Paper wins the 5 rounds of None (rock) and loses the 24 others: 19 apart, a draw.
    assert [p.score for p in result.players] == [24, 5]
    assert result.draw and result.winner is None
