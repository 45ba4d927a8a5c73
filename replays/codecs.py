"""Transparent compression of replay files: plain, gzip (.gz) or zstandard (.zst).

Reading detects the codec from the first bytes (the file name is only a hint), and
decompresses incrementally with bounded output per step, so a growing file can be
followed and a decompression bomb cannot blow up memory.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Protocol

import zstandard

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
MAGIC_PROBE = 4
OUTPUT_CHUNK = 1 << 16
# zstd's streaming API returns all output of its input at once; feeding small slices bounds
# that (an RLE block of 4 bytes can expand to 128 KiB, so a slice gives at most 8 MiB).
ZSTD_SLICE = 256
GZIP_LEVEL = 1
ZSTD_LEVEL = 1


class CorruptCompression(Exception):
    """The compressed stream itself is damaged."""


class Decompressor(Protocol):
    name: str

    def decompress(self, data: bytes) -> Iterator[bytes]:
        """The uncompressed bytes of ``data``, in pieces of bounded size."""
        ...

    def at_boundary(self) -> bool:
        """True when everything fed so far ends at the end of a compressed frame."""
        ...


class PlainCodec:
    name = "plain"

    def decompress(self, data: bytes) -> Iterator[bytes]:
        if data:
            yield data

    def at_boundary(self) -> bool:
        return True


class GzipCodec:
    name = "gzip"

    def __init__(self) -> None:
        self._stream = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        self._fed_since_member = False

    def decompress(self, data: bytes) -> Iterator[bytes]:
        pending = data
        while True:
            if pending:
                self._fed_since_member = True
            try:
                out = self._stream.decompress(pending, OUTPUT_CHUNK)
            except zlib.error as exc:
                raise CorruptCompression(f"corrupt gzip data ({exc})") from None
            if out:
                yield out
            if self._stream.eof:
                # Concatenated gzip members are one stream (as gzip(1) reads them).
                pending = self._stream.unused_data
                self._stream = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
                self._fed_since_member = False
                if not pending:
                    return
                continue
            pending = self._stream.unconsumed_tail
            if not pending and len(out) < OUTPUT_CHUNK:
                return

    def at_boundary(self) -> bool:
        return not self._fed_since_member


class ZstdCodec:
    name = "zstd"

    def __init__(self) -> None:
        self._context = zstandard.ZstdDecompressor()
        self._stream = self._context.decompressobj(write_size=OUTPUT_CHUNK)
        self._fed_since_frame = False

    def decompress(self, data: bytes) -> Iterator[bytes]:
        view = memoryview(data)
        for start in range(0, len(view), ZSTD_SLICE):
            pending = bytes(view[start : start + ZSTD_SLICE])
            while pending:
                self._fed_since_frame = True
                try:
                    out = self._stream.decompress(pending)
                except zstandard.ZstdError as exc:
                    raise CorruptCompression(f"corrupt zstd data ({exc})") from None
                if out:
                    yield out
                pending = b""
                if self._stream.eof:
                    pending = self._stream.unused_data
                    self._stream = self._context.decompressobj(write_size=OUTPUT_CHUNK)
                    self._fed_since_frame = False

    def at_boundary(self) -> bool:
        return not self._fed_since_frame


def codec_for_prefix(prefix: bytes) -> Decompressor:
    """The codec of a stream starting with ``prefix`` (at least MAGIC_PROBE bytes, or all)."""
    if prefix.startswith(GZIP_MAGIC):
        return GzipCodec()
    if prefix.startswith(ZSTD_MAGIC):
        return ZstdCodec()
    return PlainCodec()


def compression_of(path: Path) -> str:
    """Which codec the writer uses for a file name."""
    if path.suffix == ".gz":
        return "gzip"
    if path.suffix == ".zst":
        return "zstd"
    return "plain"


class _ByteStream(Protocol):
    def write(self, data: bytes, /) -> int: ...
    def flush(self) -> object: ...
    def close(self) -> None: ...


class CompressedSink:
    """A binary file that compresses what is written; ``flush`` makes it decodable so far."""

    def __init__(self, path: Path) -> None:
        self.codec = compression_of(path)
        self._raw: BinaryIO = open(path, "wb")  # noqa: SIM115 - closed in close()
        self._stream: _ByteStream
        if self.codec == "gzip":
            # mtime=0 and no file name: the same lines give the same bytes.
            self._stream = gzip.GzipFile(
                filename="", mode="wb", fileobj=self._raw, compresslevel=GZIP_LEVEL, mtime=0
            )
        elif self.codec == "zstd":
            compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL, write_checksum=True)
            self._stream = compressor.stream_writer(self._raw, closefd=False)
        else:
            self._stream = self._raw

    def write(self, data: bytes) -> None:
        self._stream.write(data)

    def flush(self) -> None:
        # gzip: a sync flush; zstd: the end of a block; both then flush the file.
        self._stream.flush()
        if self._stream is not self._raw:
            self._raw.flush()

    def close(self) -> None:
        try:
            if self._stream is not self._raw:
                self._stream.close()
        finally:
            self._raw.close()
