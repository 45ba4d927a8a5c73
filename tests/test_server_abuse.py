"""No upload or request can wedge or flood the server (issue 11 §4), in process."""

from __future__ import annotations

import io
import json
import os
import tarfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trio

from judge.server.config import Quotas
from judge.server.uploads import UploadLimits, UploadRefused, unpack
from tests.server_helpers import PY_BOT, SLOW_PY_BOT, tar_gz
from tests.test_server_api import Api, open_api

MANIFEST = 'run = "./bot.py"\n'


def tar_members(*members: tuple[str, bytes | None, str]) -> bytes:
    """(name, data, link target): data None makes a symbolic link."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name, data, link in members:
            info = tarfile.TarInfo(name)
            if data is None:
                info.type = tarfile.SYMTYPE
                info.linkname = link
                archive.addfile(info)
            else:
                info.size = len(data)
                info.mode = 0o755
                archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


BOT_FILES: list[tuple[str, bytes | None, str]] = [
    ("bot.toml", MANIFEST.encode(), ""),
    ("bot.py", PY_BOT.encode(), ""),
]
ODD_ARCHIVES = {
    "symlink loop": [*BOT_FILES, ("a", None, "b"), ("b", None, "a")],
    "self link": [*BOT_FILES, ("me", None, "me")],
    "very deep": [*BOT_FILES, ("/".join(["d"] * 300) + "/x", b"x", "")],
    "very long name": [*BOT_FILES, ("n" * 300, b"x", "")],
    "very long path": [*BOT_FILES, ("/".join(["p" * 200] * 30), b"x", "")],
    "double quote": [*BOT_FILES, ('say"hi', b"x", "")],
    "single quote": [*BOT_FILES, ("it's", b"x", "")],
    "newline": [*BOT_FILES, ("line\nbreak", b"x", "")],
}


@pytest.mark.parametrize("odd", sorted(ODD_ARCHIVES))
def test_odd_member_names_are_refused_with_a_reason(tmp_path: Path, odd: str) -> None:
    upload = tmp_path / "upload"
    upload.write_bytes(tar_members(*ODD_ARCHIVES[odd]))
    with pytest.raises(UploadRefused) as refused:
        unpack(upload, "bot.tar.gz", tmp_path / "box", UploadLimits())
    assert str(refused.value)
    assert not (tmp_path / "box").exists()


@pytest.fixture
async def api(tmp_path: Path, nursery: trio.Nursery) -> AsyncIterator[Api]:
    opened = await open_api(tmp_path / "data", nursery, concurrency=1)
    yield opened
    await opened.http.aclose()
    await opened.service.close()


async def post_archive(api: Api, token: str, name: str, data: bytes) -> Any:
    return await api.http.post(
        "/api/bots",
        data={"name": name, "game": "rps"},
        files={"file": (f"{name}.tar.gz", data)},
        headers=api.auth(token),
    )


async def test_odd_archives_are_400_over_http(api: Api) -> None:
    alice = await api.user("alice")
    for number, odd in enumerate(sorted(ODD_ARCHIVES)):
        r = await post_archive(api, alice, f"odd{number}", tar_members(*ODD_ARCHIVES[odd]))
        assert r.status_code == 400, (odd, r.status_code, r.text)
        assert r.json()["error"], odd
    assert (await api.http.get("/api/bots")).json() == []


async def test_names_must_match_whole(api: Api) -> None:
    r = await api.http.post("/api/users", json={"name": "alice\n"}, headers=api.auth(api.admin))
    assert r.status_code == 400, r.text
    alice = await api.user("alice")
    r = await api.http.post(
        "/api/bots",
        data={"name": "bot\n", "game": "rps"},
        files={"file": ("bot.py", PY_BOT)},
        headers=api.auth(alice),
    )
    assert r.status_code == 400, r.text


async def all_matches(api: Api) -> list[dict[str, Any]]:
    return list((await api.http.get("/api/matches?limit=500")).json())


async def test_a_build_output_with_a_symlink_loop_fails_the_version_once(api: Api) -> None:
    alice = await api.user("alice")
    archive = tar_gz(
        {"bot.toml": MANIFEST + 'build = "ln -s a b && ln -s b a"\n', "bot.py": PY_BOT}
    )
    r = await post_archive(api, alice, "looper", archive)
    assert r.status_code == 202, r.text
    version = await api.checked(r.json()["bot"]["id"], 1, alice)
    assert version["state"] == "failed"
    assert "loop" in version["message"], version["message"]
    await trio.sleep(1)  # a re-queue loop would make more smoke matches meanwhile
    matches = await all_matches(api)
    assert len(matches) <= 1, [(m["status"], m["error"]) for m in matches]


async def test_builds_do_not_hold_match_slots(api: Api) -> None:
    # One match slot; a build that sleeps must not keep a requested match waiting.
    api.service.config.build_timeout = 30
    alice = await api.user("alice")
    archive = tar_gz({"bot.toml": MANIFEST + 'build = "sleep 25"\n', "bot.py": PY_BOT})
    r = await post_archive(api, alice, "sleepy", archive)
    assert r.status_code == 202, r.text
    bot_id = r.json()["bot"]["id"]
    await trio.sleep(0.5)
    r = await api.http.post(
        "/api/matches",
        json={
            "game": "rps",
            "bots": ["builtin:rock", "builtin:paper"],
            "options": {"turns": 5},
        },
        headers=api.auth(alice),
    )
    match = await api.finished(r.json()["id"])
    assert match["status"] == "finished"
    still = (await api.http.get(f"/api/bots/{bot_id}/versions/1")).json()
    assert still["state"] == "checking"  # the build is still sleeping


async def test_quota_versions_per_bot(tmp_path: Path, nursery: trio.Nursery) -> None:
    api = await open_api(tmp_path / "data", nursery, quotas=Quotas(versions_per_bot=2))
    alice = await api.user("alice")
    up = await api.upload(alice, "v", "rps_bot.py", PY_BOT)
    files = {"file": ("rps_bot.py", PY_BOT)}
    r = await api.http.post(
        f"/api/bots/{up['bot']['id']}/versions", files=files, headers=api.auth(alice)
    )
    assert r.status_code == 202, r.text
    r = await api.http.post(
        f"/api/bots/{up['bot']['id']}/versions", files=files, headers=api.auth(alice)
    )
    assert r.status_code == 429, r.text
    assert "2 versions" in r.json()["error"]
    # The admin is not limited.
    r = await api.http.post(
        f"/api/bots/{up['bot']['id']}/versions", files=files, headers=api.auth(api.admin)
    )
    assert r.status_code == 202, r.text
    await api.http.aclose()
    await api.service.close()


async def test_quota_uploads_per_hour_and_bots(tmp_path: Path, nursery: trio.Nursery) -> None:
    api = await open_api(
        tmp_path / "data", nursery, quotas=Quotas(uploads_per_hour=3, bots_per_user=2)
    )
    alice = await api.user("alice")
    await api.upload(alice, "b1", "rps_bot.py", PY_BOT)
    await api.upload(alice, "b2", "rps_bot.py", PY_BOT)
    r = await api.http.post(
        "/api/bots",
        data={"name": "b3", "game": "rps"},
        files={"file": ("rps_bot.py", PY_BOT)},
        headers=api.auth(alice),
    )
    assert r.status_code == 429 and "2 bots" in r.json()["error"], r.text
    r = await api.http.post(
        "/api/bots/b1/versions", files={"file": ("rps_bot.py", PY_BOT)}, headers=api.auth(alice)
    )
    assert r.status_code == 202, r.text
    r = await api.http.post(
        "/api/bots/b1/versions", files={"file": ("rps_bot.py", PY_BOT)}, headers=api.auth(alice)
    )
    assert r.status_code == 429 and "uploads an hour" in r.json()["error"], r.text
    await api.http.aclose()
    await api.service.close()


async def test_quota_stored_bytes_counts_expanded_archives(
    tmp_path: Path, nursery: trio.Nursery
) -> None:
    api = await open_api(tmp_path / "data", nursery, quotas=Quotas(stored_bytes=2_000_000))
    alice = await api.user("alice")
    # 3 MB of zeros compresses to a few KB: the upload is small, what it stores is not.
    archive = tar_gz({"bot.toml": MANIFEST, "bot.py": PY_BOT, "pad": b"\0" * 3_000_000})
    assert len(archive) < 50_000
    r = await post_archive(api, alice, "padded", archive)
    assert r.status_code == 429, r.text
    assert "2000000 bytes" in r.json()["error"]
    small = tar_gz({"bot.toml": MANIFEST, "bot.py": PY_BOT, "pad": b"\0" * 1_500_000})
    assert (await post_archive(api, alice, "small", small)).status_code == 202
    r = await post_archive(api, alice, "second", small)
    assert r.status_code == 429, r.text
    usage = (await api.http.get("/api/me", headers=api.auth(alice))).json()
    assert usage["usage"]["stored_bytes"] > 1_500_000
    await api.http.aclose()
    await api.service.close()


async def test_quota_queued_matches(tmp_path: Path, nursery: trio.Nursery) -> None:
    api = await open_api(tmp_path / "data", nursery, quotas=Quotas(queued_matches=2))
    alice = await api.user("alice")
    up = await api.upload(alice, "slow", "slow.py", SLOW_PY_BOT)
    await api.checked(up["bot"]["id"], 1)
    body = {"game": "rps", "bots": ["slow", "builtin:rock"], "options": {"turns": 2000}}
    codes = [
        (await api.http.post("/api/matches", json=body, headers=api.auth(alice))).status_code
        for _ in range(3)
    ]
    assert codes == [202, 202, 429]
    r = await api.http.post(
        "/api/tournaments",
        json={
            "game": "rps",
            "bots": ["builtin:rock", "builtin:paper", "builtin:cycle"],
        },
        headers=api.auth(alice),
    )
    assert r.status_code == 429, r.text
    assert "queued or running" in r.json()["error"]
    for match in await all_matches(api):
        if match["kind"] == "manual":
            await api.http.delete(f"/api/matches/{match['id']}", headers=api.auth(alice))
    await api.http.aclose()
    await api.service.close()


async def test_requests_per_minute(tmp_path: Path, nursery: trio.Nursery) -> None:
    api = await open_api(tmp_path / "data", nursery, quotas=Quotas(requests_per_minute=20))
    alice = await api.user("alice")
    codes = [
        (await api.http.get("/api/me", headers=api.auth(alice))).status_code for _ in range(25)
    ]
    assert codes.count(429) >= 4 and codes[0] == 200
    refused = await api.http.get("/api/me", headers=api.auth(alice))
    assert refused.status_code == 429
    assert "requests a minute" in refused.json()["error"]
    assert int(refused.headers["retry-after"]) >= 1
    # Another client is not held back by alice's flood.
    assert (await api.http.get("/api/health")).status_code == 200
    await api.http.aclose()
    await api.service.close()


async def test_cancel_a_running_match(api: Api) -> None:
    alice = await api.user("alice")
    bob = await api.user("bob")
    up = await api.upload(alice, "slow", "slow.py", SLOW_PY_BOT)
    await api.checked(up["bot"]["id"], 1)
    r = await api.http.post(
        "/api/matches",
        json={
            "game": "rps",
            "bots": ["slow", "builtin:rock"],
            "options": {"turns": 1_000_000},
        },
        headers=api.auth(alice),
    )
    match_id = r.json()["id"]
    with trio.fail_after(60):
        while True:
            if (await api.http.get(f"/api/matches/{match_id}")).json()["status"] == "running":
                break
            await trio.sleep(0.05)
    r = await api.http.delete(f"/api/matches/{match_id}", headers=api.auth(bob))
    assert r.status_code == 403
    r = await api.http.delete(f"/api/matches/{match_id}", headers=api.auth(alice))
    assert r.status_code == 200, r.text
    with trio.fail_after(30):
        match = await api.finished(match_id)
    assert match["status"] == "cancelled" and "alice" in match["error"]
    # The slot is free again: another match runs.
    r = await api.http.post(
        "/api/matches",
        json={
            "game": "rps",
            "bots": ["builtin:rock", "builtin:paper"],
            "options": {"turns": 3},
        },
        headers=api.auth(alice),
    )
    assert (await api.finished(r.json()["id"]))["status"] == "finished"


async def test_public_json_carries_no_server_paths(api: Api) -> None:
    alice = await api.user("alice")
    data_dir = str(api.service.config.data)
    missing = tar_gz({"bot.toml": 'run = "./not-there"\n', "x": "x"})
    r = await post_archive(api, alice, "missing", missing)
    assert r.status_code == 202, r.text
    version = await api.checked(r.json()["bot"]["id"], 1, alice)
    assert version["state"] == "failed"
    up = await api.upload(alice, "pybot", "rps_bot.py", PY_BOT)
    await api.checked(up["bot"]["id"], 1)
    r = await api.http.post(
        "/api/matches",
        json={
            "game": "rps",
            "bots": ["pybot", "builtin:rock"],
            "options": {"turns": 3},
        },
        headers=api.auth(alice),
    )
    await api.finished(r.json()["id"])
    for path in (
        "/api/matches?limit=500",
        "/api/bots/missing",
        "/api/bots/pybot",
        "/api/tournaments",
        "/api/health",
    ):
        for token in (alice, None):
            body = (await api.http.get(path, headers=api.auth(token))).text
            assert data_dir not in body, (path, body)
    for match in await all_matches(api):
        assert match["result"] is None or match["result"]["replay"].startswith("/api/"), match


async def test_judge_faults_are_retried_a_bounded_number_of_times(
    tmp_path: Path, nursery: trio.Nursery
) -> None:
    api = await open_api(tmp_path / "data", nursery, retry_backoff=0.05, max_attempts=3)
    # A real fault of the machine, not of the bot: the work directory is not a directory.
    work = api.service.ctx.work_root
    work.rmdir()
    work.write_text("not a directory")
    alice = await api.user("alice")
    up = await api.upload(alice, "pybot", "rps_bot.py", PY_BOT)
    version = await api.checked(up["bot"]["id"], 1, alice)
    assert version["state"] == "failed"
    assert "gave up after 3 attempts" in version["message"], version["message"]
    matches = await all_matches(api)
    assert [(m["kind"], m["status"], m["attempts"]) for m in matches] == [("smoke", "error", 3)]
    assert str(api.service.config.data) not in json.dumps(matches)
    await api.http.aclose()
    await api.service.close()


async def test_unknown_request_fields_are_422_naming_the_field(api: Api) -> None:
    alice = await api.user("alice")
    # Was silently ignored: a 1000-turn match ran.
    r = await api.http.post(
        "/api/matches",
        json={
            "game": "rps",
            "bots": ["builtin:rock", "builtin:paper"],
            "turns": 5,
        },
        headers=api.auth(alice),
    )
    assert r.status_code == 422, r.text
    assert "'turns'" in r.json()["error"]
    for method, path, kw in [
        ("POST", "/api/users", {"json": {"name": "bob", "admin": True}}),
        ("POST", "/api/tokens", {"json": {"label": "x", "expires": 1}}),
        ("PATCH", "/api/bots/x", {"json": {"enabled": False, "owner": "alice"}}),
        ("POST", "/api/tournaments", {"json": {"game": "rps", "bots": ["a", "b"], "round": 2}}),
        ("GET", "/api/matches?colour=red", {}),
        ("GET", "/api/bots?game=rps&sort=name", {}),
        (
            "POST",
            "/api/bots",
            {
                "data": {"name": "n", "game": "rps", "owner": "bob"},
                "files": {"file": ("bot.py", PY_BOT)},
            },
        ),
    ]:
        headers = api.auth(api.admin if path == "/api/users" else alice)
        r = await api.http.request(method, path, headers=headers, **kw)
        assert r.status_code == 422, (path, r.status_code, r.text)
        error = r.json()["error"]
        names = ("admin", "expires", "owner", "round", "colour", "sort")
        assert "unknown field" in error and any(f"'{n}'" in error for n in names), error
    # Known fields with bad values stay 400 and say what is wrong.
    r = await api.http.post(
        "/api/matches", json={"game": "rps", "bots": "rock"}, headers=api.auth(alice)
    )
    assert r.status_code == 400 and "bots" in r.json()["error"], r.text


async def test_openapi_comes_from_the_routes(api: Api) -> None:
    doc = (await api.http.get("/openapi.json")).json()
    match_body = doc["paths"]["/api/matches"]["post"]["requestBody"]["content"]
    schema_ref = match_body["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    schema = doc["components"]["schemas"][schema_ref]
    assert set(schema["properties"]) == {"game", "bots", "options", "seed"}
    assert schema["additionalProperties"] is False
    assert doc["components"]["securitySchemes"]["token"]["scheme"] == "bearer"
    upload = doc["paths"]["/api/bots"]["post"]["requestBody"]["content"]["multipart/form-data"]
    assert set(upload["schema"]["properties"]) == {"name", "game", "file"}
    # Pages are not API operations.
    assert "/bots" not in doc["paths"] and "/docs" not in doc["paths"]


async def test_game_options_never_name_a_file(api: Api, tmp_path: Path) -> None:
    """Issue 28 §2: a Tron map option naming a host file (present, missing, a FIFO that
    would block the event loop, /dev/zero) is refused alike, at once, for every such name."""
    alice = await api.user("alice")
    fifo = tmp_path / "map.fifo"
    os.mkfifo(fifo)
    errors = []
    with trio.fail_after(30):
        for path in ("/etc/passwd", "/etc/no-such-file", str(fifo), "/dev/zero"):
            for kind in ("matches", "tournaments"):
                body = {
                    "game": "tron",
                    "bots": ["builtin:flood", "builtin:random"],
                    "options": {"map": path},
                }
                r = await api.http.post(f"/api/{kind}", json=body, headers=api.auth(alice))
                assert r.status_code == 400, r.text
                errors.append(r.json()["error"].replace(path, "PATH"))
    assert len(set(errors)) == 1 and "shipped maps" in errors[0]
    grid = "3 1\n1.2\n"
    body = {"game": "tron", "bots": ["builtin:flood", "builtin:random"], "options": {"grid": grid}}
    r = await api.http.post("/api/matches", json=body, headers=api.auth(alice))
    assert r.status_code == 202, r.text
    assert r.json()["options"] == {"map": "custom", "grid": grid}
    for options in ({"grid": "x" * 100_000}, {"map": [[[[[[[[[["deep"]]]]]]]]]]}, {"map": 7}):
        body["options"] = options
        r = await api.http.post("/api/matches", json=body, headers=api.auth(alice))
        assert r.status_code == 400 and "bad options for tron" in r.json()["error"], r.text


def bearer_spellings(token: str) -> list[str]:
    """The 64 upper/lower-case spellings of "bearer" with the token."""
    spellings = []
    for mask in range(64):
        scheme = "".join(c.upper() if mask >> i & 1 else c for i, c in enumerate("bearer"))
        spellings.append(f"{scheme} {token}")
    return spellings


async def count_through(api: Api, requests: list[tuple[str, dict[str, str]]]) -> tuple[int, float]:
    """How many of the requests got through the rate limit, and the seconds they took."""
    start = trio.current_time()
    through = 0
    for path, headers in requests:
        r = await api.http.get(path, headers=headers)
        assert r.status_code in (200, 401, 429), r.text
        through += r.status_code != 429
    return through, trio.current_time() - start


def allowed(limit: int, seconds: float) -> float:
    """A full bucket plus what it refilled meanwhile (a loaded machine takes longer)."""
    return limit + seconds * limit / 60 + 1


async def test_the_rate_limit_holds_per_account_not_per_spelling(
    tmp_path: Path, nursery: trio.Nursery
) -> None:
    """Issue 28 §4: 64 spellings of one token got 98 of 100 requests through a limit of 30,
    and a junk Authorization header per request got all through on public endpoints."""
    api = await open_api(tmp_path / "data", nursery, quotas=Quotas(requests_per_minute=30))
    alice = await api.user("alice")
    spellings = bearer_spellings(alice)
    requests = [("/api/me", {"authorization": spellings[i % 64]}) for i in range(100)]
    through, seconds = await count_through(api, requests)
    assert through <= allowed(30, seconds), (through, seconds)
    refused = await api.http.get("/api/me", headers={"authorization": spellings[5]})
    assert refused.status_code == 429 and "from this account" in refused.json()["error"]

    # Junk tokens are no identity: they count against the client's address.
    junk = [("/api/games", {"authorization": f"Bearer junk{i}"}) for i in range(100)]
    junk += [("/api/games", {"authorization": f"x{i}"}) for i in range(20)]
    through, seconds = await count_through(api, junk)
    assert through <= allowed(30, seconds), (through, seconds)
    refused = await api.http.get("/api/games")
    assert refused.status_code == 429 and "from this address" in refused.json()["error"]
    await api.http.aclose()
    await api.service.close()


async def test_forwarded_addresses_only_from_trusted_proxies(
    tmp_path: Path, nursery: trio.Nursery
) -> None:
    # The in-process client's address is 127.0.0.1: untrusted, then a trusted proxy.
    plain = await open_api(tmp_path / "plain", nursery, quotas=Quotas(requests_per_minute=10))
    forged = [("/api/games", {"x-forwarded-for": f"203.0.113.{i}"}) for i in range(40)]
    through, seconds = await count_through(plain, forged)
    assert through <= allowed(10, seconds)
    await plain.http.aclose()
    await plain.service.close()

    proxied = await open_api(
        tmp_path / "proxied",
        nursery,
        quotas=Quotas(requests_per_minute=10),
        trusted_proxies=("127.0.0.0/8",),
    )
    # Addresses a client prepends itself change nothing: the proxy's own hop is believed.
    one = [("/api/games", {"x-forwarded-for": f"10.9.{i}.1, 198.51.100.7"}) for i in range(40)]
    through, seconds = await count_through(proxied, one)
    assert through <= allowed(10, seconds)
    other = await proxied.http.get("/api/games", headers={"x-forwarded-for": "198.51.100.8"})
    assert other.status_code == 200
    await proxied.http.aclose()
    await proxied.service.close()


async def test_registration_is_per_person(tmp_path: Path, nursery: trio.Nursery) -> None:
    """Issue 28 §4: one address made 60 accounts in a row, and `Alice`, `ALICE`, `builtin.`,
    `builtin-` were accepted beside `alice` and `builtin`."""
    api = await open_api(
        tmp_path / "data",
        nursery,
        open_registration=True,
        quotas=Quotas(registrations_per_hour=3),
        trusted_proxies=("127.0.0.0/8",),
    )

    async def register(name: str, address: str = "198.51.100.1") -> Any:
        headers = {"x-forwarded-for": address}
        return await api.http.post("/api/users", json={"name": name}, headers=headers)

    assert (await register("alice")).status_code == 201
    for spelling in ("Alice", "ALICE", "a.lice", "alice-", "a_l-i.c_e"):
        r = await register(spelling)
        assert r.status_code == 409 and "'alice'" in r.json()["error"], (spelling, r.text)
    for reserved in ("builtin", "Builtin", "builtin.", "builtin-", "BUILT_IN", "admin.", "Root"):
        r = await register(reserved)
        assert r.status_code == 409 and "reserved" in r.json()["error"], (reserved, r.text)
    for confusable in ("ａｄｍｉｎ", "ａlice", "alice\u200b"):  # full-width, zero-width
        r = await register(confusable)
        assert r.status_code in (400, 409), (confusable, r.text)
    # Three accounts an hour from one address (refused names do not count), then 429.
    assert (await register("bob")).status_code == 201
    assert (await register("carol")).status_code == 201
    refused = await register("dave")
    assert refused.status_code == 429 and "from your address" in refused.json()["error"]
    # An IPv6 client's /64 is one address.
    for n, host in enumerate(("2001:db8:0:1::1", "2001:db8:0:1::2", "2001:db8:0:1:ffff::3")):
        assert (await register(f"v6user{n}", host)).status_code == 201
    assert (await register("v6user9", "2001:db8:0:1::99")).status_code == 429
    assert (await register("erin", "198.51.100.2")).status_code == 201
    # The admin is not held to it.
    for name in ("frank", "grace", "heidi", "ivan"):
        await api.user(name)
    await api.http.aclose()
    await api.service.close()


async def test_turn_budget_per_user_and_day(tmp_path: Path, nursery: trio.Nursery) -> None:
    """Issue 28 §4: a match could ask for 10 million turns; now a day's requests may ask
    for turns_per_day turns, 429 past it, tournaments counting every match."""
    api = await open_api(tmp_path / "data", nursery, quotas=Quotas(turns_per_day=5000))
    alice = await api.user("alice")
    created = []

    async def request(options: dict[str, Any], token: str = alice, kind: str = "matches") -> Any:
        body = {"game": "rps", "bots": ["builtin:rock", "builtin:paper"], "options": options}
        r = await api.http.post(f"/api/{kind}", json=body, headers=api.auth(token))
        if r.status_code == 202 and kind == "matches":
            created.append((r.json()["id"], token))
        return r

    huge = await request({"turns": 10_000_000})
    assert huge.status_code == 429, huge.text
    assert "turn budget" in huge.json()["error"] and "10,000,000" in huge.json()["error"]
    ok = await request({"turns": 3000})
    assert ok.status_code == 202 and ok.json()["turns"] == 3000
    assert (await request({"turns": 3000})).status_code == 429
    assert (await request({"turns": 2000})).status_code == 202
    assert (await request({"turns": 100}, kind="tournaments")).status_code == 429
    me = (await api.http.get("/api/me", headers=api.auth(alice))).json()
    assert me["usage"]["turns_last_day"] == 5000 and me["quotas"]["turns_per_day"] == 5000
    # The admin is exempt; other users have their own budget.
    assert (await request({"turns": 6000}, token=api.admin)).status_code == 202
    bob = await api.user("bob")
    assert (await request({"turns": 5000}, token=bob)).status_code == 202
    for match_id, token in created:
        await api.http.delete(f"/api/matches/{match_id}", headers=api.auth(token))
    await api.http.aclose()
    await api.service.close()
