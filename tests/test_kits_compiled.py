"""The compiled starter kits (C, C++, Rust, Go, Java): each builds with its toolchain and
plays a real match of every game legally (slow: a build per game and language)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.kits import LANGUAGES
from tests.test_kits import COMPILED, GAMES, play_kit


@pytest.mark.parametrize("language", [lang for lang in COMPILED if lang in LANGUAGES])
@pytest.mark.parametrize("game", GAMES)
def test_a_compiled_kit_plays_a_real_match_legally(
    game: str, language: str, tmp_path: Path
) -> None:
    play_kit(game, language, tmp_path)
