"""Picks the sandbox a command uses."""

from __future__ import annotations

from judge.sandbox.base import Sandbox
from judge.sandbox.plain import PlainSandbox


def default_sandbox() -> Sandbox:
    return PlainSandbox()
