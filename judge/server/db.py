"""Storage chosen by URL: ``sqlite:///relative.db``, ``sqlite:////absolute.db``, or
``postgresql://user:password@host:port/database`` (libpq's URL, ``postgres://`` too)."""

from __future__ import annotations

from pathlib import Path

from judge.server.storage import Storage

SCHEMES = ("sqlite", "postgresql")


class BadDatabaseURL(ValueError):
    """The URL names no backend this judge has, or is malformed; the message says which."""


def storage_for(url: str) -> Storage:
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise BadDatabaseURL(f"{url!r} is not a database URL (e.g. sqlite:///judge.sqlite3)")
    if scheme == "sqlite":
        from judge.server.sqlite import SQLiteStorage

        if not rest.startswith("/") or rest == "/":
            raise BadDatabaseURL(
                f"{url!r}: a SQLite URL is sqlite:///relative/path or sqlite:////absolute/path"
            )
        return SQLiteStorage(Path(rest[1:]))
    if scheme in ("postgresql", "postgres"):
        from judge.server.postgres import PostgresStorage

        return PostgresStorage(url)
    raise BadDatabaseURL(
        f"{url!r}: no storage backend for {scheme!r} (this judge has: {', '.join(SCHEMES)})"
    )
