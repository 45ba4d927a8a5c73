"""The web pages in Debian's Chromium, driven by Playwright (sync API; the server is a
subprocess, so no event loop is shared): leaderboard, upload form, a live match, its replay."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server_helpers import (
    JS_BOT,
    PY_BOT,
    SLOW_PY_BOT,
    ServerProcess,
    running_server,
    upload,
    wait_checked,
    wait_match,
)

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium package")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    data = tmp_path_factory.mktemp("browser") / "data"
    with running_server(data, "--no-ladder", "--concurrency", "2") as running:
        yield running


@pytest.fixture(scope="module")
def token(server: ServerProcess) -> str:
    r = server.client(server.admin_token).post("/api/users", json={"name": "alice"})
    assert r.status_code == 201
    token = str(r.json()["token"])
    client = server.client(token)
    bots = [("pybot", "bot.py", PY_BOT), ("slowbot", "slow.py", SLOW_PY_BOT)]
    for name, filename, source in bots:
        up = upload(client, name, "rps", filename, source)
        assert wait_checked(client, up["bot"]["id"], 1)["state"] == "ready"
    return token


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, server: ServerProcess):  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=server.url)
    page = context.new_page()
    problems: list[str] = []
    page.on(
        "console",
        lambda msg: (
            problems.append(f"console {msg.type}: {msg.text}")
            if msg.type in ("error", "warning")
            else None
        ),
    )
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on(
        "requestfailed",
        lambda req: (
            problems.append(f"request failed: {req.url}")
            # Aborted: the page moved on before the answer came (not a failure).
            if "/live" not in req.url and req.failure != "net::ERR_ABORTED"
            else None
        ),
    )
    page.problems = problems
    yield page
    context.close()
    assert problems == [], problems


def sign_in(page, token: str) -> None:  # type: ignore[no-untyped-def]
    page.goto("/account")
    page.fill("#token", token)
    page.click("form button[type=submit]")
    page.wait_for_selector("text=Signed in as alice")


def test_leaderboard_lists_the_checked_bots(page, token: str) -> None:  # type: ignore[no-untyped-def]
    page.goto("/")
    page.wait_for_selector("#leaderboard tbody tr")
    names = page.locator("#leaderboard tbody tr td:nth-child(2)").all_inner_texts()
    assert sorted(names) == ["pybot", "slowbot"]
    assert page.locator("#game").input_value() == "rps"
    page.click("#leaderboard >> text=pybot")
    page.wait_for_selector("#versions tbody tr")
    assert "ready" in page.locator("#versions").inner_text()


def test_upload_through_the_form(page, token: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bot = tmp_path / "formbot.js"
    bot.write_text(JS_BOT)
    page.goto("/upload")
    page.fill("#token", token)
    page.fill("#name", "formbot")
    page.select_option("#game", "rps")
    page.set_input_files("#file", str(bot))
    page.click("#submit")
    page.wait_for_selector("#check-state .ready", timeout=60_000)
    assert "passed its check" in page.locator("#check-message").inner_text()
    page.goto("/bots")
    page.wait_for_selector("#bots >> text=formbot")


def test_a_refused_upload_shows_the_reason(
    page,
    token: str,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    page.goto("/upload")
    page.fill("#token", token)
    bad = tmp_path / "notes.txt"
    bad.write_text("not a program")
    page.fill("#name", "notabot")
    page.set_input_files("#file", str(bad))
    page.click("#submit")
    page.wait_for_selector(".error-box")
    assert "neither an executable" in page.locator(".error-box").inner_text()
    # Chromium logs every refused fetch; this one (400) is the point of the test.
    refused = [p for p in page.problems if "status of 400" in p]
    assert len(refused) == 1
    page.problems.remove(refused[0])


def test_watch_a_live_match_then_step_through_its_replay(  # type: ignore[no-untyped-def]
    page,
    server: ServerProcess,
    token: str,
) -> None:
    sign_in(page, token)
    client = server.client(token)
    match = client.post(
        "/api/matches",
        json={"game": "rps", "bots": ["slowbot", "pybot"], "options": {"turns": 1000}},
    ).json()
    page.goto(f"/matches/{match['id']}")
    replay = page.locator("#replay")
    # Live: the viewer shows turns arriving while the server still says 'running'.
    page.wait_for_function(
        "() => window.replayViewer && window.replayViewer.turns >= 5", timeout=60_000
    )
    live_turns = page.evaluate("() => window.replayViewer.turns")
    assert client.get(f"/api/matches/{match['id']}").json()["status"] == "running"
    assert replay.get_attribute("data-status") == "live"
    assert 5 <= live_turns < 1000
    # The end: complete, with the result.
    page.wait_for_function("() => window.replayViewer.result !== null", timeout=90_000)
    wait_match(client, match["id"])
    page.wait_for_selector("#replay[data-status=complete]")
    page.wait_for_selector("#state .finished")
    assert page.evaluate("() => window.replayViewer.turns") == 1000
    assert "pybot@1 wins" in replay.inner_text()
    # Step through it with the slider and the buttons.
    page.click("#replay button[data-action=first]")
    page.wait_for_selector("#replay[data-turn='0']")
    page.click("#replay button[data-action=next]")
    page.click("#replay button[data-action=next]")
    page.wait_for_selector("#replay[data-turn='2']")
    assert re.search(r"turn 2 / 1000", replay.inner_text())
    slider = page.locator("#replay input[type=range]")
    slider.fill("200")
    page.wait_for_selector("#replay[data-turn='200']")
    line = page.locator("#replay .jr-line").inner_text()
    replay_text = client.get(f"/api/matches/{match['id']}/replay").text
    turn_lines = [ln for ln in replay_text.splitlines() if not ln.startswith("#")]
    assert line == turn_lines[199]
    page.click("#replay button[data-action=prev]")
    page.wait_for_selector("#replay[data-turn='199']")


def test_match_list_and_finished_match_page(
    page,
    server: ServerProcess,  # type: ignore[no-untyped-def]
    token: str,
) -> None:
    client = server.client(token)
    match = client.post(
        "/api/matches",
        json={"game": "rps", "bots": ["pybot", "builtin:rock"], "options": {"turns": 30}},
    ).json()
    wait_match(client, match["id"])
    page.goto("/matches")
    page.wait_for_selector(f"#matches >> text={match['id']}")
    page.click(f"#matches >> text={match['id']}")
    page.wait_for_selector("#replay[data-status=complete]")
    assert page.evaluate("() => window.replayViewer.turns") == 30
    page.goto("/docs")
    page.locator("#endpoints").get_by_text("/api/matches/{match_id}/live", exact=True).wait_for()


def test_tournament_pages(page, server: ServerProcess, token: str) -> None:  # type: ignore[no-untyped-def]
    sign_in(page, token)
    page.goto("/tournaments")
    page.select_option("#game", "rps")
    page.fill("#t-bots", "pybot, slowbot, builtin:rock")
    page.click("#new-tournament button[type=submit]")
    page.wait_for_url("**/tournaments/*")
    page.wait_for_selector("#standings tbody tr >> nth=2", timeout=120_000)
    page.wait_for_selector("text=3 of 3 matches played", timeout=120_000)
    names = page.locator("#standings tbody td:nth-child(2)").all_inner_texts()
    assert sorted(names) == ["builtin:rock", "pybot@1", "slowbot@1"]
    # The cross-table: every pair once each way, points out of games, the diagonal empty.
    page.wait_for_selector("#cross-table td[data-value]")
    cells = page.locator("#cross-table tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.querySelectorAll('td')].map(td => td.dataset.value ?? null))"
    )
    assert len(cells) == 3 and all(len(row) == 3 for row in cells)
    for i in range(3):
        assert cells[i][i] is None
        for j in range(3):
            if i != j:
                assert float(cells[i][j]) + float(cells[j][i]) == 1.0, cells
    rows = page.locator("#cross-table tbody th").all_inner_texts()
    assert rows == names  # in standings order
    page.screenshot(path="/tmp/judge-screenshots/tournament.png", full_page=True)
