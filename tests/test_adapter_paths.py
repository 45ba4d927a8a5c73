"""An adapter runs from its game's folder (games/<game>/adapter.py), whose modules (rules.py,
game.py, bots.py...) must not shadow a bot file's own sibling modules of the same names."""

from __future__ import annotations

from pathlib import Path

import trio

from judge.bots import resolve
from judge.models import MatchSpec
from judge.runner import run_match


def test_a_bot_files_sibling_named_like_a_game_module_is_its_own(tmp_path: Path) -> None:
    (tmp_path / "game.py").write_text("def answer():\n    return 0\n")
    (tmp_path / "rules.py").write_text("CALL = 0\n")
    bot = tmp_path / "sibling_bot.py"
    bot.write_text(
        "import game\nimport rules\n\n\ndef get_play(me, hands, history):\n"
        "    return game.answer() + rules.CALL\n"
    )
    spec = MatchSpec(
        game="liarsdice",
        seed=1,
        bots=[resolve(str(bot), "liarsdice"), resolve("computer", "liarsdice")],
    )
    result = trio.run(lambda: run_match(spec))
    assert [p.outcome for p in result.players] == ["ok", "ok"], result.players[0].stderr
    # The adapter reports a get_play that raised (e.g. an AttributeError from our game.py).
    assert "raised" not in result.players[0].stderr, result.players[0].stderr
