"""The sans-IO protocol codec: round trips, chunking, limits, garbage."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import Decoder, Limits, ProtocolError, encode

line_text = st.text(
    alphabet=st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)),
    max_size=40,
).filter(lambda s: s != ".")
message = st.lists(line_text, max_size=6)
LIMITS = Limits(max_line_length=200, max_lines=8, max_message_bytes=2000)


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    pieces, last = [], 0
    for p in [*points, len(data)]:
        pieces.append(data[last:p])
        last = p
    return pieces


@given(st.lists(message, min_size=1, max_size=5), st.lists(st.integers(0, 10_000), max_size=12))
def test_round_trip_under_any_chunking(messages: list[list[str]], cuts: list[int]) -> None:
    data = b"".join(encode(m) for m in messages)
    decoder = Decoder(LIMITS)
    got: list[list[str]] = []
    for piece in chunked(data, cuts):
        got.extend(decoder.feed(piece))
    assert got == messages
    assert decoder.buffered == 0


@given(st.binary(max_size=3000), st.lists(st.integers(0, 5000), max_size=8))
def test_garbage_raises_only_protocol_errors(data: bytes, cuts: list[int]) -> None:
    decoder = Decoder(LIMITS)
    try:
        for piece in chunked(data, cuts):
            for msg in decoder.feed(piece):
                assert len(msg) <= LIMITS.max_lines
                assert all(len(line.encode()) <= LIMITS.max_line_length for line in msg)
    except ProtocolError as exc:
        assert exc.limit in {"max_line_length", "max_lines", "max_message_bytes", "utf8"}
    assert decoder.buffered <= LIMITS.max_message_bytes


@given(st.integers(1, 50), st.integers(1, 20))
def test_limits_hold_for_any_flood(chunk: int, repeat: int) -> None:
    decoder = Decoder(LIMITS)
    with pytest.raises(ProtocolError):
        for _ in range(10_000):
            decoder.feed(b"x" * chunk * repeat)
    assert decoder.buffered == 0


def test_line_length_limit_names_the_line() -> None:
    decoder = Decoder(Limits(max_line_length=5, max_lines=10, max_message_bytes=1000))
    with pytest.raises(ProtocolError) as info:
        decoder.feed(b"ok\nabcdefgh\n.\n")
    assert info.value.limit == "max_line_length"
    assert info.value.line == 2


def test_too_many_lines_is_refused_before_the_terminator() -> None:
    decoder = Decoder(Limits(max_line_length=5, max_lines=3, max_message_bytes=1000))
    with pytest.raises(ProtocolError) as info:
        decoder.feed(b"a\nb\nc\nd\n")
    assert info.value.limit == "max_lines"


def test_message_bytes_limit() -> None:
    decoder = Decoder(Limits(max_line_length=100, max_lines=100, max_message_bytes=50))
    with pytest.raises(ProtocolError) as info:
        decoder.feed(b"0123456789\n" * 6)
    assert info.value.limit == "max_message_bytes"


def test_invalid_utf8_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError) as info:
        Decoder().feed(b"R\n\xff\n.\n")
    assert info.value.limit == "utf8" and info.value.line == 2


def test_decoder_stays_broken_after_an_error() -> None:
    decoder = Decoder(Limits(max_line_length=2, max_lines=2, max_message_bytes=100))
    with pytest.raises(ProtocolError):
        decoder.feed(b"toolong\n")
    with pytest.raises(ProtocolError):
        decoder.feed(b"R\n.\n")


def test_crlf_and_empty_messages() -> None:
    decoder = Decoder()
    assert decoder.feed(b"R\r\n.\r\n.\n") == [["R"], []]


def test_terminator_split_across_chunks() -> None:
    decoder = Decoder()
    assert decoder.feed(b"R\n") == []
    assert decoder.feed(b".") == []
    assert decoder.feed(b"\n") == [["R"]]


def test_encode_refuses_lines_that_would_break_framing() -> None:
    with pytest.raises(ValueError):
        encode(["a\nb"])
    with pytest.raises(ValueError):
        encode(["."])
    assert encode([]) == b".\n"


def test_repeated_answers_come_back_as_fresh_messages() -> None:
    decoder = Decoder()
    first = decoder.feed(b"R\n.\n")
    first[0].append("changed")
    first.append(["x"])
    assert decoder.feed(b"R\n.\n") == [["R"]]
    # A remembered answer is only taken whole: as part of a longer read it is decoded again.
    assert decoder.feed(b"R\n.\nP\n") == [["R"]]
    assert decoder.feed(b".\n") == [["P"]]
    assert decoder.feed(b"R\n.\n") == [["R"]]


# Answers as bytes and what they decode to: the usual short ones, and the framings around them.
SENT_AHEAD = {
    b"1\n.\n": ["1"],
    b"2\n.\n": ["2"],
    b"3\n.\n": ["3"],
    b"\n.\n": [""],
    b".\n": [],
    b"2\r\n.\r\n": ["2"],
    b"2\n.\r\n": ["2"],
    b"1\n2\n.\n": ["1", "2"],
    b".x\n.\n": [".x"],
    b"10\n.\n": ["10"],
}


@given(
    st.lists(st.sampled_from(sorted(SENT_AHEAD)), min_size=1, max_size=40),
    st.lists(st.integers(0, 10_000), max_size=6),
)
def test_answers_sent_ahead_split_like_any_others(answers: list[bytes], cuts: list[int]) -> None:
    # Answers a bot sends many to a write (roshambolo's N k) are split at once once each
    # line is known as a whole answer; whatever else is mixed in decodes as usual.
    decoder = Decoder(LIMITS)
    for known in (b"1\n.\n", b"2\n.\n", b"3\n.\n", b"\n.\n"):
        assert decoder.feed(known) == [SENT_AHEAD[known]]
    got: list[list[str]] = []
    for piece in chunked(b"".join(answers), cuts):
        got.extend(decoder.feed(piece))
    assert got == [SENT_AHEAD[a] for a in answers]
    assert decoder.buffered == 0
