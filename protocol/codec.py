from __future__ import annotations

from dataclasses import dataclass

from protocol.errors import ProtocolError

CR = 13  # b"\r"[0]
# The decoder remembers up to this many one-line answers of up to this many bytes.
RECENT_ANSWERS = 16
RECENT_LINE_MAX = 32


@dataclass(frozen=True, slots=True)
class Limits:
    """Hard caps on what a peer may send in one message.

    The decoder refuses input as soon as a cap is provably exceeded, so a flood
    is never buffered beyond ``max_message_bytes``.
    """

    max_line_length: int = 1024
    max_lines: int = 64
    max_message_bytes: int = 65536

    def __post_init__(self) -> None:
        if self.max_line_length < 1 or self.max_lines < 1 or self.max_message_bytes < 2:
            raise ValueError("protocol limits must be positive")


DEFAULT_LIMITS = Limits()


def encode(lines: list[str] | tuple[str, ...]) -> bytes:
    """Encode one message: each line, then the terminating ``.`` line."""
    if lines:
        body = "\n".join(lines)
        # The common case checked with a few C-level scans instead of a loop over the lines.
        if (
            body.count("\n") == len(lines) - 1
            and body != "."
            and not body.startswith(".\n")
            and not body.endswith("\n.")
            and "\n.\n" not in body
        ):
            return (body + "\n.\n").encode()
    for line in lines:
        if "\n" in line or line == ".":
            raise ValueError(f"line cannot be sent inside a message: {line!r}")
    if not lines:
        return b".\n"
    return ("\n".join(lines) + "\n.\n").encode()


class Decoder:
    """Incremental decoder: feed bytes in any chunking, take complete messages.

    ``feed`` raises :class:`ProtocolError` once the peer has broken a limit or
    sent bytes that are not UTF-8; after that the decoder stays broken.
    """

    __slots__ = (
        "_buffer",
        "_error",
        "_fast_limit",
        "_limits",
        "_line_start",
        "_lines_seen",
        "_recent",
        "_recent_lines",
        "_scan_from",
    )

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self._limits = limits
        # The longest line the one-line fast path of feed() takes (within both caps).
        self._fast_limit = min(limits.max_line_length, limits.max_message_bytes - 1)
        # One-line answers already decoded by the fast path: a bot repeats a few (R, P, S).
        self._recent: dict[bytes, str] = {}
        self._recent_lines: dict[bytes, str] = {}  # the same answers' lines, without ".\n"
        self._buffer = bytearray()
        self._scan_from = 0  # where to resume looking for the terminator
        self._line_start = 0  # start of the first line of a partial message not yet checked
        self._lines_seen = 0  # complete lines of the partial message checked so far
        self._error: ProtocolError | None = None

    @property
    def limits(self) -> Limits:
        return self._limits

    @property
    def buffered(self) -> int:
        """Bytes received that do not yet form a complete message."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[list[str]]:
        """Add bytes; return every message they complete, in order."""
        buf = self._buffer
        if not buf and self._error is None:
            line = self._recent.get(data)
            if line is not None:
                return [[line]]
            # Fast path for the usual answer: exactly one short ASCII line (no '\r', not '.')
            # and the '.' line; anything else takes the general path below.
            end = len(data) - 3
            if (
                0 < end <= self._fast_limit
                and data.find(b"\n") == end
                and data.endswith(b"\n.\n")
                and data[end - 1] != CR
                and data.isascii()
                and data != b".\n.\n"
            ):
                line = data[:end].decode("ascii")
                if end <= RECENT_LINE_MAX and len(self._recent) < RECENT_ANSWERS:
                    self._recent[data] = line
                    self._recent_lines[data[:end]] = line
                return [[line]]
            # Many answers at once (sent ahead): when every one is a line already seen as a
            # whole answer, they are split at once instead of one terminator search each.
            if self._recent_lines and data.endswith(b"\n.\n"):
                pieces = data.split(b"\n.\n")
                if not pieces.pop():  # (b"" after the last answer: nothing cut in two)
                    known = self._recent_lines
                    batch = []
                    for piece in pieces:
                        line = known.get(piece)
                        if line is None:
                            break
                        batch.append([line])
                    else:
                        return batch
        if self._error is not None:
            raise self._error
        buf += data
        messages: list[list[str]] = []
        recent = self._recent
        while True:
            found = self._find_terminator()
            if found is None:
                break
            body_end, after = found
            # Answers sent ahead arrive many to a read: the short ones repeat (1, 2, 3).
            whole = bytes(buf[:after])
            line = recent.get(whole)
            if line is not None:
                messages.append([line])
            else:
                lines = self._decode(whole[:body_end])
                messages.append(lines)
                if (
                    len(lines) == 1
                    and after <= RECENT_LINE_MAX + 3
                    and len(recent) < RECENT_ANSWERS
                    and whole.endswith(b"\n.\n")
                    and b"\r" not in whole
                ):
                    recent[whole] = lines[0]
                    self._recent_lines[whole[:-3]] = lines[0]
            del buf[:after]
            self._scan_from = self._line_start = self._lines_seen = 0
        self._check_partial()
        return messages

    def _find_terminator(self) -> tuple[int, int] | None:
        buf = self._buffer
        if buf[:2] == b".\n":
            return (0, 2)
        if buf[:3] == b".\r\n":
            return (0, 3)
        start = max(self._scan_from - 3, 0)
        i = buf.find(b"\n.", start)
        while i >= 0:
            j = i + 2
            if buf[j : j + 1] == b"\n":
                return (i + 1, j + 1)
            if buf[j : j + 2] == b"\r\n":
                return (i + 1, j + 2)
            if j >= len(buf) or (buf[j : j + 1] == b"\r" and j + 1 >= len(buf)):
                break  # may still complete with the next chunk
            i = buf.find(b"\n.", i + 1)
        self._scan_from = len(buf)
        return None

    def _fail(self, message: str, *, limit: str, line: int | None) -> ProtocolError:
        self._error = ProtocolError(message, limit=limit, line=line)
        self._buffer.clear()
        return self._error

    def _check_partial(self) -> None:
        """Enforce the limits on an unfinished message, looking at each byte once."""
        buf = self._buffer
        if not buf:
            return
        limits = self._limits
        if len(buf) > limits.max_message_bytes:
            raise self._fail(
                f"message exceeds {limits.max_message_bytes} bytes without a '.' line",
                limit="max_message_bytes",
                line=self._lines_seen + 1,
            )
        longest = limits.max_line_length + 1  # +1 allows a trailing '\r'
        start = self._line_start
        newline = buf.find(b"\n", start)
        while newline >= 0:
            self._lines_seen += 1
            if newline - start > longest:
                break
            if self._lines_seen > limits.max_lines:
                raise self._fail(
                    f"more than {limits.max_lines} lines without a '.' line",
                    limit="max_lines",
                    line=self._lines_seen,
                )
            start = newline + 1
            newline = buf.find(b"\n", start)
        else:
            self._line_start = start
            if len(buf) - start <= longest:
                return
            self._lines_seen += 1
        raise self._fail(
            f"line {self._lines_seen} is longer than {limits.max_line_length} bytes",
            limit="max_line_length",
            line=self._lines_seen,
        )

    def _decode(self, body: bytes) -> list[str]:
        limits = self._limits
        if len(body) > limits.max_message_bytes:
            raise self._fail(
                f"message exceeds {limits.max_message_bytes} bytes",
                limit="max_message_bytes",
                line=None,
            )
        if not body:
            return []
        raw_lines = body[:-1].split(b"\n")  # body ends with '\n'
        if len(raw_lines) > limits.max_lines:
            raise self._fail(
                f"more than {limits.max_lines} lines in one message",
                limit="max_lines",
                line=limits.max_lines + 1,
            )
        lines: list[str] = []
        for number, raw in enumerate(raw_lines, 1):
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            if len(raw) > limits.max_line_length:
                raise self._fail(
                    f"line {number} is longer than {limits.max_line_length} bytes",
                    limit="max_line_length",
                    line=number,
                )
            try:
                lines.append(raw.decode())
            except UnicodeDecodeError:
                raise self._fail(
                    f"line {number} is not valid UTF-8", limit="utf8", line=number
                ) from None
        return lines
