"""Account names are one per person: compared by key, reserved in every spelling, and a
database made before the keys is brought to them (migration 6)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from judge.server.names import is_reserved, name_key
from judge.server.sqlite import MIGRATIONS, SQLiteStorage
from judge.server.storage import Conflict


def test_one_key_for_every_spelling() -> None:
    assert {name_key(n) for n in ("alice", "Alice", "ALICE", "a.lice", "alice-", "ａｌｉｃｅ")} == {
        "alice"
    }
    assert name_key("alice") != name_key("alicia")
    for name in (
        "builtin",
        "Builtin",
        "builtin.",
        "builtin-",
        "BUILT_IN",
        "ｂｕｉｌｔｉｎ",
        "ADMIN",
    ):
        assert is_reserved(name), name
    assert not is_reserved("builder")


def database_before_keys(path: Path, names: list[str]) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    for number, _, script in MIGRATIONS:
        if number <= 4:
            for statement in script.split(";"):
                if statement.strip():
                    conn.execute(statement)
    conn.execute("INSERT INTO meta VALUES ('schema', '4')")
    for name in names:
        conn.execute("INSERT INTO users (name, is_admin, created) VALUES (?, 0, 1.0)", (name,))
    conn.close()


async def test_names_taken_before_the_keys_keep_every_spelling_taken(tmp_path: Path) -> None:
    path = tmp_path / "judge.sqlite3"
    database_before_keys(path, ["Alice", "alice", "bob"])
    storage = SQLiteStorage(path)
    await storage.open()
    try:
        assert 6 in storage.applied_migrations
        assert [u.name for u in await storage.list_users()] == ["Alice", "alice", "bob"]
        for spelling in ("ALICE", "a-lice", "Bob", "alice"):
            with pytest.raises(Conflict, match="taken"):
                await storage.create_user(spelling)
        await storage.create_user("carol", created_from="192.0.2.1")
        assert await storage.count_registrations("192.0.2.1", since=0) == 1
    finally:
        await storage.close()
