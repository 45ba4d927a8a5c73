"""Faults in words: what /api/health says, and which errors are a 503 rather than a 500."""

from __future__ import annotations

import errno
import time

import pytest

from judge.server import health
from judge.server.health import Faults, describe, unservable
from judge.server.storage import StorageUnavailable


def test_faults_are_named_and_cleared() -> None:
    faults = Faults()
    faults.failed("recording a match", OSError(errno.ENOSPC, "No space left on device"))
    (problem,) = faults.active()
    assert problem.startswith("recording a match failing for ")
    assert problem.endswith("disk full: No space left on device")
    faults.recovered("recording a match")
    assert faults.active() == []


def test_a_fault_not_seen_again_is_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    faults = Faults()
    faults.failed("heartbeat", StorageUnavailable("the database is unreachable", "refused"))
    assert faults.active() == ["heartbeat failing for 0 s: the database is unreachable: refused"]
    later = time.time() + health.FAULT_MEMORY + 1
    monkeypatch.setattr(health.time, "time", lambda: later)
    assert faults.active() == []


def test_machine_faults_are_503_and_bugs_are_not() -> None:
    assert unservable(StorageUnavailable("disk full", "database or disk is full")) == (
        "disk full: database or disk is full"
    )
    assert unservable(OSError(errno.EROFS, "Read-only file system")) == (
        "the disk is read-only: Read-only file system"
    )
    assert unservable(OSError(errno.ENOENT, "No such file")) is None
    assert unservable(ValueError("a bug")) is None
    assert describe(ValueError("a bug")) == "ValueError: a bug"
