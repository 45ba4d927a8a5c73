"""What a crashed Python bot's stderr says: its exception and the line that raised it."""

from __future__ import annotations

import re

FRAME = re.compile(r'^\s+File "(?P<file>[^"]+)", line (?P<line>\d+)')
LIBRARY = re.compile(r"/(site-packages|dist-packages|lib/python\d[.\d]*)/|^<frozen ")
SHOWN = 200  # characters of the exception's message kept


def last_traceback(stderr: str) -> list[str]:
    """The lines of the last Python traceback in ``stderr``, from its ``File`` lines to its
    exception line ([] when there is none)."""
    lines = stderr.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent")]
    if not starts:
        return []
    body = lines[starts[-1] + 1 :]
    for end, line in enumerate(body):
        if line and not line[0].isspace():
            return body[: end + 1]
    return []


def python_exception(stderr: str) -> str:
    """``ZeroDivisionError: division by zero (line 4 of bot.py)``: the last traceback's
    exception and the innermost line of the bot's own code ('' without a traceback)."""
    traceback = last_traceback(stderr)
    if not traceback:
        return ""
    frames = [m for line in traceback if (m := FRAME.match(line))]
    own = [m for m in frames if not LIBRARY.search(m["file"])] or frames
    error = traceback[-1].strip()[:SHOWN]
    if not own:
        return error
    name = own[-1]["file"].rsplit("/", 1)[-1]
    return f"{error} (line {own[-1]['line']} of {name})"
