"""The judge: runs matches between untrusted bot processes."""

import sys

__version__ = "0.1.0"


def import_structlog_without_rich() -> None:
    """structlog imports rich's traceback and pretty-printing modules when rich is installed
    (~0.3 s, the largest part of a one-turn `judge match`), only to draw exceptions in colour.
    The judge logs plain tracebacks, so structlog is imported once with rich hidden from it;
    rich stays importable for the tables the commands print. The CLI calls this before it
    loads a command."""
    if "structlog" in sys.modules or "rich" in sys.modules:
        return
    # A None entry makes `import rich` raise ImportError.
    sys.modules["rich"] = None  # type: ignore[assignment]
    try:
        import structlog  # noqa: F401
    finally:
        del sys.modules["rich"]
