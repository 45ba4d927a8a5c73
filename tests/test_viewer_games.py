"""Every replay that `judge replay --verify` accepts renders in the HTML viewer: every game,
every seat count and option that changes the turn lines (counting's arena: 3+ seats or
runs > 1), disqualified seats included; and the score chart under the board."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from judge.models import BotSpec, MatchSpec
from judge.runner import run_match
from replays.export import write_html
from replays.reader import ReplayReader, Turn
from replays.verify import verify_file
from tests.conftest import builtin

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
pytestmark = pytest.mark.skipif(shutil.which(CHROMIUM) is None, reason="needs Debian's chromium")

# A counting arena bot that answers 50 to every opponent for two rounds, then crashes.
QUITTER = """\
import sys
for turn in range(2):
    lines = []
    while (line := sys.stdin.readline().strip()) != ".":
        lines.append(line)
    games = max(1, sum(1 for line in lines if line.startswith("O ")))
    print(",".join(["50"] * games) + "\\n.", flush=True)
sys.exit("quitting on purpose")
"""

CASES: dict[str, tuple[str, list[str], dict[str, Any]]] = {
    "rps": ("rps", ["random", "predictor"], {"turns": 50}),
    "roshambolo-2": ("roshambolo", ["random", "counter"], {"race_to": 5}),
    "roshambolo-3-rounds-2": (
        "roshambolo",
        ["random", "counter", "rock"],
        {"race_to": 3, "rounds": 2},
    ),
    "liarsdice-2": ("liarsdice", ["computer", "robot"], {}),
    "liarsdice-6": ("liarsdice", ["computer"] * 6, {}),
    "counting-2": ("counting", ["random", "primitive_looker"], {"rounds": 30}),
    "counting-4": ("counting", ["naive", "crab", "tit_for_tat", "grim_trigger"], {"rounds": 30}),
    "counting-2-runs-3": ("counting", ["random", "naive"], {"rounds": 20, "runs": 3}),
    "counting-4-runs-2-dq": (
        "counting",
        ["naive", "QUITTER", "random", "crab"],
        {"rounds": 12, "runs": 2},
    ),
    "counting-2-dq": ("counting", ["naive", "QUITTER"], {"rounds": 12}),
}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


def record(tmp_path: Path, case: str) -> Path:
    game, names, options = CASES[case]
    quitter = tmp_path / "quitter.py"
    quitter.write_text(QUITTER)
    bots = [
        BotSpec(name="quitter", argv=(sys.executable, str(quitter)))
        if name == "QUITTER"
        else builtin(game, name)
        for name in names
    ]
    replay = tmp_path / f"{case}.replay"
    spec = MatchSpec(game=game, bots=bots, seed=2, options=options)
    trio.run(lambda: run_match(spec, replay_path=replay))
    return replay


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_turn_of_every_verified_replay_renders(
    browser: Any, tmp_path: Path, case: str
) -> None:
    replay = record(tmp_path, case)
    report = verify_file(replay)
    assert report.ok, report  # the premise: `judge replay --verify` accepts it
    lines = [r.line for r in ReplayReader(replay) if isinstance(r, Turn)]
    page_file = replay.with_suffix(".html")
    write_html(ReplayReader(replay), page_file, title=case)
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.goto(page_file.as_uri())
    page.wait_for_selector("#replay[data-status=complete]")
    # Draw every turn for real (the viewer's own draw), collecting what the board says.
    bad = page.evaluate("""() => {
        const v = window.replayViewer, bad = [];
        for (let t = 0; t <= v.turns; t++) {
            v.show(t); v.draw();
            const text = v.boardEl.textContent;
            if (/cannot be read|Cannot show/.test(text)) bad.push(t + ": " + text.slice(0, 200));
        }
        return bad;
    }""")
    assert bad == [], bad[:3]
    seats = len(CASES[case][1])
    page.click("button[data-action=last]")
    page.wait_for_function(f"document.getElementById('replay').dataset.turn === '{len(lines)}'")
    # Every seat is drawn, and the chart has one line per seat over every turn.
    drawn = page.eval_on_selector_all(
        ".jr-board [data-seat]", "els => els.map(e => e.dataset.seat)"
    )
    assert sorted(set(map(int, drawn))) == list(range(seats)) or CASES[case][0] == "roshambolo"
    assert page.eval_on_selector_all(".jr-chart polyline", "els => els.length") == seats
    assert page.get_attribute(".jr-chart", "data-points") == str(len(lines))
    if CASES[case][0] == "counting":
        totals = lines[-1].split()[:seats]
        shown = [page.inner_text(f".jr-board [data-score='{s}']") for s in range(seats)]
        assert shown == totals
    page.screenshot(path=str(tmp_path / f"{case}.png"), full_page=True)
    assert problems == []
    page.close()


def test_the_chart_moves_with_the_turn_and_a_click_on_it_jumps(
    browser: Any, tmp_path: Path
) -> None:
    replay = record(tmp_path, "counting-4")
    page_file = replay.with_suffix(".html")
    write_html(ReplayReader(replay), page_file, title="arena")
    page = browser.new_page()
    page.goto(page_file.as_uri())
    page.wait_for_selector("#replay[data-status=complete]")
    page.click("button[data-action=last]")
    # (the cursor moves when the page has drawn the last turn, not at the click)
    page.wait_for_function("document.getElementById('replay').dataset.turn !== '0'")
    end_x = float(page.get_attribute(".jc-cursor", "x1") or 0)
    page.click("button[data-action=first]")
    page.wait_for_function("document.getElementById('replay').dataset.turn === '0'")
    start_x = float(page.get_attribute(".jc-cursor", "x1") or 0)
    assert start_x < end_x
    box = page.locator(".jr-chart svg").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] * 0.55, box["y"] + box["height"] / 2)
    page.wait_for_function("Number(document.getElementById('replay').dataset.turn) > 5")
    assert 10 <= int(page.get_attribute("#replay", "data-turn") or 0) <= 20
    page.close()
