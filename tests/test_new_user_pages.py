"""What a new user met in the pages (issue 31), in Chromium: the tron viewer's board fills its
panel and its chart tells the riders apart; the roshambolo viewer names the shapes that won.
Screenshots in /tmp/judge-screenshots/."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from judge.models import MatchSpec
from judge.runner import run_match
from replays.export import write_html
from tests.conftest import builtin

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
SHOTS = Path("/tmp/judge-screenshots")

pytestmark = pytest.mark.skipif(shutil.which(CHROMIUM) is None, reason="needs Debian's chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


def viewer(browser: Any, tmp_path: Path, game: str, bots: list[str], options: dict) -> Any:
    replay = tmp_path / f"{game}.replay"
    spec = MatchSpec(game=game, bots=[builtin(game, b) for b in bots], seed=4, options=options)
    trio.run(lambda: run_match(spec, replay_path=replay))
    page_file = replay.with_suffix(".html")
    from replays.reader import ReplayReader

    write_html(ReplayReader(replay), page_file, title=game)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(page_file.as_uri())
    page.wait_for_selector("#replay[data-status=complete]")
    return page


def test_the_tron_board_fills_its_panel_and_the_chart_tells_the_riders_apart(
    browser: Any, tmp_path: Path
) -> None:
    page = viewer(browser, tmp_path, "tron", ["flood", "random"], {"map": "pillars"})
    page.click("button[data-action=last]")
    board = page.eval_on_selector(".jr-tron", "e => e.getBoundingClientRect().width")
    panel = page.eval_on_selector(".jr-board", "e => e.getBoundingClientRect().width")
    assert board >= 0.45 * panel, (board, panel)  # was ~170 px of 890
    left = page.eval_on_selector(".jr-tron", "e => e.getBoundingClientRect().left")
    panel_left = page.eval_on_selector(".jr-board", "e => e.getBoundingClientRect().left")
    assert left - panel_left > 0.1 * (panel - board), "the board is centred, not at the left"
    lines = page.eval_on_selector_all(
        ".jr-chart polyline", "els => els.map(e => e.getAttribute('points'))"
    )
    assert len(lines) == 2 and lines[0] != lines[1], "two identical lines tell nothing"
    assert "nearer" in page.inner_text("#replay")
    page.screenshot(path=str(SHOTS / "tron-viewer.png"), full_page=True)
    page.close()


def test_the_roshambolo_viewer_names_the_shapes_that_won(browser: Any, tmp_path: Path) -> None:
    page = viewer(browser, tmp_path, "roshambolo", ["rock", "counter"], {"race_to": 3})
    page.click("button[data-action=last]")
    note = page.inner_text(".jr-note[data-how=beats]")
    assert re.search(r"(rock|paper|scissors) beats (rock|paper|scissors)", note), note
    assert "shape beats shape" not in note
    page.screenshot(path=str(SHOTS / "roshambolo-viewer.png"), full_page=True)
    page.close()
