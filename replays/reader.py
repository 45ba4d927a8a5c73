"""Reading replays: a sans-IO parser and a file reader that can follow a growing file.

``ReplayParser`` turns bytes (plain, gzip or zstd, fed in any chunking) into records:
``Header``, ``Turn``, ``Disqualified`` and ``Result``. ``ReplayReader`` reads a file
with constant memory, either to its end or following it while a match writes it
(``for record in reader`` blocks with a sync poll; ``async for`` polls with trio).
A file without its ``#result`` line (a match that was killed) is incomplete, not
an error: its records up to the last complete line are all there.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import time
from collections.abc import AsyncIterator, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

import trio
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from games.base import counted
from replays.codecs import MAGIC_PROBE, CorruptCompression, Decompressor, codec_for_prefix
from replays.format import (
    CHECKSUM_KEY,
    CHECKSUM_TAIL,
    DQ_KIND,
    FORMAT_VERSION,
    KIND_PATTERN,
    MAGIC,
    MAX_LINE_BYTES,
    READABLE_VERSIONS,
    RESULT_KIND,
    ReplayFormatError,
    ReplayHeader,
    ReplayVersionError,
)
from replays.result import MatchResult

READ_CHUNK = 1 << 16
ASYNC_BATCH = 2000


@dataclass(frozen=True, slots=True)
class Header:
    header: ReplayHeader
    text: str  # the line as written, without the newline
    lineno: int = 1


@dataclass(frozen=True, slots=True)
class Turn:
    number: int  # 1-based turn number
    line: str  # the game's turn line, without the newline
    lineno: int


@dataclass(frozen=True, slots=True)
class Disqualified:
    seat: int
    turn: int  # the turn during which it happened (1-based)
    code: str
    reason: str
    lineno: int
    text: str


@dataclass(frozen=True, slots=True)
class Result:
    result: MatchResult
    lineno: int
    checksum: str | None  # the recorded digest, None if the writer added none
    checksum_ok: bool | None  # None without a checksum
    text: str


Record = Header | Turn | Disqualified | Result


class _DqData(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: int = Field(ge=0)
    turn: int = Field(ge=1)
    code: str = Field(min_length=1)
    reason: str


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(part) for part in err["loc"])
    return f"{where}: {err['msg']}" if where else str(err["msg"])


def _json_object(text: str, what: str, lineno: int) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplayFormatError(
            f"{what}: invalid JSON ({exc.msg} at column {exc.colno})", line=lineno
        ) from None
    if not isinstance(data, dict):
        raise ReplayFormatError(f"{what}: expected a JSON object", line=lineno)
    return data


class ReplayParser:
    """Sans-IO: ``feed(bytes)`` yields records (consume each generator fully before feeding
    more), ``close()`` at the end of the input. State is in the attributes."""

    def __init__(self) -> None:
        self._probe = bytearray()
        self._codec: Decompressor | None = None
        self._buffer = bytearray()
        self._digest = hashlib.sha256()
        self.lineno = 0
        self.header: ReplayHeader | None = None
        self.turns = 0
        self.result: Result | None = None
        self.partial_bytes = 0  # an unfinished last line, ignored
        # A compressed stream that stops inside a frame: cut off (or damaged) after its
        # last whole line. Not an error: the lines read stand on their own (and the
        # result's checksum covers them).
        self.unterminated = False
        self.closed = False

    @property
    def compression(self) -> str:
        return self._codec.name if self._codec else "unknown"

    @property
    def complete(self) -> bool:
        return self.result is not None

    def incomplete_reason(self) -> str:
        """Why a replay is incomplete, for a human (empty when complete)."""
        if self.complete:
            return ""
        if self.header is None:
            parts = ["no header line yet" + ("" if self.partial_bytes else " (an empty file)")]
        else:
            parts = [
                f"no final result after {counted(self.turns, 'turn')} (cut short or still running)"
            ]
        if self.partial_bytes:
            parts.append(f"an unfinished last line of {self.partial_bytes} bytes was ignored")
        return "; ".join(parts)

    def feed(self, data: bytes) -> Iterator[Record]:
        if self._codec is None:
            self._probe += data
            if len(self._probe) < MAGIC_PROBE:
                return
            data = bytes(self._probe)
            self._probe.clear()
            self._codec = codec_for_prefix(data)
        try:
            for piece in self._codec.decompress(data):
                yield from self._split(piece)
        except CorruptCompression as exc:
            raise ReplayFormatError(str(exc), line=self.lineno + 1) from None

    def close(self) -> None:
        """The input ended: remember an unfinished last line (it is not an error)."""
        if self.closed:
            return
        self.closed = True
        if self._codec is None:
            # Fewer bytes than a magic number: too short for any header line.
            self._codec = codec_for_prefix(bytes(self._probe))
            if b"\n" in self._probe:
                raise ReplayFormatError(f"not a judge replay (no {MAGIC!r} line)", line=1)
            self._buffer += self._probe
        self.partial_bytes = len(self._buffer)
        self.unterminated = not self._codec.at_boundary()

    # -- lines -------------------------------------------------------------
    def _split(self, piece: bytes) -> Iterator[Record]:
        buffer = self._buffer
        buffer += piece
        start = 0
        try:
            while (end := buffer.find(b"\n", start)) >= 0:
                if end - start >= MAX_LINE_BYTES:
                    raise ReplayFormatError(
                        f"longer than {MAX_LINE_BYTES} bytes: not a replay line",
                        line=self.lineno + 1,
                    )
                raw = bytes(buffer[start : end + 1])
                start = end + 1
                self.lineno += 1
                yield self._line(raw)
        finally:
            del buffer[:start]
        if len(buffer) > MAX_LINE_BYTES:
            raise ReplayFormatError(
                f"longer than {MAX_LINE_BYTES} bytes without a line end: not a replay line",
                line=self.lineno + 1,
            )

    def _line(self, raw: bytes) -> Record:
        lineno = self.lineno
        if self.result is not None:
            raise ReplayFormatError("a line after the final #result line", line=lineno)
        try:
            text = raw[:-1].decode("utf-8")
        except UnicodeDecodeError as exc:
            message = f"not valid UTF-8 (byte {exc.start + 1})"
            raise ReplayFormatError(message, line=lineno) from None
        if lineno == 1:
            self._digest.update(raw)
            return self._header(text)
        if text.startswith("#"):
            return self._judge_line(text, raw, lineno)
        if not text:
            raise ReplayFormatError("an empty line (every turn line has content)", line=lineno)
        self._digest.update(raw)
        self.turns += 1
        return Turn(self.turns, text, lineno)

    def _header(self, text: str) -> Header:
        if not text.startswith(MAGIC + " "):
            raise ReplayFormatError(
                f"not a judge replay (the first line must start with {MAGIC!r})", line=1
            )
        data = _json_object(text[len(MAGIC) + 1 :], "header", 1)
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise ReplayFormatError("header: no integer format version", line=1)
        if version > FORMAT_VERSION:
            raise ReplayVersionError(
                f"this replay has format version {version}, newer than this judge reads "
                f"(up to {FORMAT_VERSION}); upgrade the judge to read it",
                line=1,
            )
        if version not in READABLE_VERSIONS:
            raise ReplayVersionError(f"unknown replay format version {version}", line=1)
        try:
            header = ReplayHeader.model_validate(data)
        except ValidationError as exc:
            raise ReplayFormatError(f"header: {_first_error(exc)}", line=1) from None
        for index, player in enumerate(header.players):
            if player.seat != index:
                raise ReplayFormatError(
                    f"header: players[{index}] has seat {player.seat}, expected {index}", line=1
                )
        self.header = header
        return Header(header, text)

    def _judge_line(self, text: str, raw: bytes, lineno: int) -> Record:
        match = KIND_PATTERN.match(text)
        if match is None:
            raise ReplayFormatError("a judge line must look like '#<kind> {json}'", line=lineno)
        kind = match.group(1)
        body = text[match.end() :]
        if kind == RESULT_KIND:
            return self._result(text, body, raw, lineno)
        self._digest.update(raw)
        if kind == DQ_KIND:
            try:
                dq = _DqData.model_validate(_json_object(body, "#dq", lineno))
            except ValidationError as exc:
                raise ReplayFormatError(f"#dq: {_first_error(exc)}", line=lineno) from None
            assert self.header is not None
            if dq.seat >= len(self.header.players):
                raise ReplayFormatError(
                    f"#dq: seat {dq.seat} does not exist ({len(self.header.players)} players)",
                    line=lineno,
                )
            return Disqualified(dq.seat, dq.turn, dq.code, dq.reason, lineno, text)
        if kind == MAGIC[1:]:
            raise ReplayFormatError("a second header line", line=lineno)
        raise ReplayFormatError(
            f"unknown line kind '#{kind}' (format version {FORMAT_VERSION} has #dq and #result)",
            line=lineno,
        )

    def _result(self, text: str, body: str, raw: bytes, lineno: int) -> Result:
        data = _json_object(body, "#result", lineno)
        checksum = data.pop(CHECKSUM_KEY, None)
        unknown = sorted(set(data) - set(MatchResult.model_fields))
        if unknown:
            raise ReplayFormatError(f"#result: unknown field {unknown[0]!r}", line=lineno)
        try:
            result = MatchResult.model_validate(data)
        except ValidationError as exc:
            raise ReplayFormatError(f"#result: {_first_error(exc)}", line=lineno) from None
        checksum_ok: bool | None = None
        if checksum is None:
            self._digest.update(raw)
        else:
            tail = CHECKSUM_TAIL.search(raw)
            if not isinstance(checksum, str) or tail is None:
                raise ReplayFormatError(
                    f"#result: malformed {CHECKSUM_KEY} (64 hex digits, the last field)",
                    line=lineno,
                )
            self._digest.update(raw[: tail.start()] + b"}\n")
            checksum_ok = self._digest.hexdigest() == checksum
        self.result = Result(result, lineno, checksum, checksum_ok, text)
        return self.result


_Pumped = Record | None  # None: no new data for now (follow mode)


class ReplayReader:
    """Reads one replay file, plain or compressed, with constant memory.

    ``follow=True`` keeps reading as the file grows (waiting for it to appear) until the
    ``#result`` line, or until ``idle_timeout`` seconds pass without new data. After the
    iteration, ``complete``, ``turns``, ``header``, ``result`` and ``incomplete_reason()``
    describe what was read.
    """

    def __init__(
        self,
        path: Path | str,
        *,
        follow: bool = False,
        poll_interval: float = 0.1,
        idle_timeout: float | None = None,
    ) -> None:
        self.path = Path(path)
        self.follow = follow
        self.poll_interval = poll_interval
        self.idle_timeout = idle_timeout
        self.parser = ReplayParser()
        self.timed_out = False

    # state, delegated to the parser
    @property
    def header(self) -> ReplayHeader | None:
        return self.parser.header

    @property
    def result(self) -> Result | None:
        return self.parser.result

    @property
    def turns(self) -> int:
        return self.parser.turns

    @property
    def complete(self) -> bool:
        return self.parser.complete

    @property
    def compression(self) -> str:
        return self.parser.compression

    def incomplete_reason(self) -> str:
        reason = self.parser.incomplete_reason()
        if reason and self.timed_out:
            reason += f"; stopped following after {self.idle_timeout:g} s without new data"
        return reason

    # -- iteration ---------------------------------------------------------
    def __iter__(self) -> Iterator[Record]:
        for item in self._pump():
            if item is None:
                time.sleep(self.poll_interval)
            else:
                yield item

    async def __aiter__(self) -> AsyncIterator[Record]:
        pump = self._pump()
        try:
            while True:
                batch, state = await trio.to_thread.run_sync(_take, pump, ASYNC_BATCH)
                for record in batch:
                    yield record
                if state == "end":
                    return
                if state == "wait":
                    await trio.sleep(self.poll_interval)
        finally:
            pump.close()

    def _idle(self, since: float) -> bool:
        if self.idle_timeout is not None and time.monotonic() - since > self.idle_timeout:
            self.timed_out = True
            return True
        return False

    def _pump(self) -> Generator[_Pumped, None, None]:
        """Records as they can be read; None when a follower must wait for more data."""
        last_data = time.monotonic()
        while self.follow and not self.path.exists():
            if self._idle(last_data):
                raise FileNotFoundError(f"{self.path} did not appear")
            yield None
        with open(self.path, "rb") as handle:
            while True:
                data = handle.read(READ_CHUNK)
                if data:
                    last_data = time.monotonic()
                    for record in self.parser.feed(data):
                        yield record
                        if self.follow and isinstance(record, Result):
                            self.parser.close()
                            return
                    continue
                if not self.follow or self._idle(last_data):
                    break
                if os.fstat(handle.fileno()).st_size < handle.tell():
                    raise ReplayFormatError("the file shrank while being followed (rewritten?)")
                yield None
        self.parser.close()


PumpState = Literal["more", "wait", "end"]


def _take(pump: Iterator[_Pumped], limit: int) -> tuple[list[Record], PumpState]:
    batch: list[Record] = []
    for item in pump:
        if item is None:
            return batch, "wait"
        batch.append(item)
        if len(batch) >= limit:
            return batch, "more"
    return batch, "end"


def open_text(path: Path) -> IO[str]:
    """The replay as text lines, decompressing .gz and .zst (kept for simple line consumers)."""
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="replace")
    if path.suffix == ".zst":
        import zstandard

        raw = zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)  # noqa: SIM115
        return io.TextIOWrapper(raw, encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")
