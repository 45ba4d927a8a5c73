"""Game options are data (issue 28 §2): validating them opens no file and is bounded, for
every game of the registry, whatever the data."""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from games import all_plugins
from games.base import MAX_OPTIONS_BYTES, GameOptions
from judge.models import MatchSpec
from judge.runner import run_match
from tests.conftest import builtin

GAMES = sorted(all_plugins())

_opened: list[str] = []
_watching = threading.Event()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _watching.is_set() and event in ("open", "os.listdir", "os.scandir", "glob.glob"):
        _opened.append(f"{event} {args[0]!r}")


sys.addaudithook(_audit)  # (an audit hook stays for the process; it only records when armed)


@pytest.fixture
def no_files_opened() -> Iterator[list[str]]:
    for plugin in all_plugins().values():
        plugin.rules.Options.from_data({})  # defaults may read the game's own folder once
    _opened.clear()
    _watching.set()
    try:
        yield _opened
    finally:
        _watching.clear()


def deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


def hostile_values(fifo: Path) -> dict[str, Any]:
    return {
        "/etc/shadow": "/etc/shadow",
        "/etc/passwd": "/etc/passwd",
        "a missing file": "/etc/no-such-file",
        "a relative path": "../../etc/passwd",
        "a FIFO": str(fifo),
        "/dev/zero": "/dev/zero",
        "/proc/self/environ": "/proc/self/environ",
        "a huge string": "x" * (4 * MAX_OPTIONS_BYTES),
        "a huge number": 10**400,
        "a huge number as text": "9" * 4000,
        "not a number": math.nan,
        "deep nesting": deep(100_000),
        "deep object": {"a": deep(50)},
        "a list": ["/etc/shadow"],
        "bytes": b"/etc/shadow",
        "a path object": Path("/etc/shadow"),
        "null": None,
    }


async def validate_off_thread(options_cls: type[GameOptions], data: Any) -> Exception | None:
    """from_data in a thread, so a validation that blocks (a FIFO's open) fails the test
    instead of hanging it."""

    def run() -> Exception | None:
        try:
            options_cls.from_data(data)
        except ValueError as exc:
            return exc
        return None

    with trio.fail_after(20):
        return await trio.to_thread.run_sync(run, abandon_on_cancel=True)


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "map.fifo"
    os.mkfifo(path)
    yield path
    with contextlib.suppress(OSError):  # a reader blocked on it (the bug) is let go
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


@pytest.mark.parametrize("game", GAMES)
async def test_every_option_refuses_paths_and_huge_or_deep_values(
    game: str, fifo: Path, no_files_opened: list[str]
) -> None:
    options_cls = all_plugins()[game].rules.Options
    names = [*options_cls.model_fields, *options_cls.file_options, "unknown_option"]
    for name in names:
        for what, value in hostile_values(fifo).items():
            error = await validate_off_thread(options_cls, {name: value})
            assert error is not None, f"{game} took {name}={what}"
            assert str(error), (game, name, what)
    for what, value in hostile_values(fifo).items():  # not an object at all
        assert await validate_off_thread(options_cls, value) is not None, (game, what)
    assert no_files_opened == []


def test_a_tron_map_path_is_no_oracle() -> None:
    """A present and a missing file are refused alike: the option is a name, not a path."""
    options_cls = all_plugins()["tron"].rules.Options
    messages = []
    for path in ("/etc/passwd", "/etc/no-such-file"):
        with pytest.raises(ValueError) as refused:
            options_cls.from_data({"map": path})
        messages.append(str(refused.value).replace(path, "PATH"))
    assert messages[0] == messages[1]
    assert "shipped maps" in messages[0]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=50),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(game=st.sampled_from(GAMES), data=json_values)
def test_any_json_is_options_or_a_value_error(game: str, data: Any) -> None:
    options_cls = all_plugins()[game].rules.Options
    try:
        options = options_cls.from_data(data)
    except ValueError as exc:
        assert str(exc)
    else:
        assert options_cls.from_data(options.model_dump()) == options


@pytest.mark.parametrize("game", GAMES)
async def test_a_match_plays_no_more_turns_than_its_options_ask(game: str) -> None:
    """The server's daily turn budget charges what a game's turns_asked says: a real
    match with the game's quick options stays within it."""
    plugin = all_plugins()[game]
    options = plugin.rules.Options.from_data(dict(plugin.smoke_options))
    seats = max(2, plugin.rules.min_seats)
    asked = plugin.rules.turns_asked(seats, options)
    assert isinstance(asked, int) and asked > 0
    names = list(plugin.builtin_bots())
    bots = [builtin(game, names[seat % len(names)]) for seat in range(seats)]
    spec = MatchSpec(game=game, bots=bots, seed=3, options=options.model_dump())
    result = await run_match(spec)
    assert 0 < result.turns <= asked, (result.turns, asked)
