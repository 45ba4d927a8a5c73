"""The replay reader: every line kind, precise errors, truncation, compression, memory."""

from __future__ import annotations

import gzip
import json
import tracemalloc
import zlib
from pathlib import Path

import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from replays.codecs import GzipCodec
from replays.format import MAX_LINE_BYTES, ReplayFormatError, ReplayVersionError
from replays.reader import Disqualified, Header, ReplayParser, ReplayReader, Result, Turn
from replays.writer import ReplayWriter
from tests.replay_matches import record_sync

HEADER = {
    "version": 1,
    "game": "rps",
    "seed": 4,
    "options": {"turns": 3},
    "players": [{"seat": 0, "label": "1", "name": "a"}, {"seat": 1, "label": "2", "name": "b"}],
}


def header_line(**changes: object) -> str:
    return "#judge-replay " + json.dumps({**HEADER, **changes}) + "\n"


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("real") / "m.replay"
    record_sync(path, "rps", seed=9)
    return path.read_bytes()


def read(path: Path) -> tuple[ReplayReader, list[object]]:
    reader = ReplayReader(path)
    return reader, list(reader)


def error_of(tmp_path: Path, content: bytes | str) -> ReplayFormatError:
    path = tmp_path / "bad.replay"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    with pytest.raises(ReplayFormatError) as caught:
        list(ReplayReader(path))
    return caught.value


def test_every_line_kind(tmp_path: Path, real: bytes) -> None:
    path = tmp_path / "m.replay"
    path.write_bytes(real)
    reader, records = read(path)
    assert isinstance(records[0], Header) and records[0].header.players[1].name == "predictor"
    assert all(isinstance(r, Turn) for r in records[1:-1])
    assert isinstance(records[-1], Result) and records[-1].lineno == len(real.splitlines())
    assert reader.complete and reader.turns == 60 and reader.compression == "plain"


def test_a_newer_version_is_refused_clearly(tmp_path: Path) -> None:
    err = error_of(tmp_path, header_line(version=3) + "0 0 R R\n")
    assert isinstance(err, ReplayVersionError) and err.line == 1
    assert "version 3" in str(err) and "newer" in str(err) and "upgrade" in str(err)
    assert isinstance(error_of(tmp_path, header_line(version=0)), ReplayVersionError)
    assert "integer format version" in str(error_of(tmp_path, header_line(version="1")))


@pytest.mark.parametrize(
    ("content", "line", "words"),
    [
        ("hello\n", 1, "not a judge replay"),
        ("#judge-replay {nope\n", 1, "invalid JSON"),
        ("#judge-replay []\n", 1, "JSON object"),
        (header_line(players=[]), 1, "players"),
        (header_line(seed="x"), 1, "seed"),
        (
            header_line() + '0 0 R R\n#dq {"seat":9,"turn":1,"code":"crash","reason":""}\n',
            3,
            "seat 9 does not exist",
        ),
        (header_line() + '0 0 R R\n#dq {"seat":1}\n', 3, "#dq"),
        (header_line() + "0 0 R R\n#bogus {}\n", 3, "unknown line kind '#bogus'"),
        (header_line() + "0 0 R R\n#result nope\n", 3, "invalid JSON"),
        (header_line() + '0 0 R R\n#result {"extra":1}\n', 3, "unknown field 'extra'"),
        (header_line() + "0 0 R R\n\n", 3, "empty line"),
        (header_line() + "#judge-replay {}\n", 2, "second header"),
        (header_line() + "#Upper case\n", 2, "#<kind> {json}"),
    ],
)
def test_bad_lines_name_their_line(tmp_path: Path, content: str, line: int, words: str) -> None:
    err = error_of(tmp_path, content)
    assert err.line == line, err
    assert words in str(err) and str(err).startswith(f"line {line}: ")


def test_invalid_utf8_and_data_after_the_result(tmp_path: Path, real: bytes) -> None:
    err = error_of(tmp_path, header_line().encode() + b"0 0 R \xff\n")
    assert err.line == 2 and "UTF-8" in str(err)
    err = error_of(tmp_path, real + b"1 1 R R\n")
    assert err.line == len(real.splitlines()) + 1 and "after the final #result" in str(err)


def test_an_endless_line_is_refused_without_holding_it(tmp_path: Path) -> None:
    err = error_of(tmp_path, header_line().encode() + b"R" * (MAX_LINE_BYTES + 10))
    assert err.line == 2 and "longer than" in str(err)


@pytest.mark.parametrize("cut", [0, 5, 200, -1, -40])
def test_a_truncated_replay_is_incomplete_not_an_error(
    tmp_path: Path, real: bytes, cut: int
) -> None:
    path = tmp_path / "cut.replay"
    path.write_bytes(real[:cut] if cut else b"")
    reader, _records = read(path)
    assert not reader.complete and reader.result is None
    reason = reader.incomplete_reason()
    kept = real[:cut] if cut else b""
    complete_lines = kept.count(b"\n")
    if complete_lines == 0:
        assert reader.header is None and "no header" in reason
    else:
        assert reader.turns == complete_lines - 1 and "no final result" in reason
    if kept and not kept.endswith(b"\n"):
        partial = len(kept) - (kept.rfind(b"\n") + 1)
        assert reader.parser.partial_bytes == partial and f"{partial} bytes" in reason


@pytest.mark.parametrize("suffix", ["", ".gz", ".zst"])
def test_a_killed_writer_leaves_a_readable_prefix(tmp_path: Path, suffix: str) -> None:
    # A match killed mid-way: the writer flushed some turns and never closed the file.
    path = tmp_path / f"killed.replay{suffix}"
    writer = ReplayWriter(path, flush_interval=0.0)
    writer(header_line())
    for turn in range(1, 40):
        writer(f"0 0 R R  {turn}\n")
    writer.flush()
    # Abandon it without close(): no gzip trailer, no end of the zstd frame.
    reader, _records = read(path)
    assert not reader.complete and reader.turns == 39
    assert reader.parser.unterminated == (suffix != "")
    writer.close()
    reader, _records = read(path)
    assert not reader.parser.unterminated


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
@settings(max_examples=40, deadline=None)
@given(cuts=st.lists(st.integers(1, 4000), max_size=30))
def test_any_chunking_gives_the_same_records(suffix: str, cuts: list[int]) -> None:
    text = (header_line() + "".join(f"{i} 0 R S\n" for i in range(3000))).encode()
    packed = gzip.compress(text) if suffix == ".gz" else zstandard.compress(text)
    for data in (text, packed):
        parser = ReplayParser()
        got = []
        start = 0
        for cut in [*sorted(set(cuts)), len(data)]:
            got += [r.line for r in parser.feed(data[start:cut]) if isinstance(r, Turn)]
            start = max(start, cut)
        parser.close()
        assert got == [f"{i} 0 R S" for i in range(3000)]


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_concatenated_members_read_as_one(tmp_path: Path, suffix: str) -> None:
    head, tail = header_line() + "0 0 R R\n", "0 1 R P\n"
    pack = gzip.compress if suffix == ".gz" else zstandard.compress
    path = tmp_path / f"two.replay{suffix}"
    path.write_bytes(pack(head.encode()) + pack(tail.encode()))
    _reader, records = read(path)
    assert [r.line for r in records if isinstance(r, Turn)] == ["0 0 R R", "0 1 R P"]


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_damaged_compression_is_an_error_with_a_line(
    tmp_path: Path, real: bytes, suffix: str
) -> None:
    if suffix == ".gz":
        packed = gzip.compress(real)
    else:
        packed = zstandard.ZstdCompressor(write_checksum=True).compress(real)
    damaged = bytearray(packed)
    damaged[len(damaged) // 2] ^= 0xFF
    err = error_of(tmp_path, bytes(damaged))
    assert err.line is not None and err.line >= 1


def test_a_decompression_bomb_stays_small(tmp_path: Path) -> None:
    bomb = zlib.compressobj(9, zlib.DEFLATED, 31)
    data = bomb.compress(header_line().encode())
    data += bomb.compress(b"0" * (256 << 20)) + bomb.flush()  # 256 MiB of one line
    path = tmp_path / "bomb.replay.gz"
    path.write_bytes(data)
    tracemalloc.start()
    with pytest.raises(ReplayFormatError, match="longer than"):
        list(ReplayReader(path))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 << 20, f"peak {peak} bytes"


@pytest.mark.slow
def test_reading_a_long_replay_takes_constant_memory(tmp_path: Path) -> None:
    path = tmp_path / "long.replay.zst"
    writer = ReplayWriter(path)
    writer(header_line())
    for turn in range(300_000):
        writer(f"{turn} {turn // 2} R S\n")
    writer.close()
    tracemalloc.start()
    reader = ReplayReader(path)
    count = sum(1 for r in reader if isinstance(r, Turn))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert count == 300_000 and not reader.complete
    assert peak < 8 << 20, f"peak {peak} bytes"


def test_the_checksum_covers_every_byte(tmp_path: Path, real: bytes) -> None:
    path = tmp_path / "m.replay"
    altered = real.replace(b'"started":"', b'"started":"1', 1)
    assert altered != real
    path.write_bytes(altered)
    _reader, records = read(path)
    assert isinstance(records[-1], Result) and records[-1].checksum_ok is False
    path.write_bytes(real)
    assert list(ReplayReader(path))[-1].checksum_ok is True  # type: ignore[union-attr]


def test_a_result_without_checksum_is_read(tmp_path: Path, real: bytes) -> None:
    lines = real.splitlines(keepends=True)
    data = json.loads(lines[-1].split(b" ", 1)[1])
    del data["sha256"]
    lines[-1] = b"#result " + json.dumps(data).encode() + b"\n"
    path = tmp_path / "m.replay"
    path.write_bytes(b"".join(lines))
    reader, records = read(path)
    assert reader.complete and records[-1].checksum_ok is None  # type: ignore[attr-defined]


def test_gzip_codec_output_is_bounded() -> None:
    packed = gzip.compress(b"x" * (8 << 20))
    pieces = list(GzipCodec().decompress(packed))
    assert sum(map(len, pieces)) == 8 << 20 and max(map(len, pieces)) <= 1 << 16


def test_disqualified_records(tmp_path: Path) -> None:
    path = tmp_path / "dq.replay"
    path.write_text(
        header_line() + "0 0 R R\n"
        '#dq {"seat":1,"turn":2,"code":"timeout","reason":"no complete answer within 1 s"}\n'
    )
    reader, records = read(path)
    dq = records[2]
    assert isinstance(dq, Disqualified)
    assert (dq.seat, dq.turn, dq.code, dq.lineno) == (1, 2, "timeout", 3)
    assert not reader.complete
