"""``judge replay FILE``: play back, follow, verify, export or summarise a replay.

Exit codes: 0 success (a truncated replay played back or printed is still a success,
reported as incomplete); 1 the replay is bad (a corrupt line, an unknown game, a newer
format version, a verification mismatch, an incomplete replay under --verify, a broken
checksum); 2 usage errors; 130 interrupted.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from games import UnknownGame, get_game
from games.base import counted
from replays.format import ReplayFormatError, ReplayHeader
from replays.reader import Disqualified, Header, Record, ReplayReader, Result, Turn

EXIT_BAD_REPLAY = 1
EXIT_INTERRUPTED = 130
STEP_KEYS_HELP = "space/enter: next turn · c: play on · q: quit"


class ReplayProblem(Exception):
    """Ends the command with exit code 1 and one line on stderr."""


def _fail(file: Path, message: str) -> NoReturn:
    click.echo(f"judge replay: {file}: {message}", err=True)
    sys.exit(EXIT_BAD_REPLAY)


def _records(reader: ReplayReader) -> Iterator[Record]:
    """Records with the game checked against the installed games."""
    for record in reader:
        if isinstance(record, Header):
            try:
                get_game(record.header.game)
            except UnknownGame as exc:
                raise ReplayFormatError(str(exc), line=1) from None
        yield record


def _quiet_broken_pipe() -> None:
    # The reader of our stdout went away (| head): stop without a traceback at exit.
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


@click.command("replay")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--follow",
    "-f",
    is_flag=True,
    help="follow a replay still being written; stop at its final result",
)
@click.option(
    "--verify",
    "verify",
    is_flag=True,
    help="re-simulate with the game's rules; exit 1 naming the first differing turn",
)
@click.option(
    "--export",
    "export",
    type=click.Choice(["html"]),
    default=None,
    help="write a self-contained HTML viewer (see --output)",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="where --export writes (default: FILE with .html)",
)
@click.option(
    "--plain", is_flag=True, help="print only the bare turn lines, in the game's own format"
)
@click.option(
    "--summary",
    is_flag=True,
    help="players, outcomes, scores, turns, response times, sandbox, seed, versions",
)
@click.option("--json", "as_json", is_flag=True, help="with --summary or --verify: one JSON object")
@click.option(
    "--speed",
    type=float,
    default=20.0,
    show_default=True,
    help="turns per second when playing back on a terminal (0: no delay)",
)
@click.option("--step", is_flag=True, help=f"one turn per key press ({STEP_KEYS_HELP})")
@click.option(
    "--from",
    "from_turn",
    type=int,
    default=1,
    show_default=True,
    metavar="TURN",
    help="start showing at this turn",
)
@click.option(
    "--idle-timeout",
    type=float,
    default=None,
    metavar="SECONDS",
    help="with --follow: give up after this long without new data (default: never)",
)
def replay(
    file: Path,
    follow: bool,
    verify: bool,
    export: str | None,
    output: Path | None,
    plain: bool,
    summary: bool,
    as_json: bool,
    speed: float,
    step: bool,
    from_turn: int,
    idle_timeout: float | None,
) -> None:
    """Play back a replay FILE (plain, .gz or .zst), or follow, verify, export or summarise it.

    Exit status: 0 ok (a truncated replay is shown and reported as incomplete), 1 the replay
    is bad (corrupt line, unknown game, newer format, verification failed), 2 usage error.
    """
    modes = [
        name
        for name, on in (
            ("--verify", verify),
            ("--export", export is not None),
            ("--plain", plain),
            ("--summary", summary),
        )
        if on
    ]
    if len(modes) > 1:
        raise click.UsageError(f"{' and '.join(modes)} cannot be combined; pick one")
    if as_json and not (summary or verify):
        raise click.UsageError("--json goes with --summary or --verify")
    if output is not None and export is None:
        raise click.UsageError("--output goes with --export html")
    if speed < 0:
        raise click.UsageError("--speed must be >= 0")
    if from_turn < 1:
        raise click.UsageError("--from must be >= 1")
    if idle_timeout is not None and (idle_timeout <= 0 or not follow):
        raise click.UsageError("--idle-timeout takes seconds > 0 and goes with --follow")
    if not follow and not file.exists():
        raise click.UsageError(f"{file} does not exist (use --follow to wait for it)")
    if file.exists() and not file.is_file():
        raise click.UsageError(f"{file} is not a file")
    if output is not None and not output.parent.exists():
        raise click.UsageError(f"directory {output.parent} does not exist")

    reader = ReplayReader(file, follow=follow, idle_timeout=idle_timeout)
    try:
        if verify:
            _verify(file, reader, as_json)
        elif export:
            _export(file, reader, output or _default_output(file))
        elif plain:
            _plain(reader, follow)
        elif summary:
            _summary(file, reader, as_json)
        else:
            _play(file, reader, follow=follow, speed=speed, step=step, from_turn=from_turn)
    except ReplayFormatError as exc:
        _fail(file, str(exc))
    except FileNotFoundError as exc:
        _fail(file, str(exc) if follow else "does not exist")
    except IsADirectoryError:
        _fail(file, "is a directory")
    except PermissionError:
        _fail(file, "permission denied")
    except KeyboardInterrupt:
        click.echo("", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except BrokenPipeError:
        _quiet_broken_pipe()
        sys.exit(0)
    except ReplayProblem as exc:
        _fail(file, str(exc))
    except Exception as exc:  # a bug of ours must still not show a user a traceback
        _fail(file, f"internal error ({type(exc).__name__}: {exc}); please report it")


def _seed_shown(header: ReplayHeader, result: Result | None) -> str:
    if header.seed is not None:  # (format version 1)
        return str(header.seed)
    return str(result.result.seed) if result is not None else "revealed with the result"


def _default_output(file: Path) -> Path:
    name = file.name
    for suffix in (".gz", ".zst", ".replay", ".txt"):
        name = name.removesuffix(suffix)
    return file.with_name(f"{name}.html")


def _incomplete_note(reader: ReplayReader) -> str:
    return f"incomplete: {reader.incomplete_reason()}"


# -- modes ---------------------------------------------------------------------------
def _plain(reader: ReplayReader, follow: bool) -> None:
    out = sys.stdout
    for record in _records(reader):
        if isinstance(record, Turn):
            out.write(record.line + "\n")
            if follow:
                out.flush()
    out.flush()
    if not reader.complete:
        click.echo(_incomplete_note(reader), err=True)
    elif reader.result is not None and reader.result.checksum_ok is False:
        raise ReplayProblem(_checksum_message(reader.result))


def _checksum_message(result: Result) -> str:
    return f"line {result.lineno}: the sha256 checksum does not match: the file was altered"


def _verify(file: Path, reader: ReplayReader, as_json: bool) -> None:
    from replays.verify import verify_records

    report = verify_records(_records(reader), rewind=lambda: _records(ReplayReader(file)))
    if not report.complete and report.difference is None:
        reason = reader.incomplete_reason()
        if reason:
            report.notes.append(reason)
    if as_json:
        payload: dict[str, Any] = {
            "file": str(file),
            "ok": report.ok,
            "complete": report.complete,
            "turns": report.turns,
            "checksum": report.checksum,
            "difference": None,
            "notes": report.notes,
        }
        if report.difference is not None:
            d = report.difference
            payload["difference"] = {
                "where": d.where,
                "turn": d.turn,
                "line": d.lineno,
                "message": d.message,
            }
        click.echo(json.dumps(payload))
    else:
        click.echo(report.describe())
        for note in report.notes:
            click.echo(f"  note: {note}")
    if not report.ok:
        sys.exit(EXIT_BAD_REPLAY)


def _export(file: Path, reader: ReplayReader, output: Path) -> None:
    from replays.export import write_html

    turns = write_html(_records(reader), output, title=file.name)
    note = "" if reader.complete else f" ({_incomplete_note(reader)})"
    click.echo(f"wrote {output} ({counted(turns, 'turn')}){note}")


def _summary(file: Path, reader: ReplayReader, as_json: bool) -> None:
    header = None
    result: Result | None = None
    dqs: list[Disqualified] = []
    for record in _records(reader):
        if isinstance(record, Header):
            header = record.header
        elif isinstance(record, Disqualified):
            dqs.append(record)
        elif isinstance(record, Result):
            result = record
    if as_json:
        payload: dict[str, Any] = {
            "file": str(file),
            "complete": reader.complete,
            "incomplete_reason": reader.incomplete_reason(),
            "compression": reader.compression,
            "unterminated_stream": reader.parser.unterminated,
            "turns": reader.turns,
            "header": header.model_dump(mode="json") if header else None,
            "disqualifications": [
                {"seat": d.seat, "turn": d.turn, "code": d.code, "reason": d.reason} for d in dqs
            ],
            "result": result.result.model_dump(mode="json") if result else None,
            "checksum": None if result is None else result.checksum_ok,
        }
        click.echo(json.dumps(payload))
        return
    console = Console(highlight=False)
    if header is None:
        console.print(f"{file}: {_incomplete_note(reader)}")
        return
    table = Table(title=f"{header.game} · {file.name}")
    for column in ("seat", "bot", "score", "rank", "outcome"):
        table.add_column(column)
    times = Table(title="response times (ms)")
    for column in ("seat", "answers", "mean", "median", "p95", "max"):
        times.add_column(column, justify="right")
    dq_by_seat = {d.seat: d for d in dqs}
    for seat, player in enumerate(header.players):
        if result is not None:
            p = result.result.players[seat]
            outcome = "ok" if p.outcome == "ok" else f"[red]{p.outcome}[/]: {p.reason}"
            if p.turn is not None and p.outcome != "ok":
                outcome += f" (turn {p.turn})"
            table.add_row(player.label, player.name, f"{p.score:g}", str(p.rank), outcome)
            stats = p.response
            times.add_row(
                player.label,
                str(stats.count),
                f"{stats.mean_ms:.3f}",
                f"{stats.median_ms:.3f}",
                f"{stats.p95_ms:.3f}",
                f"{stats.max_ms:.3f}",
            )
        else:
            dq = dq_by_seat.get(seat)
            outcome = f"[red]{dq.code}[/]: {dq.reason} (turn {dq.turn})" if dq else "?"
            table.add_row(player.label, player.name, "?", "?", outcome)
    console.print(table)
    if result is not None:
        console.print(times)
    facts: list[tuple[str, str]] = []
    if result is not None:
        r = result.result
        verdict = "draw" if r.draw or r.winner is None else f"{r.players[r.winner].name} wins"
        facts.append(("outcome", f"{verdict} ({r.summary})"))
        facts.append(("turns", str(r.turns)))
        facts.append(("duration", f"{r.duration_s:g} s"))
    else:
        facts.append(("status", _incomplete_note(reader)))
        facts.append(("turns so far", str(reader.turns)))
    facts += [
        ("seed", _seed_shown(header, result)),
        ("options", options_text(header.options)),
        ("sandbox", header.sandbox or "?"),
        ("match id", header.match_id or "?"),
        ("judge version", header.judge or "?"),
        ("format version", str(header.version)),
    ]
    extra = header.model_extra or {}
    for key in ("turn_deadline", "startup_allowance", "started"):
        if key in extra:
            facts.append((key.replace("_", " "), str(extra[key])))
    if "limits" in extra and isinstance(extra["limits"], dict):
        facts.append(("answer limits", ", ".join(f"{k}={v}" for k, v in extra["limits"].items())))
    compression = reader.compression
    if reader.parser.unterminated:
        compression += " (the stream stops inside a frame: cut off or damaged after its last line)"
    facts.append(("compression", compression))
    if result is not None:
        checksum = {None: "none", True: "ok", False: "MISMATCH: the file was altered"}
        facts.append(("checksum", checksum[result.checksum_ok]))
    width = max(len(k) for k, _ in facts)
    for key, value in facts:
        value = value.replace("\n", "\n" + " " * (width + 2))  # lines below, under the first
        console.print(f"[bold]{key:<{width}}[/]  {escape(value)}", markup=True, highlight=False)
    if result is not None and result.checksum_ok is False:
        sys.exit(EXIT_BAD_REPLAY)


def options_text(options: dict[str, object]) -> str:
    """``map=arena, turns=20``; a value of several lines (a tron grid) below, as it reads."""
    parts: list[str] = []
    blocks: list[tuple[str, str]] = []
    for key, value in options.items():
        if isinstance(value, str) and "\n" in value:
            blocks.append((key, value))
        else:
            parts.append(f"{key}={value if isinstance(value, str) else json.dumps(value)}")
    text = ", ".join(parts)
    for key, value in blocks:
        text += f"{', ' if text else ''}{key}:"
        text += "".join(f"\n{line}" for line in value.rstrip("\n").split("\n"))
    return text or "none"


class _Pacer:
    """Waits between turns on a terminal: a delay, or a key press in step mode.

    Step mode keeps the terminal in cbreak mode for the whole session: switching it per key
    (as click.getchar does) flushes keys typed while a turn is drawn, and echoes them.
    """

    def __init__(self, interactive: bool, speed: float, step: bool) -> None:
        self.interactive = interactive
        self.delay = 1.0 / speed if speed > 0 else 0.0
        self.step = step and interactive
        self._keys = ""

    @contextlib.contextmanager
    def keys_from_terminal(self) -> Iterator[None]:
        if not self.step:
            yield
            return
        import termios
        import tty

        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
        tty.setcbreak(fd, termios.TCSANOW)
        try:
            yield
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)

    def _next_key(self) -> str:
        while not self._keys:
            chunk = os.read(sys.stdin.fileno(), 64).decode("utf-8", "replace")
            if not chunk:
                return "q"  # the terminal went away
            if chunk.startswith("\x1b") and len(chunk) > 1:
                continue  # an arrow or function key: not a command
            self._keys = chunk
        key, self._keys = self._keys[0], self._keys[1:]
        return key

    def wait(self) -> bool:
        """False when the user quits."""
        if not self.interactive:
            return True
        if self.step:
            while True:
                key = self._next_key()
                if key in ("q", "Q", "\x03", "\x04", "\x1b"):
                    return False
                if key in ("c", "C"):
                    self.step = False
                    return True
                if key in (" ", "\r", "\n"):
                    return True
        if self.delay:
            time.sleep(self.delay)
        return True


def _play(
    file: Path, reader: ReplayReader, *, follow: bool, speed: float, step: bool, from_turn: int
) -> None:
    interactive = sys.stdout.isatty() and sys.stdin.isatty()
    console = Console(highlight=False)
    # Following, turns come at the match's own pace; no extra delay.
    pacer = _Pacer(interactive and not follow, speed, step)
    if step and interactive:
        console.print(f"[dim]{STEP_KEYS_HELP}[/]")
    with pacer.keys_from_terminal():
        quit_early = not _show(reader, console, pacer, follow=follow, from_turn=from_turn)
    if not quit_early and not reader.complete:
        console.print(f"[yellow]{_incomplete_note(reader)}[/]")


class RecordPrinter:
    """Draws replay records on a console as they come (the playback of `judge replay`, and
    `judge remote watch`'s live stream)."""

    def __init__(self, console: Console, from_turn: int = 0) -> None:
        self.console = console
        self.from_turn = from_turn
        self.renderer: Any = None

    def show(self, record: Record) -> bool:
        """Prints one record; True for a turn that was shown (the caller paces those)."""
        from replays.render import renderer_for

        console = self.console
        if isinstance(record, Header):
            self.renderer = renderer_for(record.header)
            console.print(self.renderer.title())
            return False
        renderer = self.renderer
        assert renderer is not None
        if isinstance(record, Turn):
            if record.number < self.from_turn:
                return False
            console.print(renderer.turn(record), soft_wrap=True)
            return True
        if isinstance(record, Disqualified):
            console.print(renderer.disqualified(record), soft_wrap=True)
        else:
            console.print(renderer.result(record.result))
            console.print(renderer.verdict(record.result))
            if record.checksum_ok is False:
                raise ReplayProblem(_checksum_message(record))
        return False


def _show(
    reader: ReplayReader, console: Console, pacer: _Pacer, *, follow: bool, from_turn: int
) -> bool:
    """Prints the records as they come; False when the user quits."""
    printer = RecordPrinter(console, from_turn)
    for record in _records(reader):
        if printer.show(record):
            if follow:
                sys.stdout.flush()
            if not pacer.wait():
                return False
    return True


COMMANDS = [replay]
