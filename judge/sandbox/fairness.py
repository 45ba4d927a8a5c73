"""How many matches run at once: one shared limit per judge process (per trio run).

Deadlines are wall-clock, so a bot's time depends on what else runs on the machine.
Every place that starts matches (CLI tournaments, the server's queue) takes a token
from the same limiter, so together they never run more than the cores can serve.
"""

from __future__ import annotations

import os

import trio

ENV_MAX_MATCHES = "BOTJUDGE_MAX_MATCHES"
_limiter: trio.lowlevel.RunVar[trio.CapacityLimiter] = trio.lowlevel.RunVar("match_limiter")


def default_capacity() -> int:
    """$BOTJUDGE_MAX_MATCHES if set, else the number of cores this process may use."""
    configured = os.environ.get(ENV_MAX_MATCHES, "").strip()
    if configured:
        try:
            value = int(configured)
        except ValueError:
            raise ValueError(f"{ENV_MAX_MATCHES} must be a number, got {configured!r}") from None
        if value < 1:
            raise ValueError(f"{ENV_MAX_MATCHES} must be at least 1, got {value}")
        return value
    return len(os.sched_getaffinity(0)) or os.cpu_count() or 1


def match_limiter(capacity: int | None = None) -> trio.CapacityLimiter:
    """The limiter every match of this trio run must hold while it runs.

    ``capacity`` (if given) sets how many matches may run at once; otherwise the
    first call fixes it at :func:`default_capacity`.
    """
    try:
        limiter = _limiter.get()
    except LookupError:
        limiter = trio.CapacityLimiter(capacity or default_capacity())
        _limiter.set(limiter)
        return limiter
    if capacity is not None:
        limiter.total_tokens = capacity
    return limiter
