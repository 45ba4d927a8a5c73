# ruff: noqa: F811  (the fixtures of tests/test_server_browser.py, imported by name)
"""Ratings over time in Chromium: a fresh server's built-in bots play the ladder, and the
leaderboard and a bot's page draw μ−3σ after each rated match with its μ±3σ band."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server_helpers import PY_BOT, ServerProcess, running_server, upload, wait_for
from tests.test_server_browser import browser, page  # noqa: F401 (fixtures)

SHOTS = Path(os.environ.get("JUDGE_SCREENSHOTS", "/tmp/judge-screenshots"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    data = tmp_path_factory.mktemp("charts") / "data"
    with running_server(data, "--concurrency", "2", builtins=True) as running:
        client = running.client()
        # Every rps bot has had a few rated matches: a line of several points each.
        wait_for(
            lambda: all(r["games"] >= 3 for r in client.get("/api/leaderboard/rps").json()),
            timeout=240,
        )
        yield running


def polyline_points(page, selector: str) -> list[int]:  # type: ignore[no-untyped-def]
    return [
        len(points.split())
        for points in page.locator(f"{selector} polyline").evaluate_all(
            "els => els.map(e => e.getAttribute('points'))"
        )
    ]


def test_the_leaderboard_draws_ratings_over_time(page, server: ServerProcess) -> None:  # type: ignore[no-untyped-def]
    board = server.client().get("/api/leaderboard/rps").json()
    page.goto("/?game=rps")
    page.wait_for_selector("#rating-chart svg polyline")
    history = server.client().get("/api/leaderboard/rps/history").json()
    lines = polyline_points(page, "#rating-chart")
    bands = page.locator("#rating-chart polygon.jc-band").count()
    top = board[:8]
    # One line per bot of the top 8, a point per rated match (the ladder goes on: at most
    # the games after the page loaded); the leader's band only.
    assert len(lines) == len(top) and bands == 1
    assert all(n >= 3 for n in lines) and sum(lines) <= len(history)
    legend = page.locator("#rating-chart .jc-legend").inner_text()
    assert all(r["bot"] in legend for r in board[: len(top)])
    assert "μ−3σ" in page.locator("#rating-chart figcaption").inner_text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "leaderboard-ratings.png"), full_page=True)


def test_a_bot_page_draws_its_rating_over_time(page, server: ServerProcess) -> None:  # type: ignore[no-untyped-def]
    board = server.client().get("/api/leaderboard/rps").json()
    best = board[0]
    page.goto(f"/bots/{best['bot_id']}")
    page.wait_for_selector("#rating-chart svg polyline")
    history = server.client().get(f"/api/bots/{best['bot_id']}/ratings").json()
    [line] = polyline_points(page, "#rating-chart")
    assert 3 <= line <= len(history)
    # The band goes along the line's points and back: μ+3σ over them, μ−3σ under.
    [band] = page.locator("#rating-chart polygon.jc-band").evaluate_all(
        "els => els.map(e => e.getAttribute('points').split(' ').length)"
    )
    assert band == 2 * line
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "bot-rating.png"), full_page=True)


def test_a_bot_without_rated_matches_has_no_chart(page, server: ServerProcess) -> None:  # type: ignore[no-untyped-def]
    r = server.client(server.admin_token).post("/api/users", json={"name": "carol"})
    assert r.status_code == 201
    # Just uploaded: not checked yet, so not on the ladder and never rated.
    fresh = upload(server.client(r.json()["token"]), "fresh", "rps", "fresh.py", PY_BOT)
    assert server.client().get(f"/api/bots/{fresh['bot']['id']}/ratings").json() == []
    page.goto(f"/bots/{fresh['bot']['id']}")
    page.wait_for_selector("text=Recent matches")
    assert page.locator("#rating-chart").count() == 0
    assert page.locator("text=Rating").count() == 0
