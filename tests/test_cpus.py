"""CPU claims (judge/cpus.py): lock files in the temporary directory, one judge per core."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from judge.cpus import claim_cpu, lock_path


def test_a_core_claimed_once_is_not_claimed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    first = claim_cpu([0, 1])
    second = claim_cpu([0, 1])
    assert first is not None and second is not None
    assert (first.cpu, second.cpu) == (0, 1)
    assert claim_cpu([0, 1]) is None
    first.release()
    again = claim_cpu([0, 1])
    assert again is not None and again.cpu == 0


def test_a_lock_file_that_is_a_symlink_is_skipped_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Someone else's symlink in the shared temporary directory must neither be followed
    # (creating its target) nor stop the judge: that core is passed over.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    target = tmp_path / "elsewhere"
    os.symlink(target, lock_path(0))
    claim = claim_cpu([0, 1])
    assert claim is not None and claim.cpu == 1
    assert not target.exists()
