"""Any corruption of a replay is detected: the reader reports it, or --verify fails.

Replays of real matches (rps, and liar's dice with a disqualification) are damaged by
hypothesis: a flipped bit anywhere, a truncation anywhere, two lines swapped, a line
moved, duplicated or deleted. Whatever the damage, reading and verifying must never
pass it as a complete, matching record.
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest
import trio
import zstandard
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from replays.export import record_line
from replays.format import ReplayFormatError
from replays.reader import ReplayReader
from replays.verify import verify_records
from tests.conftest import builtin, misbehaving
from tests.replay_matches import record


@pytest.fixture(scope="module")
def originals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("originals")

    async def play() -> dict[str, bytes]:
        rps, liars = folder / "rps.replay", folder / "ld.replay"
        await record(rps, "rps", seed=21)
        bots = [
            builtin("liarsdice", "computer"),
            misbehaving("illegal", 1),
            builtin("liarsdice", "robot"),
        ]
        await record(liars, "liarsdice", bots=bots, seed=5)
        return {"rps": rps.read_bytes(), "liarsdice": liars.read_bytes()}

    return trio.run(play)


def verdict(path: Path) -> str:
    """'ok' only for a complete replay that verifies; otherwise what caught it."""
    try:
        reader = ReplayReader(path)
        report = verify_records(reader)
    except ReplayFormatError as exc:
        return f"reader: {exc}"
    if report.ok:
        return "ok"
    return f"verify: {report.describe()}"


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


@st.composite
def corruptions(draw: st.DrawFn, data: bytes) -> bytes:
    lines = _lines(data)
    kind = draw(st.sampled_from(["flip", "truncate", "swap", "move", "duplicate", "delete"]))
    if kind == "flip":
        offset = draw(st.integers(0, len(data) - 1))
        bit = draw(st.integers(0, 7))
        return data[:offset] + bytes([data[offset] ^ (1 << bit)]) + data[offset + 1 :]
    if kind == "truncate":
        return data[: draw(st.integers(0, len(data) - 1))]
    i = draw(st.integers(0, len(lines) - 1))
    j = draw(st.integers(0, len(lines) - 1))
    if kind == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "move":
        lines.insert(j, lines.pop(i))
    elif kind == "duplicate":
        lines.insert(j, lines[i])
    else:
        del lines[i]
    return b"".join(lines)


@pytest.mark.parametrize("game", ["rps", "liarsdice"])
def test_the_originals_verify(originals: dict[str, bytes], tmp_path: Path, game: str) -> None:
    path = tmp_path / "x.replay"
    path.write_bytes(originals[game])
    assert verdict(path) == "ok"


@pytest.mark.parametrize("game", ["rps", "liarsdice"])
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_every_corruption_is_caught(
    originals: dict[str, bytes], tmp_path: Path, game: str, data: st.DataObject
) -> None:
    original = originals[game]
    damaged = data.draw(corruptions(original))
    assume(damaged != original)
    path = tmp_path / "damaged.replay"
    path.write_bytes(damaged)
    assert verdict(path) != "ok"


def _compress(data: bytes, suffix: str) -> bytes:
    if suffix == ".gz":
        return gzip.compress(data, compresslevel=1, mtime=0)
    return zstandard.ZstdCompressor(level=1, write_checksum=True).compress(data)


def text_read(path: Path) -> bytes:
    return b"".join((record_line(r) + "\n").encode() for r in ReplayReader(path))


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(offset=st.integers(min_value=0), bit=st.integers(0, 7))
def test_a_flipped_bit_in_a_compressed_replay_is_caught_or_harmless(
    originals: dict[str, bytes], tmp_path: Path, suffix: str, offset: int, bit: int
) -> None:
    original = originals["rps"]
    packed = _compress(original, suffix)
    offset %= len(packed)
    damaged = packed[:offset] + bytes([packed[offset] ^ (1 << bit)]) + packed[offset + 1 :]
    path = tmp_path / f"damaged.replay{suffix}"
    path.write_bytes(damaged)
    # Passing is only allowed when every line read is the original's (a flip in gzip's
    # mtime, or in the trailer after the last line, leaves the record intact).
    if verdict(path) == "ok":
        assert text_read(path) == original


def test_a_flip_in_gzip_mtime_is_harmless(originals: dict[str, bytes], tmp_path: Path) -> None:
    packed = bytearray(_compress(originals["rps"], ".gz"))
    packed[5] ^= 0x10  # MTIME, bytes 4..7 of the gzip header
    path = tmp_path / "m.replay.gz"
    path.write_bytes(bytes(packed))
    assert verdict(path) == "ok"


def test_a_random_sample_of_real_damage_names_a_line(
    originals: dict[str, bytes], tmp_path: Path
) -> None:
    # Reader errors carry the line number; verify differences name a turn or the result.
    rng = random.Random(3)
    original = originals["rps"]
    for _ in range(50):
        offset = rng.randrange(len(original))
        damaged = original[:offset] + b"\x00" + original[offset + 1 :]
        path = tmp_path / "d.replay"
        path.write_bytes(damaged)
        found = verdict(path)
        assert found != "ok"
        assert "line " in found or "turn " in found or "result" in found, found
