"""A bot's source costs the server little, once (issue 28, point 3): a .py upload is analysed
at its upload in a bounded child (judge/analysis.py), never again for its matches, never on
the event loop; a source it cannot analyse is a clear 400. A real `judge serve` process."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server_helpers import ServerProcess, running_server, wait_checked, wait_for

MAX_SOURCE = 400_000
# Python 2 is translated at ~50 s of CPU per MiB here: the costly source below needs ~20 s.
ANALYSIS_CPU = 2


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    data = tmp_path_factory.mktemp("source") / "data"
    with running_server(
        data,
        "--max-source",
        str(MAX_SOURCE),
        "--analysis-cpu",
        str(ANALYSIS_CPU),
        log_level="info",
    ) as running:
        yield running


@pytest.fixture(scope="module")
def token(server: ServerProcess) -> str:
    with server.client(server.admin_token) as admin:
        r = admin.post("/api/users", json={"name": "alice"})
        assert r.status_code == 201, r.text
        return str(r.json()["token"])


def post_bot(client: httpx.Client, name: str, filename: str, source: str) -> httpx.Response:
    return client.post(
        "/api/bots",
        data={"name": name, "game": "rps"},
        files={"file": (filename, source.encode())},
    )


def log_events(server: ServerProcess, event: str, filename: str) -> list[dict[str, object]]:
    """The server's JSON log lines of ``event`` about the file ``filename``."""
    found = []
    for line in list(server.output):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and (record.get("event"), record.get("file")) == (
            event,
            filename,
        ):
            found.append(record)
    return found


def big_bot(functions: int) -> str:
    """A valid protocol bot (plays rock) made large by many top-level functions, each
    content new, so the judge's cache of analyses has never seen it."""
    filler = "".join(f"def f{i}(a, b):\n    return a + b * {i}\n\n" for i in range(functions))
    return (
        f"import sys\n# {uuid.uuid4()}\n{filler}"
        "for line in sys.stdin:\n"
        "    if line.startswith('END'):\n"
        "        break\n"
        "    if line.strip() == '.':\n"
        "        sys.stdout.write('R\\n.\\n')\n"
        "        sys.stdout.flush()\n"
    )


def test_a_deeply_nested_source_is_a_clear_400(server: ServerProcess, token: str) -> None:
    # Python's own parser gives up on it (RecursionError): today's "internal error".
    deep = "x = " + "+".join(["1"] * 100_000) + "\n"
    with server.client(token) as client:
        r = post_bot(client, "deep", "deep.py", deep)
        assert r.status_code == 400, r.text
        assert r.json()["error"] == (
            "deep.py cannot be analysed: it is nested too deeply for Python to parse"
        )
        assert client.get("/api/bots/deep").status_code == 404  # nothing kept


def test_a_source_over_the_limit_is_a_clear_400(server: ServerProcess, token: str) -> None:
    source = big_bot(MAX_SOURCE // 40)
    assert len(source) > MAX_SOURCE
    with server.client(token) as client:
        r = post_bot(client, "huge", "huge.py", source)
        assert r.status_code == 400, r.text
        assert f"larger than {MAX_SOURCE} bytes" in r.json()["error"]
    assert log_events(server, "source analysis started", "huge.py") == []  # never read whole


def test_a_large_bot_is_analysed_once_for_all_its_matches(
    server: ServerProcess, token: str
) -> None:
    source = big_bot(3000)
    assert 100_000 < len(source) < MAX_SOURCE
    with server.client(token) as client:
        r = post_bot(client, "bigbot", "bigbot.py", source)
        assert r.status_code == 202, r.text
        bot_id = r.json()["bot"]["id"]
        version = wait_checked(client, bot_id, 1)
        assert version["state"] == "ready", version
        assert version["launch"]["analysis"] == {
            "style": "protocol",
            "python": 3,
            "reason": "",
            "translation_error": "",
        }
        ids = []
        for seed in (1, 2):
            r = client.post(
                "/api/matches",
                json={"game": "rps", "bots": ["bigbot", "builtin:rock"], "seed": seed},
            )
            assert r.status_code == 202, r.text
            ids.append(r.json()["id"])
        for match_id in ids:
            match = wait_for(
                lambda m=match_id: (
                    (got := client.get(f"/api/matches/{m}").json())["status"]
                    not in ("queued", "running")
                    and got
                )
            )
            assert match["status"] == "finished", match
            assert match["result"]["players"][0]["outcome"] == "ok", match["result"]
    # Its upload analysed it; its check and both matches started from what was stored.
    assert len(log_events(server, "source analysis started", "bigbot.py")) == 1
    [analysed] = log_events(server, "source analysed", "bigbot.py")
    assert analysed["style"] == "protocol" and analysed["bytes"] == len(source)


def test_the_server_answers_while_a_costly_source_is_analysed(
    server: ServerProcess, token: str, tmp_path: Path
) -> None:
    """A Python 2 file whose translation needs more CPU than the server gives an analysis:
    /api/health answers while that analysis runs (its child, not the event loop, pays),
    and the upload ends in a 400 that names the limit."""
    functions = "".join(
        f"def f{i}(a, b):\n    print a, b\n    return a + b * {i}\n\n" for i in range(7000)
    )
    source = f"# {uuid.uuid4()}\n{functions}"
    assert 0.9 * MAX_SOURCE < len(source) < MAX_SOURCE
    uploaded = threading.Event()
    responses: list[httpx.Response] = []

    def upload() -> None:
        with server.client(token) as client:
            responses.append(post_bot(client, "costly", "costly.py", source))
        uploaded.set()

    thread = threading.Thread(target=upload)
    thread.start()
    try:
        wait_for(lambda: log_events(server, "source analysis started", "costly.py"), interval=0.02)
        with server.client() as client:
            health = client.get("/api/health")
        # The analysis takes at least ANALYSIS_CPU s of its own CPU before it is stopped.
        answered_during_analysis = not uploaded.is_set()
        assert health.status_code == 200
        assert answered_during_analysis
    finally:
        thread.join(timeout=120)
    [response] = responses
    assert response.status_code == 400, response.text
    assert response.json()["error"] == (
        f"costly.py cannot be analysed: it needs more than {ANALYSIS_CPU} s of CPU "
        "(or 2048 MiB of memory), the most the judge spends on a source"
    )
