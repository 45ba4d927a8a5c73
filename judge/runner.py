"""The match runner: one match between bot processes, turn by turn, under deadlines.

The same ``run_match`` serves the CLI, tournaments and the server. Per turn it
sends every mover its message, then awaits every answer under one absolute
deadline (no nursery per turn), asks the game to apply the orders, and emits
the turn's replay line to every sink.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from time import perf_counter

import trio

from games import get_game, seeds
from games.base import GameState, IllegalOrder
from judge import __version__, logs
from judge.cpus import CpuClaim, claim_cpu, current_cpu, set_tree_affinity
from judge.crashes import python_exception
from judge.models import BotSpec, MatchResult, MatchSpec, PlayerResult, ResponseStats
from judge.sandbox import BotProcess, PlainSandbox, Sandbox, SandboxError
from protocol import Decoder, ProtocolError, encode
from replays import ReplayWriter, event_line, header_line

log = logs.get_logger("judge.runner")

LineSink = Callable[[str], None]
STDERR_HEAD = 4096
STDERR_TAIL = 4096
READ_SIZE = 65536
CAUGHT_MARK = b"judge-caught: "  # bots/adapters/hosting.py
FINAL_SEND_TIMEOUT = 0.2
# A bot that is exiting closes its pipes a moment before it can be seen to have exited.
EXIT_GRACE = 0.1
# The turn scope's deadline may sit up to this much before the turn's real deadline, so it
# is moved only every few ms instead of every turn; firing early just means waiting on.
DEADLINE_SLACK = 0.002
GONE_CODES = frozenset({"closed_stdout", "closed_stdin"})
# Waits a seat skips yielding for after a yield that did not bring its answer, or took
# longer than YIELD_TOO_LONG (other work ran on the core meanwhile).
YIELD_BACKOFF = 8
YIELD_TOO_LONG = 0.0002
# Distinct messages a seat keeps encoded (see Seat.encoded).
ENCODINGS_KEPT = 32
# A checkpoint every this many turns, or once turns without one have taken this long
# (seconds), so one match whose answers are always there cannot keep the other matches of
# this judge process from running.
CHECKPOINT_EVERY = 64
CHECKPOINT_AFTER = 0.002
STDERR_DRAIN = 0.25
# A co-located match (run_match's ``colocate``) whose judge has waited this long (seconds)
# for an answer spreads its bots over every CPU again: a bot that thinks must not share
# one core with the other movers.
COLOCATED_PATIENCE = 0.005
# It also spreads them when more than this many of CHECKPOINT_EVERY turns waited longer than
# COLOCATED_SLOW_WAIT (seconds): on one core a bot that was not run at once by the judge's
# write runs as soon as the judge sleeps (tens of µs), unless other work holds the core.
COLOCATED_WAITS = 32
COLOCATED_SLOW_WAIT = 0.001
# Spread bots are gathered on one core again this many turns later (the wait may have been
# a passing load or one long think). Always as many: a spread turn of short answers costs
# several co-located ones, and a regathering that was too early costs one patience.
REGATHER_AFTER = 1000
# While matches run, the cyclic GC's youngest generation is collected after this many
# allocations instead of 700: a turn allocates a few short-lived containers, and at 700 the
# collections are a measurable share of the judge's per-turn Python
# (docs/performance-history.md §4).
GC_YOUNG_THRESHOLD = 10_000


_gc_saved: tuple[int, int, int] | None = None
_gc_matches = 0


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """GC_YOUNG_THRESHOLD while any match of this process runs; the caller's after the last."""
    global _gc_saved, _gc_matches
    if _gc_matches == 0:
        threshold = gc.get_threshold()
        if 0 < threshold[0] < GC_YOUNG_THRESHOLD:  # (0: automatic collection is off)
            _gc_saved = threshold
            gc.set_threshold(GC_YOUNG_THRESHOLD, threshold[1], threshold[2])
    _gc_matches += 1
    try:
        yield
    finally:
        _gc_matches -= 1
        if _gc_matches == 0 and _gc_saved is not None:
            if gc.get_threshold()[0] == GC_YOUNG_THRESHOLD:  # (unless changed meanwhile)
                gc.set_threshold(*_gc_saved)
            _gc_saved = None


class BotFailed(Exception):
    """A seat must be disqualified: ``code`` is its outcome code."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class StderrTail:
    """Keeps the first and the last few KiB of what a bot wrote to stderr."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, data: bytes | bytearray) -> None:
        room = STDERR_HEAD - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            excess = len(self.tail) - STDERR_TAIL
            if excess > 0:
                del self.tail[:excess]
                self.dropped += excess

    def caught(self) -> tuple[int, str]:
        """What an adapter says it caught and played on: its last ``judge-caught:`` line."""
        # Head and tail are one text unless bytes were dropped between them: a line may
        # cross from one to the other (where it falls depends on what came before).
        gap = b"\n" if self.dropped else b""
        kept = b"\n" + bytes(self.head) + gap + bytes(self.tail)
        at = kept.rfind(b"\n" + CAUGHT_MARK)
        if at < 0:
            return 0, ""
        line = kept[at + 1 + len(CAUGHT_MARK) :].split(b"\n", 1)[0]
        try:
            said = json.loads(line)
            return max(0, int(said["count"])), str(said["first"])[:200]
        except (ValueError, KeyError, TypeError):
            return 0, ""

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes dropped ...]\n" if self.dropped else ""
        return (bytes(self.head) + middle.encode() + bytes(self.tail)).decode(errors="replace")


class Seat:
    """The judge's end of one bot: raw non-blocking pipe fds, a decoder, timings."""

    def __init__(self, index: int, name: str, proc: BotProcess, decoder: Decoder) -> None:
        self.index = index
        self.name = name
        self.proc = proc
        self.decoder = decoder
        stdin, stdout = proc.process.stdin, proc.process.stdout
        # Pipes of a trio process are FdStreams on Unix: the runner uses their raw fds.
        assert isinstance(stdin, trio.lowlevel.FdStream)
        assert isinstance(stdout, trio.lowlevel.FdStream)
        self.stdin, self.stdout = stdin, stdout
        self.stdin_fd = self.stdin.fileno()
        self.stdout_fd = self.stdout.fileno()
        self.ready: deque[list[str]] = deque()
        self.unsent = b""
        self.times: list[float] = []
        self.instant = 0  # answers taken already there when their turn began (time 0)
        self.stderr = StderrTail()
        self.outcome = "ok"
        self.reason = ""
        self.failed_turn: int | None = None
        self.stderr_done = trio.Event()
        # Yielding the CPU once when an answer is not there yet lets a bot woken on the judge's
        # CPU answer without a trio wait; after a yield that did not help, skip a few.
        self.yield_credit = 0
        # Messages this seat is sent again and again (rps has ten), encoded once; None once
        # the messages proved to differ every turn (then the lookup is not worth it).
        self.encodings: dict[tuple[str, ...], bytes] | None = {}
        self.encoding_hits = 0  # since the encodings were last cleared

    def encoded(self, lines: list[str]) -> bytes:
        encodings = self.encodings
        if encodings is None:
            return encode(lines)
        key = tuple(lines)
        data = encodings.get(key)
        if data is None:
            data = encode(lines)
            if len(encodings) >= ENCODINGS_KEPT:
                # Full. Messages that repeat for a while and then change (a roshambolo game's
                # few) are kept afresh; when they hardly repeat, keeping them is not worth it.
                if self.encoding_hits < ENCODINGS_KEPT:
                    self.encodings = None
                    return data
                encodings.clear()
                self.encoding_hits = 0
            encodings[key] = data
        else:
            self.encoding_hits += 1
        return data

    # -- writing -------------------------------------------------------
    def send_now(self, data: bytes) -> None:
        """Write what fits without blocking; the rest waits in ``unsent``."""
        try:
            written = os.write(self.stdin_fd, data)
        except BlockingIOError:
            written = 0
        except (BrokenPipeError, ConnectionResetError):
            raise self.gone("closed_stdin", "closed its stdin") from None
        self.unsent = data[written:]

    async def flush(self) -> None:
        while self.unsent:
            await trio.lowlevel.wait_writable(self.stdin_fd)
            self.send_now(self.unsent)

    # -- reading -------------------------------------------------------
    def _read(self) -> list[list[str]] | None:
        """Decode what is in the pipe now (maybe no complete message); None if it was empty."""
        try:
            data = os.read(self.stdout_fd, READ_SIZE)
        except BlockingIOError:
            return None
        if not data:
            raise self.gone("closed_stdout", "closed its stdout")
        try:
            return self.decoder.feed(data)
        except ProtocolError as exc:
            raise BotFailed("protocol_error", str(exc)) from None

    async def wait_answer(self) -> list[str]:
        """After a poll found nothing: wait for the pipe, then read (no second failed read)."""
        while True:
            await trio.lowlevel.wait_readable(self.stdout_fd)
            answer = self.poll()
            if answer is not None:
                return answer

    def receive_now(self) -> list[str] | None:
        """An answer that has already arrived, reading the pipe until it is empty."""
        while not self.ready:
            messages = self._read()
            if messages is None:
                return None
            self.ready.extend(messages)
        return self.ready.popleft()

    def poll(self) -> list[str] | None:
        """The hot path: an answer already queued or in the pipe (one read), else None."""
        if self.ready:
            return self.ready.popleft()
        messages = self._read()
        if not messages:
            return None
        if len(messages) > 1:
            self.ready.extend(messages[1:])
        return messages[0]

    def poll_after_yield(self) -> list[str] | None:
        """After a poll found nothing: yield the CPU once (a bot just woken on this CPU runs
        and answers), then poll again. Cheaper than a trio wait when it works (~1 µs against
        ~7 µs). A seat whose bot runs elsewhere or thinks stops trying for a while, and so
        does one whose yield let other work run long (a busy core: a wait wakes sooner)."""
        if self.yield_credit < 0:
            self.yield_credit += 1
            return None
        before = perf_counter()
        os.sched_yield()
        answer = self.poll()
        helped = answer is not None and perf_counter() - before < YIELD_TOO_LONG
        self.yield_credit = 0 if helped else -YIELD_BACKOFF
        return answer

    def gone(self, code: str, what: str) -> BotFailed:
        """Why the pipe broke: a dead bot is a crash or an early exit, not a closed pipe."""
        status = self.proc.exit_status()
        if status is None:
            return BotFailed(code, f"{what} while still running")
        return _exited(status)


class Turn:
    """The exchange in progress, kept so a deadline firing mid-wait loses nothing."""

    __slots__ = (
        "allowed",
        "answers",
        "budget",
        "deadline",
        "first",
        "live",
        "movers",
        "started",
        "timed",
    )

    def __init__(
        self, movers: list[int], live: list[Seat], started: float, budget: float, first: bool
    ) -> None:
        self.movers = movers
        self.live = live
        self.answers: dict[int, list[str]] = {}
        self.started = started  # perf_counter, for response times
        self.budget = budget
        self.first = first
        self.deadline: float | None = None  # on the trio clock, once the judge had to wait
        # With a time bank: each mover's answers timed before the turn, and the time an
        # answer may take before it draws on its bank (the budget includes the fullest bank).
        self.timed: dict[int, int] = {}
        self.allowed = budget


def _exited(status: int) -> BotFailed:
    if status == 0:
        return BotFailed("exit", "exited with status 0 before the match ended")
    if status < 0:
        return BotFailed("crash", f"killed by signal {-status}")
    return BotFailed("crash", f"exited with status {status}")


async def _confirm_gone(seat: Seat, failure: BotFailed) -> BotFailed:
    """A closed pipe of a bot that is exiting is its exit (or crash), not a closed pipe."""
    if failure.code not in GONE_CODES:
        return failure
    with trio.CancelScope(shield=True), trio.move_on_after(EXIT_GRACE):
        while (status := seat.proc.exit_status()) is None:  # noqa: ASYNC110 (no event to await)
            await trio.sleep(0.002)
        return _exited(status)
    return failure


async def _pump_stderr(seat: Seat) -> None:
    stream = seat.proc.process.stderr
    assert stream is not None
    try:
        while data := await stream.receive_some(READ_SIZE):
            seat.stderr.add(data)
    except (trio.ClosedResourceError, trio.BrokenResourceError, OSError):
        pass
    finally:
        seat.stderr_done.set()


def _stats(times: list[float], instant: int = 0) -> ResponseStats:
    """Response statistics of ``times`` and of ``instant`` more answers that took 0 s (they
    were there before the turn began: sent ahead), which need no sorting."""
    count = len(times) + instant
    if not count:
        return ResponseStats()
    ordered = sorted(times)

    def at(rank: int) -> float:  # the rank-th smallest, the zeros first
        return 0.0 if rank < instant else ordered[rank - instant]

    middle = count // 2
    median = at(middle) if count % 2 else (at(middle - 1) + at(middle)) / 2
    ms = 1000.0
    return ResponseStats(
        count=count,
        mean_ms=round(math.fsum(times) / count * ms, 3),
        median_ms=round(median * ms, 3),
        p95_ms=round(at(min(count - 1, int(count * 0.95))) * ms, 3),
        max_ms=round((ordered[-1] if ordered else 0.0) * ms, 3),
    )


class Match:
    """One match being run. Use :func:`run_match`."""

    def __init__(
        self,
        spec: MatchSpec,
        sandbox: Sandbox,
        sinks: list[LineSink],
        batch_scheduled: bool,
        colocate: bool = False,
    ) -> None:
        self.spec = spec
        self.sandbox = sandbox
        self.sinks = sinks
        game_cls = get_game(spec.game)
        if not game_cls.min_seats <= len(spec.bots) <= game_cls.max_seats:
            raise ValueError(
                f"{spec.game} takes {game_cls.seats_text()} bots, got {len(spec.bots)}"
            )
        self.options = game_cls.Options(**spec.options)
        # Every seat's seed and the game's draws: from the secret, none from another.
        self.secret = spec.match_secret()
        self.state: GameState = game_cls(
            seats=len(spec.bots), options=self.options, rng=seeds.game_rng(self.secret)
        )
        self.seats: list[Seat | None] = [None] * len(spec.bots)
        self.turn = 0
        self.failures: dict[int, BotFailed] = {}
        self.paused: set[int] = set()
        # Seats that have not answered yet: their first turn carries the start-up allowance.
        self.unanswered: set[int] = set(range(len(spec.bots)))
        # Seconds each seat may still spend beyond the turn deadline, over the whole match
        # (the game's time bank, e.g. Kaggle's remainingOverageTime); empty when it has none.
        bank = self.state.time_bank()
        self.banks: dict[int, float] = dict.fromkeys(range(len(spec.bots)), bank) if bank else {}
        # One long-lived scope per run of turns; its deadline is moved to each turn's deadline
        # just before the judge waits (a fresh CancelScope per turn costs several µs).
        self.turn_scope = trio.CancelScope()
        self.pending: Turn | None = None
        self.all_killed = False
        # The caller runs this thread batch-scheduled (judge.parallel.batch_scheduling), and
        # so the bots it starts: the writes that wake them do not preempt the judge, which
        # yields its core once they are all written.
        self.yield_after_send = batch_scheduled
        # Co-location: once every bot has answered, the judge thread and every bot run on one
        # core (see ``colocate``), until an answer keeps the judge waiting long or waits come
        # often; gathered again REGATHER_AFTER turns later.
        self.colocate_after = 1 if colocate else -1
        self.cpu_claim: CpuClaim | None = None
        self.spread_cpus: set[int] = set()
        self.colocated_waits = 0  # turns that waited long, since the last CHECKPOINT_EVERY

    def emit(self, line: str) -> None:
        for sink in self.sinks:
            sink(line)

    def header(self) -> dict[str, object]:
        limits = self.state.limits
        return {
            "game": self.spec.game,
            "match_id": self.spec.match_id,
            # The seed would give the secret away: the result reveals both, once it is over.
            "commitment": seeds.commitment(self.secret),
            "options": self.options.model_dump(),
            "players": [
                {"seat": i, "label": self.state.seat_label(i), "name": bot.name}
                for i, bot in enumerate(self.spec.bots)
            ],
            "judge": __version__,
            "sandbox": self.sandbox.layer,
            "turn_deadline": self.spec.turn_deadline,
            "startup_allowance": self.spec.startup_allowance,
            "limits": {
                "max_line_length": limits.max_line_length,
                "max_lines": limits.max_lines,
                "max_message_bytes": limits.max_message_bytes,
            },
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }

    # -- lifecycle -------------------------------------------------------
    async def start_bots(self, nursery: trio.Nursery) -> None:
        """Every bot at once: a start that waits (a fork server's answer, a warm sandbox
        being made) does not hold up the next."""
        started: list[BotProcess | Exception | None] = [None] * len(self.spec.bots)

        async def start(index: int, bot: BotSpec) -> None:
            bot_seed = seeds.seat_seed(self.secret, index)
            try:
                started[index] = await self.sandbox.start(bot, seed=bot_seed)
            except Exception as exc:  # (raised below, as a start one by one would)
                started[index] = exc

        try:
            async with trio.open_nursery() as starting:
                for index, bot in enumerate(self.spec.bots):
                    starting.start_soon(start, index, bot)
            for failed in started:
                if isinstance(failed, Exception) and not isinstance(failed, SandboxError):
                    raise failed
        finally:
            # In seat order, as they would have started one by one; a bot started for a
            # match that is being cancelled still gets its seat, so it is killed with it.
            for index, bot in enumerate(self.spec.bots):
                proc = started[index]
                if isinstance(proc, SandboxError):
                    self.disqualify(index, BotFailed("start_failed", str(proc)))
                elif isinstance(proc, BotProcess):
                    seat = Seat(index, bot.name, proc, Decoder(self.state.limits))
                    self.seats[index] = seat
                    nursery.start_soon(_pump_stderr, seat)

    def disqualify(self, index: int, failure: BotFailed) -> None:
        if index in self.failures:
            return
        seat = self.seats[index]
        if seat is not None and failure.code != "memory" and seat.proc.memory_exceeded():
            # However it showed (a crash, a closed pipe, a timeout), the cause was the OOM kill.
            failure = BotFailed("memory", f"over its memory limit ({failure.reason})")
        self.failures[index] = failure
        self.state.disqualify(index, failure.code)
        if seat is not None:
            seat.outcome, seat.reason = failure.code, failure.reason
            seat.failed_turn = self.turn + 1
        log.info(
            "disqualified", seat=index, code=failure.code, reason=failure.reason, turn=self.turn + 1
        )
        self.emit(
            event_line(
                "dq",
                {
                    "seat": index,
                    "turn": self.turn + 1,
                    "code": failure.code,
                    "reason": failure.reason,
                },
            )
        )

    async def play(self) -> None:
        while not self.state.is_over():
            with trio.CancelScope() as scope:
                self.turn_scope = scope
                turn = self.pending
                if turn is not None:
                    # The scope fired before the turn's deadline (within DEADLINE_SLACK, or
                    # a stale one, see below): wait on.
                    if turn.deadline is not None:
                        scope.deadline = turn.deadline
                    answers = await self.collect(turn)
                    if not await self.conclude_turn(turn.movers, answers):
                        return
                await self.play_turns()
            if not scope.cancelled_caught:
                return
            turn = self.pending
            # A deadline left from an earlier turn can expire while the judge is busy (a
            # scope, once expired, stays cancelled even if its deadline moves on): the
            # next checkpoint is cancelled though nothing is overdue. Go on with a fresh scope.
            if turn is None or turn.deadline is None or trio.current_time() < turn.deadline:
                if turn is not None and self.cpu_claim is not None:
                    self.spread_for_now()  # (the co-located patience ran out: see collect)
                continue
            # The turn's deadline passed while waiting: settle it, then go on with a fresh scope.
            movers, answers = self.settle_overdue()
            if not await self.conclude_turn(movers, answers):
                return

    async def play_turns(self) -> None:
        """Turns until the game ends or a wait is cancelled.

        The usual turn runs without awaiting anything: every mover's message is written,
        every answer is already in its pipe (or comes after one yield of the CPU), and the
        turn is judged and applied. Only a missing answer, a failure or the periodic
        checkpoint awaits; a missing answer goes through ``collect`` under the turn's deadline.
        """
        state = self.state
        failures = self.failures
        seats = self.seats
        sinks = self.sinks
        unanswered = self.unanswered
        spec = self.spec
        pause_idle = spec.pause_idle
        turn_deadline = spec.turn_deadline
        yield_after_send = self.yield_after_send
        parse_order = state.parse_order
        checkpointed = perf_counter()
        paused = self.paused
        banks = self.banks
        timed: dict[int, int] = {}  # with a time bank: each mover's answers timed before the turn
        # The movers (and failures) idle bots were last paused for: while the same seats move
        # (a roshambolo game), pausing is not redone every turn; None once other seats moved.
        paused_for: Sequence[int] | None = None
        paused_failures = 0
        queued_run = False  # the last turn's answers were all queued, and no message went out
        while not state.is_over():
            to_move = state.to_move()
            movers = [s for s in to_move if s not in failures] if failures else list(to_move)
            if not movers:
                break
            if queued_run:
                # Turns whose answers are all sent ahead: the game plays them at once (up to
                # the next checkpoint and the turn that co-locates), the runner only records.
                queued_run = False
                turns = CHECKPOINT_EVERY - self.turn % CHECKPOINT_EVERY
                if self.colocate_after > self.turn:
                    turns = min(turns, self.colocate_after - self.turn)
                queues = {}
                for index in movers:
                    seat = seats[index]
                    assert seat is not None
                    queues[index] = seat.ready
                lines = state.play_queued(queues, turns) if not failures else []
                if lines:
                    queued_run = True
                    played = len(lines)
                    for index in movers:  # (answers already there: taken at once)
                        seat = seats[index]
                        assert seat is not None
                        seat.instant += played
                    if sinks:
                        for line in lines:
                            line += "\n"
                            for sink in sinks:
                                sink(line)
                    self.turn += played
                    if self.turn == self.colocate_after:
                        self.colocate()
                    if self.turn % CHECKPOINT_EVERY == 0:
                        if self.colocated_waits > COLOCATED_WAITS and self.cpu_claim is not None:
                            self.spread_for_now()
                        self.colocated_waits = 0
                        self.turn_scope.deadline = math.inf
                        await trio.lowlevel.checkpoint()
                        checkpointed = perf_counter()
                    continue
            # Idle bots are paused once the judge finds an answer of this turn not there yet
            # (before it yields or waits for it): a turn whose answers are there at once was
            # slowed by nobody, and a bot never paused needs no thaw (each freeze and thaw is a
            # write of the judge's and wakes the bot's tasks).
            if to_move != paused_for or len(failures) != paused_failures:
                paused_for = None
            pause_now = (
                pause_idle and paused_for is None and self.turn > 0 and len(movers) < len(seats)
            )
            messages = state.begin_turn()
            first = bool(unanswered) and not unanswered.isdisjoint(movers)
            failed_before = len(failures)
            if banks:
                timed = {i: len(seat.times) for i in movers if (seat := seats[i]) is not None}
            # -- exchange: write every message, then take the answers already there.
            waking = bool(paused) and not paused.isdisjoint(movers)
            started = perf_counter()  # response times; the trio clock is read only to wait
            live: list[Seat] = []
            for index in movers:
                seat = seats[index]
                assert seat is not None
                message = messages.get(index) if messages else None
                try:
                    if message is not None:  # (else its answer was sent ahead, see GameState)
                        seat.send_now(seat.encoded(message))
                    live.append(seat)
                except BotFailed as failure:
                    self.turn_scope.deadline = math.inf  # a stale deadline must not fire now
                    self.disqualify(index, await _confirm_gone(seat, failure))
            if waking:
                # Thawed after its message is in the pipe, a bot wakes once and reads it (thawed
                # before, it would wake, block in its read, and be woken again by the write).
                # The clock starts again: waking up is not the bot's time.
                self.resume(movers)
                started = perf_counter()
            if yield_after_send and live:
                os.sched_yield()
            answers: dict[int, list[str]] = {}
            missing: Seat | None = None
            queued = 0
            for seat in live:
                if seat.unsent:
                    missing = seat
                    break
                ready = seat.ready
                if ready:  # (an answer sent ahead, or several answers read at once)
                    answers[seat.index] = ready.popleft()
                    seat.instant += 1
                    queued += 1
                    continue
                try:
                    answer = seat.poll()
                    if answer is None:
                        if pause_now:
                            pause_now = False
                            self.pause_idle(set(movers))
                            paused_for, paused_failures = to_move, len(failures)
                        answer = seat.poll_after_yield()
                except BotFailed as failure:
                    self.turn_scope.deadline = math.inf  # a stale deadline must not fire now
                    self.disqualify(seat.index, await _confirm_gone(seat, failure))
                    continue
                if answer is None:
                    missing = seat
                    break
                answers[seat.index] = answer
                seat.times.append(perf_counter() - started)
            if missing is not None:
                if pause_now:
                    self.pause_idle(set(movers))
                    paused_for, paused_failures = to_move, len(failures)
                budget = turn_deadline + (spec.startup_allowance if first else 0.0)
                turn = Turn(movers, live, started, budget, first)
                if banks:  # (turn.allowed stays the deadline; the wait covers the fullest bank)
                    turn.timed = timed
                    turn.budget += max(banks.get(i, 0.0) for i in movers)
                turn.answers = answers
                self.pending = turn
                polled = None if missing.unsent else missing
                answers = await self.collect(turn, polled)
                checkpointed = perf_counter()
                if checkpointed - started > COLOCATED_SLOW_WAIT:
                    self.colocated_waits += 1
            elif first:
                unanswered.difference_update(answers)
            # -- judge the answers and play the turn.
            if failures:
                orders = self.orders_of(movers, answers)
            else:  # (orders_of inline: the usual turn)
                orders = {}
                for index in movers:
                    try:
                        orders[index] = parse_order(index, answers[index])
                    except IllegalOrder as exc:
                        self.disqualify(index, BotFailed(exc.code, exc.reason))
            if len(failures) != failed_before:
                if not await self.end_failed(movers):
                    return
                if not orders:
                    continue  # every mover was disqualified; a game of 3+ seats may go on
            line = state.apply(orders)
            if sinks:
                line += "\n"
                for sink in sinks:
                    sink(line)
            self.turn += 1
            queued_run = not messages and queued == len(movers)
            if self.turn == self.colocate_after:
                self.colocate()
            # (idle bots are paused once a turn finds an answer not there yet, above)
            if self.turn % CHECKPOINT_EVERY == 0 or started - checkpointed > CHECKPOINT_AFTER:
                if self.colocated_waits > COLOCATED_WAITS and self.cpu_claim is not None:
                    self.spread_for_now()
                if self.turn % CHECKPOINT_EVERY == 0:
                    self.colocated_waits = 0
                self.turn_scope.deadline = math.inf
                await trio.lowlevel.checkpoint()
                checkpointed = perf_counter()

    def charge_banks(self, timed: dict[int, int], allowed: float) -> None:
        """Take each answer's time beyond ``allowed`` from its seat's bank; a seat that
        needed more than its bank held is disqualified (the turn waited for the fullest bank)."""
        for index, count in timed.items():
            seat = self.seats[index]
            if seat is None or index in self.failures or len(seat.times) == count:
                continue
            over = seat.times[-1] - allowed
            if over <= 0:
                continue
            left = self.banks[index]
            if over > left:
                self.disqualify(
                    index,
                    BotFailed(
                        "timeout",
                        f"answered in {seat.times[-1]:.3g} s, over its {allowed:g} s and the "
                        f"{left:.3g} s left of its overage time",
                    ),
                )
            self.banks[index] = max(0.0, left - over)

    def orders_of(self, movers: list[int], answers: dict[int, list[str]]) -> dict[int, str]:
        """Every live mover's order; an illegal one disqualifies its seat."""
        state = self.state
        failures = self.failures
        orders: dict[int, str] = {}
        for index in movers:
            if index in failures:
                continue
            try:
                orders[index] = state.parse_order(index, answers[index])
            except IllegalOrder as exc:
                self.disqualify(index, BotFailed(exc.code, exc.reason))
        return orders

    async def end_failed(self, movers: list[int]) -> bool:
        """Kill the movers disqualified this turn; False if that ended the game."""
        self.turn_scope.deadline = math.inf
        with trio.CancelScope(shield=True):  # even if a stale deadline already expired
            for index in movers:
                if index in self.failures and (seat := self.seats[index]) is not None:
                    await seat.proc.kill()
        return not self.state.is_over()

    async def conclude_turn(self, movers: list[int], answers: dict[int, list[str]]) -> bool:
        """Judge the answers of a turn that had to wait and play it; False once the match is
        over. (``play_turns`` does the same inline for the usual turn.)"""
        state = self.state
        orders = self.orders_of(movers, answers)
        if self.failures and not await self.end_failed(movers):
            return False
        if state.is_over():
            return False
        if not orders:
            return True  # every mover was disqualified; a game of 3+ seats may go on
        line = state.apply(orders) + "\n"
        for sink in self.sinks:
            sink(line)
        self.turn += 1
        if self.turn == self.colocate_after:
            self.colocate()
        if self.turn % CHECKPOINT_EVERY == 0:
            self.turn_scope.deadline = math.inf
            await trio.lowlevel.checkpoint()
        return True

    def colocate(self) -> None:
        """Run the judge thread and every bot on one core from now on, if one is free
        (once every bot has answered once).

        The bots of a match take turns with the judge; on a VM each wake-up of a process on
        another vCPU costs tens of µs of both sides' CPU and more in latency, on the same
        core a few µs. The core is claimed (judge.cpus) so other judges keep off it."""
        if any(index not in self.failures for index in self.unanswered):
            self.colocate_after += 1  # (a bot still starting up would share the core: later)
            return
        self.colocate_after = -1
        try:
            everywhere = os.sched_getaffinity(0)
        except (OSError, AttributeError):  # (AttributeError: no affinity outside Linux)
            return
        if len(everywhere) < 2:
            return
        here = current_cpu()
        candidates = sorted(everywhere, key=lambda cpu: cpu != here)
        claim = claim_cpu(candidates)
        if claim is None:
            return
        self.cpu_claim, self.spread_cpus = claim, set(everywhere)
        self.colocated_waits = 0
        try:
            os.sched_setaffinity(0, {claim.cpu})
        except OSError:
            self.spread()
            return
        for seat in self.seats:
            if seat is not None and seat.index not in self.failures:
                set_tree_affinity(seat.proc.pid, {claim.cpu})
        log.debug("co-located", cpu=claim.cpu)

    def spread_for_now(self) -> None:
        """Spread the bots, and gather them again REGATHER_AFTER turns later."""
        self.spread()
        self.colocate_after = self.turn + REGATHER_AFTER

    def spread(self) -> None:
        """Back to every CPU the judge had, bots included."""
        claim = self.cpu_claim
        if claim is None:
            return
        self.cpu_claim = None
        for seat in self.seats:
            if seat is not None and seat.proc.exit_status() is None:
                set_tree_affinity(seat.proc.pid, self.spread_cpus)
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, self.spread_cpus)
        claim.release()
        log.debug("spread", turn=self.turn + 1)

    def pause_idle(self, upcoming: set[int]) -> None:
        """Stop the bots that are not moving, so they cannot take the movers' CPU (called
        once the judge finds a mover's answer not there yet: see play_turns)."""
        for seat in self.seats:
            if seat is None or seat.index in upcoming or seat.index in self.failures:
                continue
            if seat.index not in self.paused:
                seat.proc.pause()
                self.paused.add(seat.index)

    def resume(self, indices: Iterable[int]) -> None:
        for index in indices:
            if index in self.paused and (seat := self.seats[index]) is not None:
                self.paused.discard(index)
                seat.proc.resume()

    async def collect(self, turn: Turn, polled: Seat | None = None) -> dict[int, list[str]]:
        """Take every live mover's answer: from the pipe if there, else wait for it.

        The turn's deadline is armed only when the judge has to wait. ``polled`` is a seat
        just found without an answer (it is waited for without reading again). Each answer
        is timed when it arrives: answers already there are taken first, and when several
        seats are still thinking they are awaited at once, so a slow seat never adds its
        time to the seats after it.
        """
        answers = turn.answers
        started = turn.started
        failures = self.failures
        waiting: list[Seat] = []
        for seat in turn.live:
            index = seat.index
            if index in answers or index in failures:
                continue
            try:
                answer = None if seat.unsent or seat is polled else seat.poll()
            except BotFailed as failure:
                self.turn_scope.deadline = math.inf  # a stale deadline must not fire meanwhile
                self.disqualify(index, await _confirm_gone(seat, failure))
                continue
            if answer is None:
                waiting.append(seat)
            else:
                answers[index] = answer
                seat.times.append(perf_counter() - started)
        if waiting:
            if turn.deadline is None:
                elapsed = perf_counter() - started
                turn.deadline = trio.current_time() - elapsed + turn.budget
            scope = self.turn_scope
            if self.cpu_claim is not None and not turn.first:
                # Co-located: wake up early, spread the bots, and wait on (see play).
                scope.deadline = min(turn.deadline, trio.current_time() + COLOCATED_PATIENCE)
            elif not turn.deadline - DEADLINE_SLACK <= scope.deadline <= turn.deadline:
                scope.deadline = turn.deadline
            if len(waiting) == 1:
                await self.await_answer(turn, waiting[0])
            else:
                async with trio.open_nursery() as nursery:
                    for seat in waiting:
                        nursery.start_soon(self.await_answer, turn, seat)
        self.pending = None
        if turn.first:
            self.unanswered.difference_update(answers)
        if turn.timed:
            self.charge_banks(turn.timed, turn.allowed)
        return answers

    async def await_answer(self, turn: Turn, seat: Seat) -> None:
        """Wait (under the armed turn deadline) for one seat's answer and time it."""
        try:
            answer = None
            if seat.unsent:
                await seat.flush()
                answer = seat.poll()
            if answer is None:
                answer = await seat.wait_answer()
        except BotFailed as failure:
            self.disqualify(seat.index, await _confirm_gone(seat, failure))
            return
        turn.answers[seat.index] = answer
        seat.times.append(perf_counter() - turn.started)

    def settle_overdue(self) -> tuple[list[int], dict[int, list[str]]]:
        """The turn whose deadline fired: take late-but-there answers, disqualify the rest."""
        turn = self.pending
        assert turn is not None
        self.pending = None
        movers, answers, started, budget = turn.movers, turn.answers, turn.started, turn.budget
        for seat in turn.live:
            if seat.index in answers or seat.index in self.failures:
                continue
            try:
                answer = None if seat.unsent else seat.receive_now()
            except BotFailed as failure:
                self.disqualify(seat.index, failure)
                continue
            if answer is not None:
                answers[seat.index] = answer
                seat.times.append(perf_counter() - started)
                continue
            status = seat.proc.exit_status()
            if status is not None:
                self.disqualify(seat.index, _exited(status))
            else:
                self.disqualify(
                    seat.index,
                    BotFailed("timeout", f"no complete answer within {budget:g} s"),
                )
        self.unanswered.difference_update(answers)
        if turn.timed:
            self.charge_banks(turn.timed, turn.allowed)
        return movers, answers

    async def finish(self) -> None:
        """Tell live bots the match is over, close their stdin, kill what remains."""
        self.resume(list(self.paused))
        live = [s for s in self.seats if s is not None and s.index not in self.failures]
        for seat in live:
            try:
                seat.send_now(encode(self.state.final_message(seat.index)))
            except BotFailed:
                continue
        with trio.move_on_after(FINAL_SEND_TIMEOUT):
            for seat in live:
                with contextlib.suppress(BotFailed):
                    await seat.flush()
        for seat in live:
            await seat.stdin.aclose()
        with trio.move_on_after(self.spec.end_grace):
            for seat in live:
                await _wait_exit(seat.proc)
        await self.kill_all()

    async def kill_all(self) -> None:
        if self.all_killed:
            return
        with trio.CancelScope(shield=True):
            for seat in self.seats:
                if seat is not None:
                    await seat.proc.kill()
                    # (close, not aclose: its checkpoint, in a shielded scope, only yields)
                    seat.stdin.close()
                    seat.stdout.close()
        self.all_killed = True  # the second call (run_match's finally) has nothing left to do

    def result(self, duration: float, replay: Path | None) -> MatchResult:
        game_result = self.state.result()
        players = []
        for index, bot in enumerate(self.spec.bots):
            seat = self.seats[index]
            failure = self.failures.get(index)
            reason = failure.reason if failure else ""
            if failure and failure.code == "crash" and seat is not None:
                # A Python bot's exit status says little; its exception says what failed.
                raised = python_exception(seat.stderr.text())
                if raised and raised not in reason:
                    reason = f"{reason}: {raised}"
            players.append(
                PlayerResult(
                    name=bot.name,
                    seat=index,
                    label=self.state.seat_label(index),
                    score=game_result.scores[index],
                    rank=game_result.ranks[index],
                    outcome=failure.code if failure else "ok",
                    reason=reason,
                    turn=seat.failed_turn if seat else (1 if failure else None),
                    response=_stats(seat.times, seat.instant) if seat else ResponseStats(),
                    stderr=seat.stderr.text() if seat else "",
                    exit_status=seat.proc.process.returncode if seat else None,
                    **dict(zip(("caught", "caught_first"), seat.stderr.caught(), strict=True))
                    if seat
                    else {},
                )
            )
        winner = game_result.winner
        return MatchResult(
            match_id=self.spec.match_id,
            game=self.spec.game,
            seed=self.spec.seed,
            secret=self.secret.hex(),
            options=self.options.model_dump(),
            turns=self.turn,
            players=players,
            winner=winner,
            draw=winner is None,
            summary=game_result.summary,
            details={name: list(values) for name, values in game_result.details.items()},
            replay=str(replay) if replay else None,
            sandbox=self.sandbox.layer,
            duration_s=round(duration, 4),
            judge_version=__version__,
        )


async def _wait_exit(proc: BotProcess) -> None:
    """Until the bot has exited, without reaping it (its kill still signals its group)."""
    if proc.exit_status() is not None:
        return
    try:
        pidfd = os.pidfd_open(proc.pid)  # readable once the process has exited
    except (OSError, AttributeError):  # (AttributeError: not Linux)
        pidfd = None
    if pidfd is not None:
        try:
            await trio.lowlevel.wait_readable(pidfd)
        finally:
            trio.lowlevel.notify_closing(pidfd)
            os.close(pidfd)
    while proc.exit_status() is None:  # noqa: ASYNC110 (no pidfd: poll for the exit)
        await trio.sleep(0.005)


async def run_match(
    spec: MatchSpec,
    *,
    sandbox: Sandbox | None = None,
    replay_path: Path | None = None,
    sinks: Iterable[LineSink] = (),
    batch_scheduled: bool = False,
    colocate: bool = False,
) -> MatchResult:
    """Run one match to the end and return its result. Never raises because of a bot.

    ``batch_scheduled``: the caller made this thread SCHED_BATCH (its bots inherit it), so
    the judge yields its core once a turn's messages are written.

    ``colocate``: once every bot has answered, run this thread and the bots on one core
    (claimed, so other judges keep off it) until an answer keeps the judge waiting more
    than ``COLOCATED_PATIENCE`` or more than ``COLOCATED_WAITS`` turns of ``CHECKPOINT_EVERY``
    wait longer than ``COLOCATED_SLOW_WAIT`` (other work on that core); then again
    ``REGATHER_AFTER`` turns later. For a caller that runs this one match alone.
    """
    if not spec.match_id:
        spec = spec.model_copy(update={"match_id": uuid.uuid4().hex[:12]})
    all_sinks = list(sinks)
    writer = ReplayWriter(replay_path) if replay_path else None
    if writer is not None:
        all_sinks.insert(0, writer)
    match = Match(spec, sandbox or PlainSandbox(), all_sinks, batch_scheduled, colocate)
    began = time.monotonic()
    with logs.bound(match_id=spec.match_id), _fewer_collections():
        log.info("match starting", game=spec.game, bots=[b.name for b in spec.bots], seed=spec.seed)
        if all_sinks:  # (the header and the result line are built only for someone)
            match.emit(header_line(match.header()))
        try:
            async with trio.open_nursery() as nursery:
                try:
                    await match.start_bots(nursery)
                    await match.play()
                    await match.finish()
                finally:
                    match.spread()
                    await match.kill_all()
                    # Let stderr drain to EOF, but a leftover holding it open cannot stall us.
                    # (The deadline inside the shield: outside it, it could not end the wait.)
                    with trio.CancelScope(shield=True), trio.move_on_after(STDERR_DRAIN):
                        for seat in match.seats:
                            if seat is not None:
                                await seat.stderr_done.wait()
                    nursery.cancel_scope.cancel()
            result = match.result(time.monotonic() - began, replay_path)
            if all_sinks:
                # No path in the replay's own result line: the file is shared (a server
                # serves it) and may move; whoever holds it knows where it is.
                summary = result.model_dump(
                    mode="json", exclude={"replay": True, "players": {"__all__": {"stderr"}}}
                )
                match.emit(event_line("result", summary))
        finally:
            if writer is not None:
                writer.close()
        log.info("match finished", winner=result.winner, summary=result.summary, turns=result.turns)
    return result
