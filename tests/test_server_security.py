"""Hostile HTTP clients against a real `judge serve`: the server refuses and keeps serving."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.server_helpers import (
    PY_BOT,
    ServerProcess,
    running_server,
    tar_gz,
    upload,
    wait_checked,
)

MAX_UPLOAD = 100_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    data = tmp_path_factory.mktemp("security") / "data"
    with running_server(data, "--no-ladder", "--max-upload", str(MAX_UPLOAD)) as running:
        yield running


@pytest.fixture(scope="module")
def tokens(server: ServerProcess) -> dict[str, str]:
    admin = server.client(server.admin_token)
    found = {}
    for name in ("alice", "mallory"):
        r = admin.post("/api/users", json={"name": name})
        assert r.status_code == 201
        found[name] = r.json()["token"]
    alice = server.client(found["alice"])
    up = upload(alice, "alicebot", "rps", "bot.py", PY_BOT)
    assert wait_checked(alice, up["bot"]["id"], 1)["state"] == "ready"
    return found


def raw_exchange(
    server: ServerProcess, data: bytes, *, read: bool = True, timeout: float = 5.0
) -> bytes:
    """Send raw bytes on a fresh connection; return what the server answers (maybe nothing)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=timeout) as sock:
        with contextlib.suppress(OSError):
            sock.sendall(data)
        if not read:
            return b""
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
                if b"\r\n\r\n" in b"".join(chunks):
                    break
        except (TimeoutError, OSError):
            pass
        return b"".join(chunks)


def assert_serving(server: ServerProcess) -> None:
    assert server.proc.poll() is None, "the server process died:\n" + "".join(server.output)
    r = httpx.get(server.url + "/api/health", timeout=10)
    assert r.status_code == 200 and r.json()["ok"] is True


MALFORMED = {
    # hypercorn 0.18's trio worker exits on exactly this (hypercorn#225): a byte after the headers.
    "websocket upgrade with a trailing byte": (
        b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\nX"
    ),
    "websocket upgrade to an API path": (
        b"GET /api/matches/x/live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
        b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        b"Sec-WebSocket-Version: 13\r\n\r\n"
    ),
    "websocket upgrade without a key": (
        b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x00\xff"
    ),
    "garbage": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(256)),
    "bad request line": b"GET\r\n\r\n",
    "bad HTTP version": b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    "header without a colon": b"GET / HTTP/1.1\r\nHost x\r\n\r\n",
    "huge header": b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n",
    "negative content length": (
        b"POST /api/tokens HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"
    ),
    "two content lengths": (
        b"POST /api/tokens HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 9\r\n\r\nabc"
    ),
    "bad chunked body": (
        b"POST /api/tokens HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n"
    ),
    "http2 preface on http1": b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00" * 64,
    "truncated request": b"POST /api/matches HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{",
    "non-utf8 path": b"GET /bots/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",
    "path traversal on static": b"GET /static/../../../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_requests_leave_the_server_serving(server: ServerProcess, name: str) -> None:
    answer = raw_exchange(server, MALFORMED[name])
    assert b"root:" not in answer
    assert b"Traceback" not in answer
    assert_serving(server)


def test_many_malformed_upgrades_in_a_row(server: ServerProcess) -> None:
    for _ in range(20):
        raw_exchange(server, MALFORMED["websocket upgrade with a trailing byte"], read=False)
    assert_serving(server)


def test_static_files_stay_inside(server: ServerProcess) -> None:
    for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/replay-static/../export.py"):
        r = httpx.get(server.url + path)
        assert r.status_code == 404, path
        assert "import" not in r.text


def test_writes_without_a_token_or_with_someone_elses(
    server: ServerProcess, tokens: dict[str, str]
) -> None:
    anonymous = server.client()
    mallory = server.client(tokens["mallory"])
    forged = server.client("jt_" + "A" * 43)
    for client in (anonymous, forged):
        body = {"game": "rps", "bots": ["alicebot", "builtin:rock"]}
        assert client.post("/api/matches", json=body).status_code == 401
        assert client.patch("/api/bots/alicebot", json={"enabled": False}).status_code == 401
        assert client.delete("/api/bots/alicebot").status_code == 401
    assert mallory.patch("/api/bots/alicebot", json={"enabled": False}).status_code == 403
    assert mallory.delete("/api/bots/alicebot").status_code == 403
    r = mallory.post("/api/bots/alicebot/versions", files={"file": ("x.py", b"print(1)")})
    assert r.status_code == 403
    bot = server.client().get("/api/bots/alicebot").json()
    assert bot["bot"]["enabled"] is True and len(bot["versions"]) == 1
    # Mallory cannot create accounts either, nor cancel Alice's match.
    assert mallory.post("/api/users", json={"name": "eve"}).status_code == 403
    alice = server.client(tokens["alice"])
    match = alice.post(
        "/api/matches",
        json={"game": "rps", "bots": ["alicebot", "builtin:rock"], "options": {"turns": 5}},
    ).json()
    r = mallory.delete(f"/api/matches/{match['id']}")
    assert r.status_code == 403
    assert server.client().get(f"/api/matches/{match['id']}").json()["status"] != "cancelled"


@pytest.mark.parametrize(
    "members",
    [
        {"bot.toml": 'run = "./x"', "../escape": "x"},
        {"bot.toml": 'run = "./x"', "/etc/cron.d/evil": "x"},
    ],
)
def test_malicious_archives_are_refused_over_http(
    server: ServerProcess, tokens: dict[str, str], members: dict[str, str]
) -> None:
    client = server.client(tokens["mallory"])
    r = client.post(
        "/api/bots",
        data={"name": "evil", "game": "rps"},
        files={"file": ("evil.tar.gz", tar_gz(members))},
    )
    assert r.status_code == 400
    assert "climbs out" in r.json()["error"] or "absolute" in r.json()["error"]
    assert server.client().get("/api/bots/evil").status_code == 404
    assert not (server.data / "escape").exists()
    assert list((server.data / "uploads").iterdir()) == []


def test_symlink_archive_refused_over_http(
    server: ServerProcess, tokens: dict[str, str], tmp_path: Path
) -> None:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("bot.toml")
        data = b'run = "./x"\n'
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("x")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/shadow"
        archive.addfile(link)
    r = server.client(tokens["mallory"]).post(
        "/api/bots",
        data={"name": "linker", "game": "rps"},
        files={"file": ("linker.tar.gz", buffer.getvalue())},
    )
    assert r.status_code == 400 and "absolute" in r.json()["error"]


def test_oversized_upload_is_refused_before_its_body_is_read(
    server: ServerProcess, tokens: dict[str, str]
) -> None:
    # Announce a gigabyte and send none of it: the answer must come at once.
    head = (
        f"POST /api/bots HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tokens['alice']}\r\n"
        "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000000000\r\n\r\n"
    )
    started = time.monotonic()
    answer = raw_exchange(server, head.encode(), timeout=10)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:100]
    assert time.monotonic() - started < 10
    assert_serving(server)


def test_oversized_chunked_upload_is_cut_off(server: ServerProcess, tokens: dict[str, str]) -> None:
    sent = 0

    def body() -> Iterator[bytes]:
        nonlocal sent
        yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="big.py"\r\n\r\n'
        for _ in range(200):  # 200 x 64 KiB = 12.5 MiB, far over the limit
            sent += 65536
            yield b"#" * 65536

    try:
        r = httpx.post(
            server.url + "/api/bots",
            content=body(),
            timeout=30,
            headers={
                "authorization": f"Bearer {tokens['alice']}",
                "content-type": "multipart/form-data; boundary=b",
            },
        )
    except httpx.HTTPError:
        # The server answered and closed while the client was still writing.
        assert sent < 200 * 65536
    else:
        assert r.status_code == 413, r.text
    assert server.client().get("/api/bots/big").status_code == 404
    assert_serving(server)


def test_upload_just_over_the_limit_with_a_length(
    server: ServerProcess, tokens: dict[str, str]
) -> None:
    r = server.client(tokens["alice"]).post(
        "/api/bots",
        data={"name": "toobig", "game": "rps"},
        files={"file": ("big.py", b"#" * (MAX_UPLOAD + 70_000))},
    )
    assert r.status_code == 413
    assert "larger than" in r.json()["error"]
    assert_serving(server)


def test_errors_never_show_a_traceback(server: ServerProcess, tokens: dict[str, str]) -> None:
    client = server.client(tokens["alice"])
    for method, path, kw in [
        ("GET", "/api/matches?limit=abc", {}),
        ("GET", "/api/matches?status=weird", {}),
        ("GET", "/api/bots/nobody/versions/1", {}),
        ("GET", "/api/bots/alicebot/versions/x", {}),
        ("POST", "/api/matches", {"content": b"[1, 2"}),
        ("POST", "/api/matches", {"json": {"game": "rps", "bots": "alicebot"}}),
        ("POST", "/api/matches", {"json": {"game": "rps", "bots": ["alicebot", "x@y"]}}),
        ("POST", "/api/bots", {"data": {"name": "x"}}),
        (
            "POST",
            "/api/bots",
            {
                "content": b"not multipart",
                "headers": {"content-type": "multipart/form-data; boundary=zz"},
            },
        ),
        ("POST", "/api/tournaments", {"json": {"game": "rps", "bots": ["alicebot"]}}),
        ("GET", "/api/matches/nope/live", {}),
        ("GET", "/api/matches/nope/replay", {}),
        ("DELETE", "/api/tokens/abc", {}),
        ("GET", "/api/leaderboard/chess", {}),
    ]:
        r = client.request(method, path, **kw)
        assert 400 <= r.status_code < 500, (method, path, r.status_code, r.text)
        assert "Traceback" not in r.text and "error" in r.json(), (method, path, r.text)
    assert_serving(server)


# Any text, lone surrogates included (JSON's escapes can spell them).
any_text = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=12)
lone_surrogate = st.sampled_from(["\ud800", "\udc80", "\udfff"])
any_text |= st.builds(lambda a, s, b: a + s + b, any_text, lone_surrogate, any_text)
json_data = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=12,
)
REF_PATHS = (
    "/api/bots/{}",
    "/api/bots/{}/versions/{}",
    "/api/bots/{}/ratings",
    "/api/matches/{}",
    "/api/matches/{}/replay",
    "/api/tournaments/{}",
    "/api/leaderboard/{}",
    "/api/leaderboard/{}/history",
)
BODIES = ("/api/matches", "/api/tournaments", "/api/users", "/api/tokens")


def url_part(text: str) -> str:
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


@pytest.fixture(scope="module")
def fuzz_admin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    data = tmp_path_factory.mktemp("fuzz") / "data"
    unlimited = ("--quota", "requests_per_minute=1000000000")
    with running_server(data, "--no-ladder", *unlimited) as running:
        with running.client(running.admin_token) as client:
            yield client
        assert running.proc.poll() is None, "the server died:\n" + "".join(running.output)


@settings(max_examples=150, deadline=None)
@given(
    path=st.sampled_from(REF_PATHS),
    parts=st.lists(any_text, min_size=2, max_size=2),
    query=st.dictionaries(
        st.sampled_from(["game", "bot", "owner", "status", "kind", "limit", "offset", "after"]),
        any_text,
        max_size=3,
    ),
    target=st.sampled_from(BODIES),
    body=json_data,
    fields=st.dictionaries(
        st.sampled_from(["game", "bots", "options", "seed", "name", "label", "games", "runs"]),
        json_data,
        max_size=4,
    ),
)
def test_malformed_input_is_never_a_server_error(
    fuzz_admin: httpx.Client,
    path: str,
    parts: list[str],
    query: dict[str, str],
    target: str,
    body: Any,
    fields: dict[str, Any],
) -> None:
    """Issue 28 §4: a lone surrogate in a bot reference gave 500. Every path, query and
    JSON body a client can send is answered below 500."""
    url = path.format(*(url_part(p) for p in parts))
    params = "&".join(f"{key}={url_part(value)}" for key, value in query.items())
    for where in (url, "/api/matches", "/api/bots"):
        r = fuzz_admin.get(f"{where}?{params}")
        assert r.status_code < 500, (where, params, r.text)
    refs = {"game": "rps", "bots": ["builtin:rock", parts[0]]}
    for data in (body, fields, {**fields, **refs}, {**refs, "bots": parts}):
        content = json.dumps(data, allow_nan=True)  # ASCII: surrogates as \ud800 escapes
        r = fuzz_admin.post(target, content=content, headers={"content-type": "application/json"})
        assert r.status_code < 500, (target, content, r.text)
        if r.status_code == 202 and target == "/api/matches":
            fuzz_admin.delete(f"/api/matches/{r.json()['id']}")
    r = fuzz_admin.delete(f"/api/matches/{url_part(parts[0])}")
    assert r.status_code < 500, r.text
