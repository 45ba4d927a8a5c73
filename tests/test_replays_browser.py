"""The HTML replay viewer in headless Chromium: exported pages of every game, live feeding
over Server-Sent Events, truncated replays, and names that try to inject HTML."""

from __future__ import annotations

import http.server
import json
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from games import all_games
from replays.export import asset_file, viewer_page, write_html
from replays.reader import ReplayReader, Turn
from replays.writer import ReplayWriter
from tests.replay_matches import record_sync

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.skipif(shutil.which(CHROMIUM) is None, reason="needs Debian's chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


class Page:
    """A page that records every page error, console error and dialog."""

    def __init__(self, browser: Any) -> None:
        self.page = browser.new_page()
        self.problems: list[str] = []
        self.page.on("pageerror", lambda exc: self.problems.append(f"pageerror: {exc}"))
        self.page.on(
            "console",
            lambda msg: msg.type == "error" and self.problems.append(f"console: {msg.text}"),
        )
        self.page.on(
            "dialog",
            lambda dialog: (self.problems.append(f"dialog: {dialog.message}"), dialog.dismiss()),
        )

    def turn(self) -> int:
        return int(self.page.get_attribute("#replay", "data-turn") or "-1")

    def status(self) -> str:
        return self.page.get_attribute("#replay", "data-status") or ""

    def wait_turn(self, turn: int) -> None:
        self.page.wait_for_function(
            f"document.getElementById('replay').dataset.turn === '{turn}'", timeout=10_000
        )

    def close(self) -> None:
        self.page.close()
        assert self.problems == []


def export(replay: Path) -> Path:
    out = replay.with_suffix(".html")
    write_html(ReplayReader(replay), out, title=replay.name)
    return out


def turn_lines(replay: Path) -> list[str]:
    return [r.line for r in ReplayReader(replay) if isinstance(r, Turn)]


def test_stepping_through_an_exported_rps_match(browser: Any, tmp_path: Path) -> None:
    replay = tmp_path / "rps.replay"
    record_sync(replay, "rps", seed=3)
    lines = turn_lines(replay)
    view = Page(browser)
    page = view.page
    page.goto(export(replay).as_uri())
    page.wait_for_selector("#replay[data-status=complete]")
    assert view.turn() == 0 and page.inner_text(".jr-turn") == "turn 0 / 60"
    for turn in (1, 2, 3):
        page.click("button[data-action=next]")
        view.wait_turn(turn)
    score_a, score_b = lines[2].split()[:2]
    assert page.inner_text("[data-score='0']") == score_a
    assert page.inner_text("[data-score='1']") == score_b
    assert page.inner_text(".jr-line") == lines[2]
    page.keyboard.press("ArrowLeft")
    view.wait_turn(2)
    page.eval_on_selector(
        "input[type=range]", "el => { el.value = '30'; el.dispatchEvent(new Event('input')); }"
    )
    view.wait_turn(30)
    assert page.inner_text(".jr-line") == lines[29]
    page.select_option("select", "100")
    page.click("button[data-action=play]")
    page.wait_for_function("Number(document.getElementById('replay').dataset.turn) > 33")
    page.click("button[data-action=play]")  # pause
    page.wait_for_selector("button[data-action=play]:text-is('play')")
    stopped = view.turn()
    time.sleep(0.3)
    assert view.turn() == stopped
    page.click("button[data-action=last]")
    view.wait_turn(60)
    result = page.inner_text(".jr-result")
    assert "random" in result and "predictor" in result and "after 60 turns" in result
    view.close()


@pytest.mark.parametrize("game", sorted(all_games()))
def test_every_turn_of_every_game_shows(browser: Any, tmp_path: Path, game: str) -> None:
    replay = tmp_path / f"{game}.replay"
    record_sync(replay, game)
    lines = turn_lines(replay)
    view = Page(browser)
    page = view.page
    page.goto(export(replay).as_uri())
    page.wait_for_selector("#replay[data-status=complete]")
    page.focus("#replay")
    for turn in range(1, len(lines) + 1):
        page.keyboard.press("ArrowRight")
        view.wait_turn(turn)
        board = page.inner_text(".jr-board")
        assert "cannot be read" not in board and "Cannot show" not in board, (turn, board)
        assert page.inner_text(".jr-line") == lines[turn - 1]
    assert page.inner_text(".jr-result").strip()
    view.close()


def test_a_truncated_replay_shows_as_incomplete(browser: Any, tmp_path: Path) -> None:
    replay = tmp_path / "cut.replay"
    record_sync(replay, "counting")
    data = replay.read_bytes()
    replay.write_bytes(data[: data.index(b"#result")] + b"12 1")  # a partial last line
    view = Page(browser)
    view.page.goto(export(replay).as_uri())
    view.page.wait_for_selector("#replay[data-status=incomplete]")
    view.page.click("button[data-action=last]")
    view.wait_turn(40)
    assert len(turn_lines(replay)) == 40
    assert view.page.inner_text(".jr-result") == ""
    view.close()


def test_names_are_shown_as_text_never_as_html(browser: Any, tmp_path: Path) -> None:
    replay = tmp_path / "evil.replay"
    evil = ["<img src=x onerror=alert(1)>", "</script><script>alert(2)</script><!--"]
    writer = ReplayWriter(replay)
    header = {
        "version": 1,
        "game": "rps",
        "seed": 1,
        "options": {"turns": 2},
        "players": [{"seat": i, "label": str(i + 1), "name": n} for i, n in enumerate(evil)],
    }
    writer("#judge-replay " + json.dumps(header) + "\n")
    writer("1 0 P R\n")
    writer.close()
    view = Page(browser)
    page = view.page
    page.goto(export(replay).as_uri())
    page.wait_for_selector("#replay[data-status=incomplete]")
    title = page.inner_text("h1")
    assert evil[0] in title and evil[1] in title
    assert page.locator("#replay img").count() == 0
    view.close()


class _Handler(http.server.BaseHTTPRequestHandler):
    lines: ClassVar[list[str]] = []
    page: ClassVar[str] = ""

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/":
            self._send(200, "text/html; charset=utf-8", self.page.encode())
        elif self.path == "/favicon.ico":
            self._send(204, "image/x-icon", b"")
        elif self.path.startswith("/static/"):
            asset = asset_file(self.path.removeprefix("/static/"))
            if asset is None:
                self._send(404, "text/plain", b"not found")
                return
            kind = "text/css" if asset.suffix == ".css" else "text/javascript"
            self._send(200, kind, asset.read_bytes())
        elif self.path == "/live":
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            for index, line in enumerate(self.lines):
                self.wfile.write(f"id: {index}\nevent: line\ndata: {line}\n\n".encode())
                self.wfile.flush()
                time.sleep(0.02)
            self.wfile.write(b"event: end\ndata: {}\n\n")
            self.wfile.flush()
        else:
            self._send(404, "text/plain", b"not found")

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_a_live_match_fed_over_server_sent_events(browser: Any, tmp_path: Path) -> None:
    replay = tmp_path / "live.replay"
    record_sync(replay, "roshambolo")
    _Handler.lines = replay.read_text().splitlines()
    _Handler.page = viewer_page(title="live", stream_url="/live", asset_prefix="/static")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        view = Page(browser)
        page = view.page
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/")
        page.wait_for_selector("#replay[data-status=live]")
        page.wait_for_selector("#replay[data-status=complete]", timeout=20_000)
        turns = len(turn_lines(replay))
        # The viewer followed the match to its last turn as lines arrived.
        assert view.turn() == turns
        assert page.inner_text(".jr-turn") == f"turn {turns} / {turns}"
        assert "games won" in page.inner_text(".jr-board")
        view.close()
    finally:
        server.shutdown()
        server.server_close()
