"""The rpscontest regression set (tests/corpus/rpscontest.py): entries played through the
judge must do what python2.7 did with them in an rpscontest-style harness.

Our own entries (tests/bots/rpscontest_py2: one per Python 2 meaning that Python 3 lost)
always run, against expectations recorded with python2.7. The public corpus (2,204
rpscontest.com entries, not ours to publish) runs where ``JUDGE_RPS_CORPUS`` names a folder
of them; its expectations are recorded in tests/corpus/rpscontest_expected.json.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, TEST_BOTS

sys.path.insert(0, str(ROOT / "tests" / "corpus"))
import rpscontest

OWN = TEST_BOTS / "rpscontest_py2"


def test_own_entries_play_as_python27_played_them() -> None:
    recorded = json.loads((rpscontest.HERE / "own_expected.json").read_text())["entries"]
    assert len(recorded) == len(list(OWN.glob("*.py")))  # every entry has its expectation
    passed, failures = rpscontest.check(OWN, [], 2, rpscontest.HERE / "own_expected.json")
    assert not failures
    assert passed == len(recorded)


def test_the_public_corpus_expectations_are_complete() -> None:
    entries = json.loads(rpscontest.EXPECTED.read_text())["entries"]
    assert len(entries) == 2204
    playing = [e for e in entries.values() if e["plays"]]
    assert len(playing) == 2197
    assert all("moves" in e for e in playing if e["repeatable"])


@pytest.mark.skipif(
    not os.environ.get("JUDGE_RPS_CORPUS"),
    reason="JUDGE_RPS_CORPUS names no folder of rpscontest entries (docs/adapters.md)",
)
def test_the_public_corpus_plays_as_python27_played_it() -> None:
    corpus = Path(os.environ["JUDGE_RPS_CORPUS"])
    passed, failures = rpscontest.check(corpus, [], None)
    assert passed / (passed + len(failures)) >= 0.995, failures
