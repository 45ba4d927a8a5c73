from __future__ import annotations


class ProtocolError(Exception):
    """A peer broke the wire protocol. ``limit`` names the rule, ``line`` the 1-based line."""

    def __init__(self, message: str, *, limit: str, line: int | None = None) -> None:
        super().__init__(message)
        self.limit = limit
        self.line = line
