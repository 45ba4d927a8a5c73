"""Re-simulating a replay with the game's own rules: the check that makes a replay evidence.

The verifier mirrors the match runner's loop exactly. From the header's game, options and
seats, and the match secret the result reveals (checked against the header's commitment;
a version 1 replay: the header's seed), it builds the game state with the same generator
as the runner (games/seeds.py); for every
turn it asks the game who moves and begins the turn, applies the ``#dq`` events of that
turn with ``state.disqualify``, reads the orders back from the recorded line with
``orders_from_line``, checks each is legal, applies them, and compares the line the game
produces with the recorded one, byte for byte. At the end it compares the recorded
``#result`` with the game's result and the recorded disqualifications, and the result's
checksum with the file's bytes. It reports the first difference only: everything after
it depends on it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games import UnknownGame, get_game, seeds
from games.base import GameState, IllegalOrder, ReplayMismatch, counted
from replays.format import ReplayFormatError, ReplayHeader
from replays.reader import Disqualified, Header, Record, ReplayReader, Result, Turn
from replays.result import OUTCOMES, MatchResult

START_FAILED = "start_failed"


@dataclass(frozen=True)
class Difference:
    """The first place where the record and the rules disagree."""

    where: str  # "turn 37", "the result", "the header"
    lineno: int | None
    message: str
    turn: int | None = None

    def __str__(self) -> str:
        line = f" (line {self.lineno})" if self.lineno else ""
        return f"{self.where}{line}: {self.message}"


@dataclass
class VerifyReport:
    ok: bool = False
    turns: int = 0  # turns re-simulated and found equal
    complete: bool = False
    difference: Difference | None = None
    checksum: bool | None = None  # None: the file carries no checksum
    notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        if self.difference is not None:
            return f"MISMATCH at {self.difference}"
        if not self.complete:
            return (
                f"INCOMPLETE: the {self.turns} recorded turns match the rules, but the replay has "
                "no final result"
            )
        checksum = "checksum ok" if self.checksum else "no checksum (metadata not covered)"
        return f"OK: {counted(self.turns, 'turn')} and the result match the rules; {checksum}"


class Mismatch(Exception):
    def __init__(self, difference: Difference) -> None:
        super().__init__(str(difference))
        self.difference = difference


def _fmt(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, str) else str(value)


class Verifier:
    """Feed it every record after the header, in order; ``Mismatch`` on the first difference."""

    def __init__(self, header: ReplayHeader, secret: bytes | None = None) -> None:
        """``secret``: the match secret (revealed in the result), for a version 2 replay."""
        self.header = header
        self.secret = secret
        try:
            game_cls = get_game(header.game)
        except UnknownGame as exc:
            raise ReplayFormatError(str(exc), line=1) from None
        seats = len(header.players)
        if not game_cls.min_seats <= seats <= game_cls.max_seats:
            raise self._header_mismatch(
                f"{header.game} takes {game_cls.min_seats}..{game_cls.max_seats} seats, "
                f"the header has {seats}"
            )
        try:
            options = game_cls.Options(**header.options)
        except Exception as exc:  # pydantic's ValidationError or a game's own check
            raise self._header_mismatch(f"options the game rejects: {exc}") from None
        if options.model_dump(mode="json") != header.options:
            raise self._header_mismatch(
                f"options {header.options} are not what the game records for them "
                f"({options.model_dump(mode='json')})"
            )
        rng = _game_rng(header, secret)  # exactly as the runner seeds it
        self.state: GameState = game_cls(seats=seats, options=options, rng=rng)
        for seat, player in enumerate(header.players):
            if player.label != self.state.seat_label(seat):
                raise self._header_mismatch(
                    f"seat {seat} is labelled {player.label!r}, the game labels it "
                    f"{self.state.seat_label(seat)!r}"
                )
        self.turn = 0  # turns applied
        self.started = False
        self.turn_open = False  # begin_turn was called; the turn awaits orders
        self.ended = False
        self.end_reason = ""
        self.movers: list[int] = []
        self.dq: dict[int, Disqualified] = {}

    @staticmethod
    def _header_mismatch(message: str) -> Mismatch:
        return Mismatch(Difference("the header", 1, message))

    def _name(self, seat: int) -> str:
        return f"seat {self.header.players[seat].label} ({self.header.player_name(seat)})"

    # -- the runner's loop, one record at a time --------------------------------
    def _advance(self) -> None:
        """Bring the game to where the runner records its next line: a turn waiting for
        orders (``turn_open``) or the end (``ended``)."""
        while not self.ended:
            if self.turn_open:
                if self.state.is_over():
                    self.turn_open, self.ended = False, True
                    self.end_reason = f"the game ended during turn {self.turn + 1}"
                    return
                if self._orders_expected():
                    return
                # Every mover was disqualified and the game goes on: the runner begins the
                # turn again with the next movers.
                self.turn_open = False
                continue
            self.started = True
            if self.state.is_over():
                self.ended, self.end_reason = (
                    True,
                    f"the game is over after {counted(self.turn, 'turn')}",
                )
                return
            movers = [s for s in self.state.to_move() if s not in self.dq]
            if not movers:
                self.ended, self.end_reason = True, "no seat is left to move"
                return
            self.state.begin_turn()
            self.movers = movers
            self.turn_open = True

    def _orders_expected(self) -> list[int]:
        return [s for s in self.movers if s not in self.dq]

    def feed(self, record: Record) -> None:
        if isinstance(record, Header):
            raise Mismatch(Difference("the header", record.lineno, "a second header"))
        if isinstance(record, Disqualified):
            self._disqualified(record)
        elif isinstance(record, Turn):
            self._turn(record)
        else:
            self._result(record)

    def _disqualified(self, dq: Disqualified) -> None:
        number = self.turn + 1
        where = f"turn {number}"

        def mismatch(message: str) -> Mismatch:
            return Mismatch(Difference(where, dq.lineno, message, number))

        if dq.code not in OUTCOMES or dq.code == "ok":
            raise mismatch(f"#dq with unknown outcome code {dq.code!r}")
        if dq.seat in self.dq:
            raise mismatch(f"{self._name(dq.seat)} is disqualified twice")
        if dq.turn != number:
            raise mismatch(f"#dq says turn {dq.turn}, but it is recorded during turn {number}")
        if dq.code == START_FAILED:
            if self.started:
                raise mismatch("a start failure recorded after play began")
        else:
            self._advance()
            if not self.turn_open:
                raise mismatch(f"a disqualification, but {self.end_reason}")
            if dq.seat not in self.movers:
                raise mismatch(
                    f"{self._name(dq.seat)} is disqualified, but it does not move this turn"
                )
        self.dq[dq.seat] = dq
        self.state.disqualify(dq.seat, dq.code)

    def _turn(self, record: Turn) -> None:
        number = self.turn + 1
        where = f"turn {number}"

        def mismatch(message: str) -> Mismatch:
            return Mismatch(Difference(where, record.lineno, message, number))

        self._advance()
        if not self.turn_open:
            raise mismatch(f"a turn is recorded, but {self.end_reason}")
        expected = self._orders_expected()
        try:
            orders = self.state.orders_from_line(record.line)
        except (ReplayMismatch, ValueError, IndexError, KeyError) as exc:
            raise mismatch(f"the game cannot read {record.line!r}: {exc}") from None
        if sorted(orders) != sorted(expected):
            raise mismatch(
                f"orders of seats {[s + 1 for s in sorted(orders)]} recorded, the rules expect "
                f"seats {[s + 1 for s in sorted(expected)]}"
            )
        for seat, order in orders.items():
            try:
                canonical = self.state.parse_order(seat, order.split("\n"))
            except IllegalOrder as exc:
                raise mismatch(
                    f"{self._name(seat)}'s order {order!r} is illegal: {exc.reason}"
                ) from None
            if canonical != order:
                raise mismatch(
                    f"{self._name(seat)}'s order {order!r} is not in its canonical form "
                    f"{canonical!r}"
                )
        produced = self.state.apply(orders)
        if produced != record.line:
            raise mismatch(f"recorded {record.line!r}, the rules give {produced!r}")
        self.turn = number
        self.turn_open = False

    def _result(self, record: Result) -> None:
        where = "the result"
        self._advance()
        if self.turn_open:
            raise Mismatch(
                Difference(
                    where,
                    record.lineno,
                    f"the match ends after {counted(self.turn, 'turn')}, but by the rules turn "
                    f"{self.turn + 1} is still to be played",
                )
            )
        for message in self._result_differences(record.result):
            raise Mismatch(Difference(where, record.lineno, message))
        if record.checksum_ok is False:
            raise Mismatch(
                Difference(
                    "the checksum",
                    record.lineno,
                    "the file's bytes do not match the sha256 the writer sealed it with "
                    "(a line was altered)",
                )
            )

    def _result_differences(self, result: MatchResult) -> Iterable[str]:
        header = self.header
        game = self.state.result()
        expected: dict[str, Any] = {
            "game": header.game,
            "options": header.options,
            "turns": self.turn,
            "winner": game.winner,
            "draw": game.winner is None,
            "summary": game.summary,
        }
        if header.version == 1:
            expected["seed"] = header.seed
        else:
            expected["secret"] = self.secret.hex() if self.secret is not None else None
        if "match_id" in header.model_fields_set:
            expected["match_id"] = header.match_id
        if "sandbox" in header.model_fields_set:
            expected["sandbox"] = header.sandbox
        if "judge" in header.model_fields_set:
            expected["judge_version"] = header.judge
        for key, value in expected.items():
            recorded = getattr(result, key)
            if recorded != value:
                yield f"{key}: recorded {_fmt(recorded)}, the rules give {_fmt(value)}"
        if len(result.players) != len(header.players):
            yield f"{len(result.players)} players, the header has {len(header.players)}"
            return
        for seat, player in enumerate(result.players):
            dq = self.dq.get(seat)
            want: dict[str, Any] = {
                "seat": seat,
                "name": header.players[seat].name,
                "label": header.players[seat].label,
                "score": float(game.scores[seat]),
                "rank": game.ranks[seat],
                "outcome": dq.code if dq else "ok",
                "reason": dq.reason if dq else "",
                "turn": dq.turn if dq else None,
            }
            for key, value in want.items():
                recorded = getattr(player, key)
                if recorded != value:
                    yield (
                        f"{self._name(seat)} {key}: recorded {_fmt(recorded)}, "
                        f"the rules give {_fmt(value)}"
                    )


def _game_rng(header: ReplayHeader, secret: bytes | None) -> random.Random:
    if header.version == 1:
        return random.Random(header.seed)  # (version 1: the game drew from the seed itself)
    if secret is None or seeds.commitment(secret) != header.commitment:
        raise ReplayFormatError("the match secret is missing or not the one the header commits to")
    return seeds.game_rng(secret)


def revealed_secret(result: Result) -> bytes | None:
    """The match secret a version 2 result reveals, if it is well formed."""
    text = result.result.secret
    if text is None or len(text) != 2 * seeds.SECRET_BYTES:
        return None
    try:
        return bytes.fromhex(text)
    except ValueError:
        return None


def _secret_mismatch(header: ReplayHeader, result: Result) -> Mismatch | None:
    secret = revealed_secret(result)
    if secret is None:
        return Mismatch(
            Difference("the result", result.lineno, "no match secret revealed (64 hex digits)")
        )
    if seeds.commitment(secret) != header.commitment:
        return Mismatch(
            Difference(
                "the result",
                result.lineno,
                "the revealed match secret is not the one the header commits to",
            )
        )
    return None


NOT_REVEALED = (
    "the match secret is revealed with the result: the turns of a match without one cannot "
    "be re-simulated"
)


def verify_records(
    records: Iterable[Record], rewind: Callable[[], Iterable[Record]] | None = None
) -> VerifyReport:
    """Verify a stream of records (header first). Format errors propagate as ReplayFormatError.

    A version 2 replay's secret is in its last line: the records are read to it, then
    ``rewind()`` gives them again from the header (without ``rewind``, they are kept in
    memory meanwhile).
    """
    stream = iter(records)
    first = next(stream, None)
    if first is None:
        return VerifyReport()
    if not isinstance(first, Header):
        raise ReplayFormatError("the replay does not start with a header", line=1)
    if first.header.version == 1:
        return _verify_with(first.header, None, stream)
    kept: list[Record] | None = [] if rewind is None else None
    result: Result | None = None
    for record in stream:
        if kept is not None:
            kept.append(record)
        if isinstance(record, Result):
            result = record
    if result is None:
        report = VerifyReport()
        report.notes.append(NOT_REVEALED)
        return report
    mismatch = _secret_mismatch(first.header, result)
    if mismatch is not None:
        return VerifyReport(difference=mismatch.difference)
    if kept is None:
        assert rewind is not None
        again = iter(rewind())
        next(again, None)  # (the header, read already)
        rest: Iterable[Record] = again
    else:
        rest = kept
    return _verify_with(first.header, revealed_secret(result), rest)


def _verify_with(
    header: ReplayHeader, secret: bytes | None, records: Iterable[Record]
) -> VerifyReport:
    report = VerifyReport()
    try:
        verifier = Verifier(header, secret)
        for record in records:
            verifier.feed(record)
            report.turns = verifier.turn
            if isinstance(record, Result):
                report.complete = True
                report.checksum = record.checksum_ok
    except Mismatch as exc:
        report.difference = exc.difference
        return report
    report.turns = verifier.turn
    report.ok = report.complete
    if report.ok and report.checksum is None:
        report.notes.append("the result carries no checksum: metadata lines are not covered")
    return report


def verify_file(
    path: Path | str, *, follow: bool = False, idle_timeout: float | None = None
) -> VerifyReport:
    reader = ReplayReader(path, follow=follow, idle_timeout=idle_timeout)
    report = verify_records(reader, rewind=lambda: ReplayReader(path))
    if not report.complete and report.difference is None:
        reason = reader.incomplete_reason()
        if reason:
            report.notes.append(reason)
    return report
