"""The replay format: one header line, one line per turn, events and the result.

Lines starting with ``#`` are the judge's metadata (JSON after a keyword);
every other line is a game's turn line, byte-for-byte what the game produced.
"""

from replays.format import FORMAT_VERSION, ReplayFormatError, event_line, header_line
from replays.writer import ReplayWriter

__all__ = ["FORMAT_VERSION", "ReplayFormatError", "ReplayWriter", "event_line", "header_line"]
