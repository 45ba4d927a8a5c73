"""The replay format, version 2 (docs/replays.md).

Line 1 is ``#judge-replay {json header}``. Every other line is either a game's
turn line (never starting with ``#``), byte-for-byte what the game produced, or
a judge line ``#<kind> {json}``: ``#dq`` where a seat was disqualified and
``#result`` last. The writer adds ``"sha256"`` to the result: the digest of
every byte before it plus the result line without that field.

Version 2 (this one) keeps the match's seed out of the header, which holds a commitment to
the match secret instead; the result reveals seed and secret (games/seeds.py). Version 1
had the seed in the header and the game drawing from ``random.Random(seed)``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

FORMAT_VERSION = 2
# Every version this project ever wrote; a reader accepts exactly these.
READABLE_VERSIONS = frozenset({1, 2})
MAGIC = "#judge-replay"
RESULT_KIND = "result"
DQ_KIND = "dq"
CHECKSUM_KEY = "sha256"
# A line longer than this is corruption, not a replay (turn lines are short; the result of a
# many-seat match is a few KiB per seat).
MAX_LINE_BYTES = 1 << 20
KIND_PATTERN = re.compile(r"#([a-z][a-z0-9_-]*) ")
CHECKSUM_TAIL = re.compile(rb',"sha256":"([0-9a-f]{64})"\}\n\Z')


class ReplayFormatError(Exception):
    """A replay that cannot be read; ``line`` is the 1-based number of the offending line."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.message = message
        self.line = line


class ReplayVersionError(ReplayFormatError):
    """A replay written in a format version this judge does not read."""


class PlayerInfo(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    seat: int = Field(ge=0)
    label: str
    name: str


class ReplayHeader(BaseModel):
    """The first line. Fields beyond these are kept (``model_extra``) and shown by --summary."""

    model_config = ConfigDict(extra="allow", frozen=True)

    version: int
    game: str = Field(min_length=1)
    seed: int | None = None  # version 1 only
    commitment: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")  # version 2 on
    options: dict[str, Any]
    players: list[PlayerInfo] = Field(min_length=1)
    match_id: str = ""
    judge: str = ""
    sandbox: str = ""

    @model_validator(mode="after")
    def _randomness_recorded(self) -> ReplayHeader:
        if self.version == 1 and self.seed is None:
            raise ValueError("a version 1 header needs its seed")
        if self.version >= 2 and self.commitment is None:
            raise ValueError("a header needs the commitment to its match secret")
        return self

    def player_name(self, seat: int) -> str:
        return self.players[seat].name if 0 <= seat < len(self.players) else f"seat {seat}"


def compact_json(data: dict[str, Any]) -> str:
    # ASCII escapes: a name with undecodable bytes (a lone surrogate) still writes.
    return json.dumps(data, separators=(",", ":"))


def header_line(meta: dict[str, Any]) -> str:
    return f"{MAGIC} {compact_json({'version': FORMAT_VERSION, **meta})}\n"


def event_line(kind: str, data: dict[str, Any]) -> str:
    return f"#{kind} {compact_json(data)}\n"


def seal_result_line(line: bytes, digest_hex: str) -> bytes:
    """The result line with the checksum field appended inside its JSON object."""
    body = line.rstrip(b"\n")
    if not body.endswith(b"}") or body.endswith(b"{}"):
        raise ValueError("a #result line must end with a non-empty JSON object")
    return body[:-1] + f',"{CHECKSUM_KEY}":"{digest_hex}"}}\n'.encode()
