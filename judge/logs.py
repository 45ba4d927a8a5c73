"""Logging: structlog lines, readable on a terminal and JSON otherwise, on stderr; with
``configure(fmt="json")`` JSON lines on stdout (``judge serve --log-format json``, for a log
collector). A line logged with an exception carries its type, message and traceback.

structlog is imported when the first line at or above the configured level is logged, not
before: its import (asyncio and its stdlib integration, ~60 ms) would be a sixth of a
one-turn ``judge match``, which logs nothing at the default level. The judge's modules log
through ``get_logger(name)`` and add context to every line with ``bound(key=value)``.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator, MutableMapping
from contextvars import ContextVar
from typing import Any

LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40, "critical": 50}

FORMATS = ("auto", "console", "json")

_level: int | None = None  # set by configure(); None: structlog's defaults (every line)
_format = "auto"  # auto: console on a terminal, JSON otherwise (both on stderr)
_applied: tuple[int, str] | None = None  # the level and format structlog is configured with
_import_lock = threading.Lock()
_context: ContextVar[dict[str, Any] | None] = ContextVar("judge_log_context", default=None)


class _CurrentStream:
    """Writes to ``sys.stderr`` (or stdout) as it is at each line: a judge embedded in a test
    runner or another program may swap (and close) the stream it had when logging was set up."""

    def __init__(self, name: str) -> None:
        self.name = name

    def write(self, text: str) -> int:
        written: int = getattr(sys, self.name).write(text)
        return written

    def flush(self) -> None:
        getattr(sys, self.name).flush()


def configure(level: str = "warning", fmt: str | None = None) -> None:
    """Lines below ``level`` are dropped (without importing structlog); ``fmt`` is one of
    FORMATS (None: as it was)."""
    global _level
    _level = LEVELS[level.lower()]
    if fmt is not None:
        set_format(fmt)
    elif "structlog" in sys.modules:
        _structlog()


def set_format(fmt: str) -> None:
    """``auto``, ``console`` or ``json`` (JSON lines on stdout), at the configured level."""
    global _format
    if fmt not in FORMATS:
        raise ValueError(f"unknown log format {fmt!r} (choose from {', '.join(FORMATS)})")
    _format = fmt
    if "structlog" in sys.modules:
        _structlog()


def _exception_fields(
    logger: Any, method: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """An exception's type and message as fields of their own (the traceback follows in
    ``exception``), so a log search for "disk full" or "OperationalError" finds the line."""
    exc_info = event.get("exc_info")
    if exc_info is True:
        exc_info = sys.exc_info()
    elif isinstance(exc_info, BaseException):
        exc_info = (type(exc_info), exc_info, exc_info.__traceback__)
    if isinstance(exc_info, tuple) and exc_info[0] is not None:
        event.setdefault("error_type", exc_info[0].__name__)
        event.setdefault("error", str(exc_info[1]))
        event["exc_info"] = exc_info
    elif exc_info is not None:
        event.pop("exc_info")
    return event


def _import_structlog_without_rich() -> None:
    """structlog imports rich's traceback and pretty-printing modules when rich is installed
    (~0.3 s), only to draw exceptions in colour. The judge logs plain tracebacks, so rich is
    hidden while structlog is imported (and put back: the commands print rich tables)."""
    rich = sys.modules.get("rich")
    sys.modules["rich"] = None  # type: ignore[assignment]  # None makes `import rich` fail
    try:
        import structlog  # noqa: F401
    finally:
        if rich is None:
            del sys.modules["rich"]
        else:
            sys.modules["rich"] = rich


def _structlog() -> Any:
    """structlog, imported and configured (at the configured level) on first use."""
    global _applied
    with _import_lock:
        if "structlog" not in sys.modules:
            _import_structlog_without_rich()
        import structlog

        if _level is not None and _applied != (_level, _format):
            console = _format == "console" or (_format == "auto" and sys.stderr.isatty())
            processors: list[structlog.typing.Processor] = [
                structlog.contextvars.merge_contextvars,
                structlog.processors.add_log_level,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
                _exception_fields,
            ]
            if console:
                # Draws exc_info as a plain traceback under the line (rich is hidden).
                processors.append(
                    structlog.dev.ConsoleRenderer(
                        colors=sys.stderr.isatty(),
                        exception_formatter=structlog.dev.plain_traceback,
                    )
                )
            else:
                # exc_info becomes "exception": the formatted traceback.
                processors += [
                    structlog.processors.format_exc_info,
                    structlog.processors.JSONRenderer(),
                ]
            stream = _CurrentStream("stdout" if _format == "json" else "stderr")
            structlog.configure(
                processors=processors,
                wrapper_class=structlog.make_filtering_bound_logger(_level),
                logger_factory=structlog.PrintLoggerFactory(file=stream),  # type: ignore[arg-type]
                cache_logger_on_first_use=True,
            )
            _applied = (_level, _format)
        return structlog


class Logger:
    """A structlog logger that imports structlog only for a line that will be written."""

    __slots__ = ("_real", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._real: Any = None

    def _log(self, method: str, level: int, event: str, values: dict[str, Any]) -> None:
        if _level is not None and level < _level:
            return
        if self._real is None:
            self._real = _structlog().get_logger(self.name)
        context = _context.get()
        getattr(self._real, method)(event, **({**context, **values} if context else values))

    def debug(self, event: str, **values: Any) -> None:
        self._log("debug", 10, event, values)

    def info(self, event: str, **values: Any) -> None:
        self._log("info", 20, event, values)

    def warning(self, event: str, **values: Any) -> None:
        self._log("warning", 30, event, values)

    def error(self, event: str, **values: Any) -> None:
        self._log("error", 40, event, values)

    def exception(self, event: str, **values: Any) -> None:
        """An error line with the exception being handled."""
        self._log("exception", 40, event, values)


def get_logger(name: str) -> Logger:
    return Logger(name)


@contextlib.contextmanager
def bound(**values: Any) -> Iterator[None]:
    """Every line logged inside (in this context: task, thread) carries these values."""
    token = _context.set({**(_context.get() or {}), **values})
    try:
        yield
    finally:
        _context.reset(token)
