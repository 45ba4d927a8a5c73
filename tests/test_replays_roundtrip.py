"""Round trips: play a real match, read its replay back, re-simulate it with the game's rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from games import all_games, get_plugin
from judge.models import BotSpec
from replays.reader import Disqualified, Header, ReplayReader, Result, Turn
from replays.render import Renderer, renderer_for
from replays.verify import verify_file
from tests.conftest import builtin, misbehaving
from tests.replay_matches import match_spec, record


@pytest.mark.parametrize("game", sorted(all_games()))
async def test_every_game_round_trips(tmp_path: Path, game: str) -> None:
    path = tmp_path / f"{game}.replay"
    result = await record(path, game)
    reader = ReplayReader(path)
    records = list(reader)
    assert reader.complete and reader.incomplete_reason() == ""
    assert isinstance(records[0], Header) and records[0].header.game == game
    turns = [r for r in records if isinstance(r, Turn)]
    assert len(turns) == result.turns > 0
    assert [t.number for t in turns] == list(range(1, result.turns + 1))
    final = records[-1]
    assert isinstance(final, Result) and final.checksum_ok is True
    # The file holds the whole result but its own path (public data carries no server path).
    assert final.result.replay is None and result.replay == str(path)
    same = {"players", "replay"}
    assert final.result.model_dump(exclude=same) == result.model_dump(exclude=same)
    report = verify_file(path)
    assert report.ok, report.describe()
    assert report.turns == result.turns and report.checksum is True


@pytest.mark.parametrize("game", sorted(all_games()))
async def test_every_turn_of_every_game_renders(tmp_path: Path, game: str) -> None:
    path = tmp_path / f"{game}.replay"
    await record(path, game)
    renderer: Renderer | None = None
    for rec in ReplayReader(path):
        if isinstance(rec, Header):
            renderer = renderer_for(rec.header)
        elif isinstance(rec, Turn):
            assert renderer is not None
            text = renderer.turn(rec).plain
            assert text.strip().startswith(str(rec.number))
            if get_plugin(game).renderer() is not None:
                # The game's own renderer read the line (the generic one shows it verbatim).
                assert rec.line not in text, text
        elif isinstance(rec, Result):
            assert renderer is not None
            assert renderer.verdict(rec.result).plain


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
async def test_compressed_replays_hold_the_same_lines(tmp_path: Path, suffix: str) -> None:
    plain, packed = tmp_path / "m.replay", tmp_path / f"m.replay{suffix}"
    await record(plain, "rps", seed=5)
    await record(packed, "rps", seed=5)
    assert packed.read_bytes()[:2] != b"#j"  # really compressed
    lines = [r.line for r in ReplayReader(plain) if isinstance(r, Turn)]
    reader = ReplayReader(packed)
    assert [r.line for r in reader if isinstance(r, Turn)] == lines
    assert reader.compression == {".gz": "gzip", ".zst": "zstd"}[suffix]
    assert verify_file(packed).ok


async def test_a_disqualification_is_recorded_and_verified(tmp_path: Path) -> None:
    path = tmp_path / "dq.replay"
    spec = match_spec("rps", bots=[builtin("rps", "cycle"), misbehaving("illegal", 5)])
    result = await record(path, "rps", bots=spec.bots)
    assert result.players[1].outcome == "invalid_order"
    dqs = [r for r in ReplayReader(path) if isinstance(r, Disqualified)]
    assert [(d.seat, d.turn, d.code) for d in dqs] == [(1, 5, "invalid_order")]
    report = verify_file(path)
    assert report.ok and report.turns == 4, report.describe()


async def test_a_seat_that_never_starts_is_verified(tmp_path: Path) -> None:
    path = tmp_path / "nostart.replay"
    missing = BotSpec(name="ghost", argv=(str(tmp_path / "no-such-program"),))
    result = await record(path, "rps", bots=[builtin("rps", "rock"), missing])
    assert result.players[1].outcome == "start_failed"
    report = verify_file(path)
    assert report.ok, report.describe()


async def test_liars_dice_goes_on_after_a_mover_is_disqualified(tmp_path: Path) -> None:
    # Seat B answers garbage on its first turn; the other two play the game to its end,
    # so the verifier must follow the runner retrying the turn with the next mover.
    path = tmp_path / "ld.replay"
    bots = [
        builtin("liarsdice", "computer"),
        misbehaving("illegal", 1),
        builtin("liarsdice", "robot"),
    ]
    result = await record(path, "liarsdice", bots=bots, seed=5)
    assert [p.outcome for p in result.players] == ["ok", "invalid_order", "ok"]
    assert result.winner is not None and result.turns > 1
    report = verify_file(path)
    assert report.ok, report.describe()


async def test_verify_names_the_first_turn_that_differs(tmp_path: Path) -> None:
    path = tmp_path / "m.replay"
    await record(path, "rps", seed=3)
    lines = path.read_text().splitlines(keepends=True)
    score_a, score_b, a, b = lines[10].split()  # turn 10
    # Same orders, a score the rules cannot give.
    lines[10] = f"{int(score_a) + 1} {score_b} {a} {b}\n"
    path.write_text("".join(lines))
    report = verify_file(path)
    assert not report.ok and report.difference is not None
    assert report.difference.turn == 10 and report.difference.lineno == 11
    assert "the rules give" in report.difference.message


async def test_a_changed_result_is_named(tmp_path: Path) -> None:
    path = tmp_path / "m.replay"
    await record(path, "counting")
    text = path.read_text().replace('"rank":1', '"rank":3', 1)
    path.write_text(text)
    report = verify_file(path)
    assert report.difference is not None and report.difference.where == "the result"
    assert "rank: recorded 3" in report.difference.message


def test_a_game_without_a_renderer_gets_the_generic_one() -> None:
    from replays.format import PlayerInfo, ReplayHeader

    players = [PlayerInfo(seat=0, label="1", name="a"), PlayerInfo(seat=1, label="2", name="b")]
    header = ReplayHeader(version=1, game="rps", seed=1, options={"turns": 3}, players=players)
    assert type(renderer_for(header)) is get_plugin("rps").renderer()
    unregistered = header.model_copy(update={"game": "not-registered"})
    assert type(renderer_for(unregistered)) is Renderer
    # The generic renderer shows the line, and the orders when the game is installed.
    text = Renderer(header).turn(Turn(1, "0 1 R P", 2)).plain
    assert "0 1 R P" in text and "a R" in text and "b P" in text
    assert Renderer(unregistered).turn(Turn(7, "whatever it is", 8)).plain.split() == [
        "7",
        "whatever",
        "it",
        "is",
    ]


async def test_a_name_with_undecodable_bytes_still_records(tmp_path: Path) -> None:
    # A bot file name that is not valid UTF-8 reaches Python as a lone surrogate.
    odd = builtin("rps", "rock").model_copy(update={"name": "bot\udcff"})
    path = tmp_path / "odd.replay"
    result = await record(path, "rps", bots=[odd, builtin("rps", "paper")])
    assert result.turns == 60
    assert verify_file(path).ok
