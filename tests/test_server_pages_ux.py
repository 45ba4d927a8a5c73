# ruff: noqa: F811  (the fixtures of tests/test_server_browser.py, imported by name)
"""Issue 14's server page bugs in Chromium: a finished match loads its replay file in one go
(no live badge, no stream), a live one is fed in batches, a bot whose only version failed
shows as failed, an unknown URL is a page, and a too large upload names a readable size."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx

from tests.server_helpers import ServerProcess, upload, wait_checked, wait_match
from tests.test_server_browser import browser, page, server, token  # noqa: F401 (fixtures)


def test_a_finished_match_loads_its_replay_file_in_one_go(  # type: ignore[no-untyped-def]
    page,
    server: ServerProcess,
    token: str,
    tmp_path: Path,
) -> None:
    client = server.client(token)
    match = client.post(
        "/api/matches",
        json={"game": "rps", "bots": ["pybot", "builtin:rock"], "options": {"turns": 3000}},
    ).json()
    wait_match(client, match["id"])
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    statuses: list[str] = []
    page.expose_function("noteStatus", lambda s: statuses.append(s))
    page.add_init_script("""
        new MutationObserver(() => {
            const r = document.getElementById('replay');
            if (r && r.dataset.status) window.noteStatus(r.dataset.status);
        }).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-status']});
    """)
    page.goto(f"/matches/{match['id']}")
    page.wait_for_selector("#replay[data-status=complete]")
    assert page.evaluate("() => window.replayViewer.turns") == 3000
    assert any(u.endswith(f"/api/matches/{match['id']}/replay") for u in requests)
    assert not any("/live" in u for u in requests), requests
    assert "live" not in statuses, statuses
    # The score chart is drawn over all 3000 turns.
    assert page.get_attribute(".jr-chart", "data-points") == "3000"
    page.screenshot(path=str(tmp_path / "finished.png"), full_page=True)


def test_a_live_match_is_fed_in_batches_and_stays_at_the_newest_turn(  # type: ignore[no-untyped-def]
    page,
    server: ServerProcess,
    token: str,
) -> None:
    client = server.client(token)
    match = client.post(
        "/api/matches",
        json={"game": "rps", "bots": ["slowbot", "pybot"], "options": {"turns": 400}},
    ).json()
    page.goto(f"/matches/{match['id']}")
    page.wait_for_function(
        "() => window.replayViewer && window.replayViewer.turns >= 3", timeout=60_000
    )
    assert page.get_attribute("#replay", "data-status") == "live"
    # Following: the shown turn is the newest one.
    page.wait_for_function(
        "() => window.replayViewer.position === window.replayViewer.turns", timeout=10_000
    )
    page.wait_for_selector("#replay[data-status=complete]", timeout=120_000)
    assert page.evaluate("() => window.replayViewer.position") == 400
    # The batched stream has every line once, in order, as the replay file has them.
    with client.stream("GET", f"/api/matches/{match['id']}/live?batch=true") as r:
        body = r.read().decode()
    lines: list[str] = []
    for block in body.split("\r\n\r\n" if "\r\n" in body else "\n\n"):
        fields = [ln for ln in block.splitlines() if ln]
        if any(ln == "event: lines" for ln in fields):
            lines += [ln[6:] for ln in fields if ln.startswith("data: ")]
    assert lines == client.get(f"/api/matches/{match['id']}/replay").text.splitlines()


def test_a_bot_whose_only_version_failed_shows_as_failed(  # type: ignore[no-untyped-def]
    page,
    server: ServerProcess,
    token: str,
) -> None:
    client = server.client(token)
    up = upload(client, "brokenbot", "rps", "broken.py", "import sys\nsys.exit(3)\n")
    assert wait_checked(client, up["bot"]["id"], 1)["state"] == "failed"
    listed = {b["name"]: b for b in client.get("/api/bots").json()}
    assert listed["brokenbot"]["status"] == "failed"
    assert listed["pybot"]["status"] == "listed"
    page.goto("/bots")
    row = page.locator("#bots tr", has_text="brokenbot")
    row.wait_for()
    assert row.locator("td").nth(4).inner_text() == "failed"
    assert "not checked yet" not in page.locator("#bots").inner_text()


def test_an_unknown_url_is_a_page_for_browsers_and_json_for_programs(  # type: ignore[no-untyped-def]
    page,
    server: ServerProcess,
    tmp_path: Path,
) -> None:
    response = page.goto("/no/such/page")
    assert response is not None and response.status == 404
    page.wait_for_selector("#not-found")
    assert "/no/such/page" in page.locator("#not-found").inner_text()
    assert page.locator("header a.brand").count() == 1  # the site's navigation
    page.screenshot(path=str(tmp_path / "notfound.png"))
    page.problems.clear()  # Chromium logs the 404 itself
    r = httpx.get(f"{server.url}/no/such/page")
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/json")
    r = httpx.get(f"{server.url}/api/nothing", headers={"accept": "text/html"})
    assert r.status_code == 404 and "error" in r.json()


def test_a_too_large_upload_names_a_readable_size(server: ServerProcess, token: str) -> None:
    """Refused from its Content-Length, before any of the body is sent: the client reads the
    answer as curl does. (A client that insists on writing the 17 MiB first may find the
    connection closed under it instead: the server reads none of it.)"""
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(
            f"POST /api/bots HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: multipart/form-data; boundary=x\r\n"
            f"Content-Length: {17 << 20}\r\n\r\n".encode()
        )
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413 "), head
    assert json.loads(body)["error"] == "the request body is larger than the server takes (16 MiB)"
