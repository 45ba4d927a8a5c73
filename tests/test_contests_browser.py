# ruff: noqa: F811  (the fixtures of tests/test_server_browser.py, imported by name)
"""A contest's pages in Chromium on a real `judge serve`: a contest that closes 60 s after it
is made (the server's own clock), three entrants; the countdown, the board and chart, an
entrant's page, then the final round's results, heat map and replays."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.server_helpers import PY_BOT, ServerProcess, running_server, wait_for
from tests.test_contests import FIXED_BOT
from tests.test_server_browser import browser, page  # noqa: F401 (fixtures)

SHOTS = Path(os.environ.get("JUDGE_SCREENSHOTS", "/tmp/judge-screenshots"))
WINDOW = 60.0  # seconds the contest is open: room for three uploads and a page on a busy machine


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    data = tmp_path_factory.mktemp("contest") / "data"
    with running_server(data, "--concurrency", "2") as running:
        yield running


@pytest.fixture(scope="module")
def contest(server: ServerProcess) -> dict[str, Any]:
    admin = server.client(server.admin_token)
    now = time.time()
    spec = {
        "name": "spring",
        "title": "Spring bot challenge",
        "game": "rps",
        "options": {"turns": 40},
        "opens": iso(now - 1),
        "closes": iso(now + WINDOW),
        "rules": "## How to enter\n\nSubmit a bot that plays **rps**; five a day.\n\n"
        "| prize | for |\n|---|---|\n| glory | first |\n",
        "final": {"games_per_pair": 2},
    }
    r = admin.post("/api/contests", json=spec)
    assert r.status_code == 201, r.text
    tokens = {}
    sources = {
        "alice": PY_BOT,
        "bob": FIXED_BOT.format(move="R"),
        "carol": FIXED_BOT.format(move="P"),
    }
    for user, source in sources.items():
        tokens[user] = admin.post("/api/users", json={"name": user}).json()["token"]
        r = server.client(tokens[user]).post(
            "/api/contests/spring/versions", files={"file": ("bot.py", source.encode())}
        )
        assert r.status_code == 202, r.text
    return {"tokens": tokens, "closes": now + WINDOW}


def test_contest_pages(page, server: ServerProcess, contest: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.goto("/contests")
    page.wait_for_selector("#contests a")
    assert "Spring bot challenge" in page.locator("#contests").inner_text()

    page.goto("/contests/spring")
    page.wait_for_function(
        "(document.querySelector('#countdown')?.textContent || '').includes('closes in')"
    )
    # The rules: Markdown as HTML (a heading, a table).
    assert page.locator("#rules h2").inner_text() == "How to enter"
    assert page.locator("#rules table td").first.inner_text() == "glory"
    # The board: the three entries once their checks pass.
    page.wait_for_function(
        "document.querySelectorAll('#board-table tbody tr').length === 3", timeout=60_000
    )
    assert "null" not in page.locator("#contest-board").inner_text()
    board = page.locator("#board-table").inner_text()
    assert all(user in board for user in ("alice", "bob", "carol"))
    first = page.locator("#countdown").inner_text()
    page.wait_for_function(f"document.querySelector('#countdown').textContent !== {first!r}")
    page.screenshot(path=str(SHOTS / "contest-open.png"), full_page=True)

    # An entrant's own page: the check's result, what is left today.
    page.evaluate(f"localStorage.setItem('judge-token', {contest['tokens']['carol']!r})")
    page.goto("/contests/spring/mine")
    page.wait_for_selector("#submissions tbody tr")
    assert "4 of 5 submissions left today" in page.locator("#left-today").inner_text()
    page.wait_for_function(
        "(document.querySelector('#submissions')?.textContent || '').includes('passed its check')"
    )
    assert "counts" in page.locator("#submissions").inner_text()
    page.screenshot(path=str(SHOTS / "contest-mine.png"), full_page=True)

    # After closes: the final round, then the results.
    client = server.client()
    wait_for(
        lambda: client.get("/api/contests/spring").json()["phase"] in ("finished", "error"),
        timeout=WINDOW + 240,
    )
    assert client.get("/api/contests/spring").json()["phase"] == "finished"
    page.goto("/contests/spring")
    page.wait_for_selector("#results-table tbody tr")
    assert page.locator("#results-table tbody tr").count() == 3
    assert "finished" in page.locator("#countdown").inner_text()
    assert page.locator("#final-progress").inner_text().startswith("6 of 6 matches played")
    # The heat map: a 3x3 table, the diagonal empty.
    assert page.locator("#cross-table tbody tr").count() == 3
    assert page.locator("#cross-table tbody td").count() == 9
    assert "95 % interval" in page.locator("#results-table thead").inner_text()
    page.screenshot(path=str(SHOTS / "contest-results.png"), full_page=True)
    # Every replay one click away.
    links = page.locator("#matches tbody a[href^='/matches/']")
    assert links.count() == 6
    links.first.click()
    page.wait_for_url("**/matches/*")
    page.wait_for_selector(".jr-viewer, #viewer, main")
