# ruff: noqa: F811  (the fixtures of tests/test_server_browser.py, imported by name)
"""What a new user met in the server's pages (issue 31), in Chromium: a counting arena
tournament's page shows its boards (not ``[object HTMLHeadingElement]``) as the terminal
does, and no pairwise heat map that its boards contradict; the rating chart gives each of a
top 8 its own colour and lets a wide early band not squash the lines."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server_helpers import ServerProcess, running_server, wait_for
from tests.test_server_browser import browser, page  # noqa: F401 (fixtures)

SHOTS = Path(os.environ.get("JUDGE_SCREENSHOTS", "/tmp/judge-screenshots"))
CHART = Path(__file__).resolve().parent.parent / "replays" / "static" / "chart.js"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    data = tmp_path_factory.mktemp("new-user") / "data"
    with running_server(data, "--no-ladder", "--concurrency", "2") as running:
        yield running


def test_a_counting_tournament_page_shows_its_boards_as_the_terminal_does(
    page, server: ServerProcess
) -> None:  # type: ignore[no-untyped-def]
    client = server.client(server.admin_token)
    made = client.post(
        "/api/tournaments",
        json={
            "game": "counting",
            "bots": ["builtin:naive", "builtin:crab", "builtin:random"],
            "options": {"rounds": 40},
            "runs": 2,
        },
    )
    assert made.status_code in (201, 202), made.text
    tid = made.json()["id"]
    wait_for(
        lambda: client.get(f"/api/tournaments/{tid}").json()["status"] == "finished", timeout=240
    )
    standings = client.get(f"/api/tournaments/{tid}").json()["standings"]
    page.goto(f"/tournaments/{tid}")
    page.wait_for_selector("table.board")
    text = page.inner_text("main")
    assert "[object" not in text, text[:500]
    assert page.locator("table.board").count() == 3
    # A board's cells are what `judge tourney` prints: a run's average, "1.5/2" for wins.
    wins = next(b for b in standings["boards"] if b["name"] == "wins")
    cells = page.locator("table.board").nth(1).locator("td.num").all_inner_texts()
    assert cells == [row["shown"] for row in wins["rows"]] and all("/2" in c for c in cells)
    assert "shown /" not in text and "average of 2 runs" in text
    # Arena matches rank all the bots at once: no pairwise heat map to contradict the boards.
    assert page.locator("#cross-table").count() == 0
    assert page.locator("#no-cross-table").count() == 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "counting-tournament.png"), full_page=True)


CHART_PAGE = """
<!doctype html><meta charset="utf-8"><body><div id="out"></div>
<script>%s</script>
<script>
  // Eight bots rated between 20 and 30, the leader's band +-75 wide at its first match.
  const series = [...Array(8).keys()].map((i) => ({
    name: "bot" + i, index: i,
    points: [0, 1, 2, 3].map((t) => [t, 20 + i + t]),
    band: i === 0 ? [0, 1, 2, 3].map((t) => [t, -50 + 10 * t, 100 - 10 * t]) : [],
  }));
  document.getElementById("out").append(JudgeChart.lineChart({series, yLabel: "μ−3σ"}));
</script>
"""


def test_the_rating_chart_colours_a_top_8_apart_and_a_wide_band_does_not_squash_it(
    page,
) -> None:  # type: ignore[no-untyped-def]
    page.set_content(CHART_PAGE % CHART.read_text())
    strokes = page.locator("#out polyline").evaluate_all(
        "els => els.map(e => e.getAttribute('stroke'))"
    )
    assert len(strokes) == 8 and len(set(strokes)) == 8, strokes
    # The lines span most of the plot's height, not a sliver under a band of -50..100.
    spread = page.evaluate(
        """() => {
        const ys = [...document.querySelectorAll('#out polyline')].flatMap(
            (l) => l.getAttribute('points').split(' ').map((p) => Number(p.split(',')[1])));
        const plot = document.querySelector('#out svg').viewBox.baseVal.height;
        return (Math.max(...ys) - Math.min(...ys)) / plot;
    }"""
    )
    assert spread > 0.5, spread
    assert page.locator("#out polygon.jc-band").count() == 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "rating-chart-top8.png"), full_page=True)
