"""The compiled starter kits (C, C++, Rust, Go, Java): each builds with its toolchain and
plays a real match of every game legally (slow: a build per game and language), and builds
in the sandbox as a judge server builds an upload."""

from __future__ import annotations

import io
import shutil
import tarfile
from pathlib import Path

import pytest

from judge.bots import read_manifest
from judge.kits import LANGUAGES, make_kit
from judge.sandbox.base import SAFE_PATH
from judge.sandbox.select import default_sandbox
from judge.server.service.catalog import sandboxed_build
from tests.server_helpers import running_server
from tests.test_kits import COMPILED, GAMES, play_kit
from tests.test_server_e2e import judge, new_user


@pytest.mark.parametrize("language", [lang for lang in COMPILED if lang in LANGUAGES])
@pytest.mark.parametrize("game", GAMES)
def test_a_compiled_kit_plays_a_real_match_legally(
    game: str, language: str, tmp_path: Path
) -> None:
    play_kit(game, language, tmp_path)


def on_bots_path(language: str) -> pytest.ParameterSet:
    """A build on a server finds programs only on the bots' PATH: skip when one is not there."""
    missing = [p for p in LANGUAGES[language].programs if not shutil.which(p, path=SAFE_PATH)]
    reason = f"{' and '.join(missing)} not on {SAFE_PATH} (the {language} kit needs it)"
    return pytest.param(language, marks=pytest.mark.skipif(bool(missing), reason=reason))


@pytest.mark.parametrize("language", [on_bots_path(lang) for lang in COMPILED if lang in LANGUAGES])
async def test_a_compiled_kit_builds_as_a_server_builds_it(language: str, tmp_path: Path) -> None:
    """`judge submit` sends the kit as it is; the server builds it in the sandbox, where only
    programs on the bots' PATH are found and the JDK's or Go's settings must be visible."""
    box = tmp_path / "box"
    make_kit("tron", language, box)
    for path in (box, *box.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    build = read_manifest(box / "bot.toml").build
    assert build is not None
    ok, log, archive = await sandboxed_build(
        default_sandbox(), box, build, seconds=120, limit=64 << 20
    )
    assert ok, log
    with tarfile.open(fileobj=io.BytesIO(archive)) as built:
        names = {name.removeprefix("./") for name in built.getnames()}
    assert "Bot.class" in names if language == "java" else "bot" in names, names


# One kit per game, every language once: submitted to a real server as `judge new` wrote them.
SUBMITTED = [("rps", "c"), ("roshambolo", "cpp"), ("liarsdice", "java"), ("counting", "go"),
             ("tron", "rust"), ("tron", "javascript"), ("counting", "python")]  # fmt: skip


@pytest.mark.timeout(600)
def test_kits_pass_a_servers_check_as_they_are(tmp_path: Path) -> None:
    """`judge submit DIR` of a fresh kit: the server builds it and its smoke match passes."""
    kits = [
        (game, language)
        for game, language in SUBMITTED
        if language in LANGUAGES
        and all(shutil.which(p, path=SAFE_PATH) for p in LANGUAGES[language].programs)
    ]
    with running_server(tmp_path / "data", "--no-ladder") as server:
        token = new_user(server.client(server.admin_token), "alice")
        for game, language in kits:
            bot = tmp_path / f"{game}-{language}"
            assert judge("new", game, language, str(bot)).returncode == 0
            done = judge("submit", str(bot), "--server", server.url, "--game", game, token=token)
            assert done.returncode == 0, done.stdout + done.stderr
            assert "ready: passed its check" in done.stdout, done.stdout
