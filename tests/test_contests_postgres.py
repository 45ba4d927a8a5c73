# ruff: noqa: F811  (the fixture of tests/test_server_storage.py, imported by name)
"""Contests on PostgreSQL: the contest part of the storage suite, and a contest's whole life
(tests/test_contests.py) on a real PostgreSQL server the test starts."""

from __future__ import annotations

from pathlib import Path

import trio

from judge.server.db import storage_for
from tests.postgres_helpers import PostgresServer
from tests.test_contests import check_contest_life, check_contest_storage, open_contest_api
from tests.test_server_storage import postgres  # noqa: F401 (fixture)


async def test_contest_storage_on_postgresql(postgres: PostgresServer) -> None:
    storage = storage_for(postgres.new_database())
    await storage.open()
    try:
        await check_contest_storage(storage)
    finally:
        await storage.close()


async def test_a_contest_on_postgresql(
    postgres: PostgresServer, tmp_path: Path, nursery: trio.Nursery
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    api = await open_contest_api(data, nursery, storage_for(postgres.new_database()))
    try:
        await check_contest_life(api, tmp_path)
    finally:
        await api.http.aclose()
        await api.service.close()
