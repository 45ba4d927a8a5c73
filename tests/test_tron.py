"""Tron (games/tron/): the rules against hand-made boards, real matches of the built-in
bots, replay verification, the terminal and web renderers, human play and a tourney."""

from __future__ import annotations

import os
import random
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
from click.testing import CliRunner
from pydantic import ValidationError

from games import get_game, get_plugin
from games.base import IllegalOrder, ReplayMismatch
from games.tron.rules import MapError, Tron, TronOptions, parse_map, shipped_maps
from judge.cli import main
from judge.models import BotSpec, MatchSpec
from judge.runner import run_match
from judge.tournament import TourneySpec, run_tourney
from replays.export import write_html
from replays.reader import ReplayReader, Turn
from replays.verify import verify_file
from tests.conftest import builtin
from tests.test_play import Terminal

CHROMIUM = "/usr/bin/chromium"


def game_on(grid: str) -> Tron:
    options = TronOptions(grid=grid)
    return Tron(seats=2, options=options, rng=random.Random(0))


def play(state: Tron, *moves: tuple[str, str]) -> list[str]:
    lines = []
    for a, b in moves:
        state.begin_turn()
        lines.append(state.apply({0: state.parse_order(0, [a]), 1: state.parse_order(1, [b])}))
    return lines


DUEL = "7 3\n#######\n#1   2#\n#######\n"
OPEN = "5 5\n#####\n#1  #\n#   #\n#  2#\n#####\n"


def test_head_on_into_the_same_cell_is_a_draw() -> None:
    state = game_on(DUEL)
    assert play(state, ("E", "W"), ("E", "W")) == ["E W 2 1 4 1 -", "E W 3 1 3 1 draw"]
    assert state.is_over()
    result = state.result()
    assert result.ranks == (1, 1) and result.winner is None
    assert result.summary == "draw after 2 turns"


def test_swapping_cells_is_a_draw_both_ride_into_a_trail() -> None:
    state = game_on("4 3\n####\n#12#\n####\n")
    assert play(state, ("E", "W")) == ["E W 2 1 1 1 draw"]
    assert state.result().ranks == (1, 1)


def test_a_wall_or_a_trail_crashes_and_the_other_wins() -> None:
    state = game_on(OPEN)
    # seat 1 rides north into the border; seat 2 moves on
    assert play(state, ("N", "W")) == ["N W 1 0 2 3 2"]
    assert state.result().ranks == (2, 1) and state.result().winner == 1
    state = game_on(OPEN)
    # seat 2 rides west then north into the trail seat 1 leaves behind it
    assert play(state, ("S", "W"), ("E", "N")) == ["S W 1 2 2 3 -", "E N 2 2 2 2 draw"]
    state = game_on(OPEN)
    assert play(state, ("E", "N"), ("S", "W"))[-1] == "S W 2 2 2 2 draw"
    state = game_on(OPEN)
    play(state, ("E", "N"))  # 1 at (2,1), 2 at (3,2)
    assert play(state, ("W", "N")) == ["W N 1 1 3 1 2"]  # 1 rides back onto its own trail
    assert state.result().winner == 1


def test_both_crashing_into_walls_in_the_same_turn_is_a_draw() -> None:
    state = game_on(OPEN)
    assert play(state, ("W", "S")) == ["W S 0 1 3 4 draw"]


def test_a_map_without_a_border_ends_at_the_edge() -> None:
    state = game_on("3 1\n1 2\n")
    assert play(state, ("W", "E")) == ["W E -1 0 3 0 draw"]


def test_messages_tell_the_map_once_then_positions_and_last_moves() -> None:
    state = game_on(OPEN)
    first = state.begin_turn()
    assert first[0] == [
        "Y 1",
        "M 5 5",
        "R #####",
        "R #1..#",
        "R #...#",
        "R #..2#",
        "R #####",
        "T 1",
        "P 1 1 3 3",
    ]
    assert first[1][:2] == ["Y 2", "M 5 5"] and first[1][-1] == "P 3 3 1 1"
    state.apply({0: "S", 1: "N"})
    assert state.begin_turn() == {
        0: ["T 2", "P 1 2 3 2", "L S N"],
        1: ["T 2", "P 3 2 1 2", "L N S"],
    }
    state.apply({0: "E", 1: "W"})  # head-on at (2, 2)
    assert state.final_message(1) == ["L W E", "END 1 0 0"]


def test_orders_and_replay_lines_are_checked() -> None:
    state = game_on(OPEN)
    for bad in (["X"], ["n"], ["N", "E"], [""]):
        with pytest.raises(IllegalOrder):
            state.parse_order(0, bad)
    assert state.orders_from_line("N E 1 0 4 3 2") == {0: "N", 1: "E"}
    for junk in ("N E 1 0 4 3", "N Q 1 0 4 3 -", "N E 1 0 4 3 maybe"):
        with pytest.raises(ReplayMismatch):
            state.orders_from_line(junk)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("five 5\n", "first line"),
        ("3 2\n#1#\n", "exactly 2 rows"),
        ("3 1\n#1\n", "row 1 has 2 cells"),
        ("3 1\n1 1\n", "two starts"),
        ("3 1\n1  \n", "both cycles"),
        ("3 1\n1x2\n", "'x'"),
        ("0 1\n\n", "1..200"),
    ],
)
def test_bad_maps_are_refused_with_the_reason(text: str, problem: str) -> None:
    with pytest.raises(MapError, match=problem):
        parse_map(text)
    with pytest.raises(ValidationError, match=problem):
        TronOptions(grid=text)


def test_maps_by_name_or_text_and_the_options_keep_the_text(tmp_path: Path) -> None:
    assert {"arena", "pillars", "corridors", "duel"} <= set(shipped_maps())
    for name in shipped_maps():
        board = parse_map(TronOptions(map=name).grid)
        assert board.starts[0] != board.starts[1]
    options = TronOptions.from_data({"grid": DUEL})
    assert options.grid == DUEL and options.model_dump() == {"map": "custom", "grid": DUEL}
    with pytest.raises(ValidationError, match="shipped maps: arena"):
        TronOptions(map="nowhere")
    mine = tmp_path / "mine.txt"
    mine.write_text(DUEL)
    with pytest.raises(ValidationError, match="shipped maps: arena"):
        TronOptions(map=str(mine))  # options never name a file


def test_the_cli_reads_a_map_file_only_when_told(tmp_path: Path) -> None:
    mine = tmp_path / "mine.txt"
    mine.write_text(DUEL)
    replay = tmp_path / "mine.replay"
    runner = CliRunner()
    args = ["match", "tron", "flood", "straight", "--replay", str(replay)]
    out = runner.invoke(main, [*args, "-o", f"map-file={mine}"])
    assert out.exit_code == 0, out.output
    reader = ReplayReader(replay)
    list(reader)
    assert reader.header is not None and reader.header.options == {"map": "custom", "grid": DUEL}
    as_name = runner.invoke(main, [*args, "-o", f"map={mine}"])
    assert as_name.exit_code == 2 and "-o map-file=PATH" in as_name.output
    fifo = tmp_path / "map.fifo"
    os.mkfifo(fifo)
    for path, problem in ((fifo, "not a regular file"), (tmp_path / "none", "No such file")):
        refused = runner.invoke(main, [*args, "-o", f"map-file={path}"])
        assert refused.exit_code == 2 and problem in refused.output, refused.output


def record(tmp_path: Path, bots: list[BotSpec], options: dict[str, Any], seed: int = 1) -> Path:
    replay = tmp_path / "tron.replay"
    spec = MatchSpec(game="tron", bots=bots, seed=seed, options=options)
    result = trio.run(lambda: run_match(spec, replay_path=replay))
    assert [p.outcome for p in result.players] == ["ok"] * len(bots) or bots[1].name == "bad"
    return replay


def test_builtin_bots_play_whole_matches_that_verify(tmp_path: Path) -> None:
    assert get_plugin("tron").builtin_bots().keys() == {"straight", "random", "flood"}
    for options in ({}, {"map": "pillars"}, {"map": "corridors"}):
        replay = record(tmp_path, [builtin("tron", "flood"), builtin("tron", "random")], options)
        report = verify_file(replay)
        assert report.ok, report
        lines = [r.line for r in ReplayReader(replay) if isinstance(r, Turn)]
        assert lines[-1].split()[-1] in ("1", "2", "draw")
        assert all(line.split()[-1] == "-" for line in lines[:-1])


def test_a_tampered_replay_fails_verification(tmp_path: Path) -> None:
    replay = record(tmp_path, [builtin("tron", "flood"), builtin("tron", "straight")], {})
    text = replay.read_text().splitlines()
    turn = next(i for i, line in enumerate(text) if not line.startswith("#"))
    moves = text[turn].split(" ")
    moves[0] = {"N": "S", "S": "N", "E": "W", "W": "E"}[moves[0]]
    text[turn] = " ".join(moves)
    replay.write_text("\n".join(text) + "\n")
    assert not verify_file(replay).ok


def test_head_on_on_the_duel_map_is_a_draw_in_a_real_match(tmp_path: Path) -> None:
    replay = record(tmp_path, [builtin("tron", "flood"), builtin("tron", "flood")], {"map": "duel"})
    lines = [r.line for r in ReplayReader(replay) if isinstance(r, Turn)]
    assert lines == ["E W 2 1 4 1 -", "E W 3 1 3 1 draw"]


def test_an_illegal_move_disqualifies(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import sys\nwhile sys.stdin.readline().strip() != '.':\n    pass\n"
        "print('up\\n.', flush=True)\nsys.stdin.read()\n"
    )
    bots = [builtin("tron", "straight"), BotSpec(name="bad", argv=(sys.executable, str(bad)))]
    spec = MatchSpec(game="tron", seed=1, bots=bots)
    result = trio.run(lambda: run_match(spec))
    assert result.players[1].outcome == "invalid_order"
    assert "'up'" in result.players[1].reason
    assert result.winner == 0


def test_cli_match_replay_and_terminal_renderer(tmp_path: Path) -> None:
    runner = CliRunner()
    replay = tmp_path / "cli.replay"
    out = runner.invoke(
        main,
        [
            "match",
            "tron",
            "flood",
            "straight",
            "--seed",
            "4",
            "-o",
            "map=pillars",
            "--replay",
            str(replay),
            "--json",
        ],
    )
    assert out.exit_code == 0, out.output
    shown = runner.invoke(main, ["replay", str(replay), "--speed", "0"])
    assert shown.exit_code == 0, shown.output
    assert "→" in shown.output or "↑" in shown.output
    assert "crashes" in shown.output or "both crash" in shown.output
    verified = runner.invoke(main, ["replay", str(replay), "--verify"])
    assert verified.exit_code == 0, verified.output
    listed = runner.invoke(main, ["games"])
    assert "tron" in listed.output and "light cycles" in listed.output
    bots = runner.invoke(main, ["bots", "tron"])
    assert "flood" in bots.output
    bad = runner.invoke(main, ["match", "tron", "flood", "straight", "-o", "map=nowhere"])
    assert bad.exit_code == 2 and "shipped maps" in bad.output


def test_a_round_robin_tourney(tmp_path: Path) -> None:
    spec = TourneySpec(
        game="tron",
        bots=[builtin("tron", n) for n in ("flood", "random", "straight")],
        seed=3,
        options={"map": "arena"},
        concurrency=2,
    )
    result = trio.run(lambda: run_tourney(spec, replays=tmp_path))
    assert result.format == "round robin, one match per pair"
    assert len(result.matches) == 3
    assert sorted(s.played for s in result.standings) == [2, 2, 2]
    assert sum(s.points for s in result.standings) == 3  # a point per match, shared in draws
    for match in result.matches:
        assert match.replay is not None and verify_file(Path(match.replay)).ok


def test_a_person_plays_tron_at_a_terminal() -> None:
    term = Terminal("tron", "straight", "-o", "map=duel", "--seed", "1")
    term.expect(r"You ride cycle 1")
    term.expect(r"#@   X#")
    term.expect(r"Your move\? ")
    term.type("sideways")
    term.expect("Please type N, E, S or W")
    term.type("up")  # into the wall, while the other cycle turns west
    term.expect("You went N, the other cycle went W.")
    term.expect("Match over: you crashed: you lose")
    assert "straight wins" in term.finish()


@pytest.mark.skipif(shutil.which(CHROMIUM) is None, reason="needs Debian's chromium")
def test_the_web_viewer_draws_the_board_every_turn(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    replay = record(
        tmp_path, [builtin("tron", "flood"), builtin("tron", "random")], {"map": "pillars"}, seed=5
    )
    lines = [r.line for r in ReplayReader(replay) if isinstance(r, Turn)]
    page_file = tmp_path / "tron.html"
    write_html(ReplayReader(replay), page_file, title="tron")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.goto(page_file.as_uri())
        page.wait_for_selector("#replay[data-status=complete]")
        page.click("button[data-action=last]")
        page.wait_for_function(f"document.getElementById('replay').dataset.turn === '{len(lines)}'")
        rows = page.eval_on_selector_all(".jr-tron > div", "els => els.map(e => e.textContent)")
        assert len(rows) == 13 and all(len(row) == 17 for row in rows)
        state = lines[-1].split(" ")[-1]
        heads = page.eval_on_selector_all("[data-head]", "els => els.length")
        assert heads >= 1
        # every trail cell of both cycles is on the board: one cell per turn each, plus starts
        trails = sum(row.count("▒") + row.count("●") for row in rows)
        assert trails >= len(lines) + 1
        note = page.inner_text(".jr-board")
        assert ("draw" in note) if state == "draw" else ("survives and wins" in note)
        assert page.eval_on_selector_all(".jr-chart polyline", "els => els.length") == 2
        page.screenshot(path=str(tmp_path / "tron.png"), full_page=True)
        assert problems == []
        browser.close()


def test_the_game_is_registered_from_its_folder_alone() -> None:
    plugin = get_plugin("tron")
    assert get_game("tron") is Tron
    assert plugin.folder.name == "tron" and plugin.path("viewer.js") is not None
    assert plugin.renderer() is not None and plugin.play is not None
    assert plugin.adapters == ()  # the challenge's starter kits spoke their own protocol
