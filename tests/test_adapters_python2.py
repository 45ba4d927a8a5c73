"""Python 2 bot files run unchanged: detected, translated with Python 2 meaning, real matches.

The expected moves below were computed once with a real Python 2.7.18, fed the same calls
(tests/bots/py2/replay_in_python2.py); the bots are written so that classic division, the
Python 2 ``random`` draws and ``cmp`` sorting decide their moves. Where python2.7 exists,
``test_logs_equal_a_real_python2s`` checks the same thing live.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from bots.adapters import py2compat
from games.seeds import seat_seed, secret_from_seed
from judge import adapters
from judge.bots import resolve
from judge.models import MatchResult, MatchSpec
from judge.runner import run_match
from tests.conftest import ROOT, TEST_BOTS

PY2_BOTS = TEST_BOTS / "py2"


def real_python2() -> str:
    """A python2.7 that runs (a pyenv shim without a selected 2.7 does not), or ''."""
    for candidate in (
        os.environ.get("PYTHON2", ""),
        "/root/.pyenv/versions/2.7.18/bin/python2.7",
        shutil.which("python2.7"),
    ):
        if not candidate:
            continue
        try:
            works = (
                subprocess.run(
                    [candidate, "-c", "pass"], capture_output=True, timeout=30
                ).returncode
                == 0
            )
        except (OSError, subprocess.TimeoutExpired):
            continue  # not on this machine
        if works:
            return candidate
    return ""


PYTHON2 = real_python2()


async def match(game: str, bot: str, opponent: str, seed: int, **options: object) -> MatchResult:
    spec = MatchSpec(
        game=game,
        seed=seed,
        options=options,
        bots=[resolve(str(PY2_BOTS / bot), game), resolve(opponent, game)],
    )
    return await run_match(spec)


def log(result: MatchResult, field: int) -> list[str]:
    """One field of the first bot's own log lines ("kind|...") on its stderr."""
    return [line.split("|")[field] for line in result.players[0].stderr.splitlines() if "|" in line]


# -- detection ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        'print "hi"\n',
        "x = `1`\n",
        "if 1 <> 2: pass\n",
        "try:\n    pass\nexcept ValueError, e:\n    pass\n",
        "exec 'x = 1'\n",
        "x = 10L\n",
        "for i in xrange(3): pass\n",
        "d = {}\nd.has_key(1)\n",
        "for k, v in {}.iteritems(): pass\n",
        "s = raw_input()\n",
        "u = unicode(3)\n",
        "k = {}.keys()\nk.sort()\n",
        "{}.keys().sort()\n",
        "x = {}.keys()[0]\n",
        "sorted([], cmp=lambda a, b: 0)\n",
        "[].sort(lambda a, b: 0)\n",
        "import cPickle\n",
        "import sys\nprint >>sys.stderr, 1\n",
        "import sys\nn = sys.maxint\n",
        "x = reduce(max, [1])\n",
        "# python2\nx = 1 / 2\n",
        "#!/usr/bin/env python2.7\nx = 1\n",
    ],
)
def test_python2_files_are_recognised(source: str) -> None:
    assert py2compat.python2_reason(source)


@pytest.mark.parametrize(
    "source",
    [
        "print('hi')\nx = 1 / 2\n",
        "for k in {}.keys(): pass\nv = list({}.items())\n",
        "def f(*, a): return {**a}\n",
        "x = [i for i in map(str, range(3))]\n",
        "try:\n    xrange\nexcept NameError:\n    xrange = range\nfor i in xrange(2): pass\n",
        "def cmp(a, b): return 0\nsorted([], key=len)\n",
        "string = 'a b'\nstring.split()\n",
        "# python3\nprint 'x'\n",
        "#!/usr/bin/env python3\nx = 1\n",
        "",
    ],
)
def test_python3_files_are_left_alone(source: str) -> None:
    assert py2compat.python2_reason(source) == ""


def test_python3_bot_files_start_exactly_as_before() -> None:
    # counting's original is Python 3: its entries are never translated unless Python 2 only
    originals = sorted((TEST_BOTS / "original").glob("ct_*.py"))
    for path in [*originals, PY2_BOTS / "ct_unmarked.py", PY2_BOTS / "ct_py3_lookalike.py"]:
        argv = resolve(str(path), "counting").argv
        assert "--python2" not in argv and argv[-1] == str(path), path


@pytest.mark.parametrize(
    ("game", "source"),
    [
        ("rps", "output = 'R'\n"),
        ("rps", "if input == '':\n    n = 0\nn += 1\noutput = 'RPS'[n / 2 % 3]\n"),
        ("liarsdice", "def get_play(me, hands, history):\n    return 1\n"),
        ("roshambolo", "def play(game_id, my_id, opponent_id):\n    return 1\n"),
    ],
)
def test_entries_of_python2_contests_run_as_python2_without_python3_evidence(
    game: str, source: str, tmp_path: Path
) -> None:
    bot = tmp_path / "entry.py"
    bot.write_text(source)
    argv = resolve(str(bot), game).argv
    assert "--python2" in argv, argv


@pytest.mark.parametrize(
    "source",
    [
        "# python3\noutput = 'R'\n",
        "n = 3\noutput = f'{\"RPS\"[n % 3]}'\n",
        "import random\noutput = random.choices('RPS')[0]\n",
        "def move() -> str:\n    return 'R'\noutput = move()\n",
        "print('thinking', end='')\noutput = 'R'\n",
    ],
)
def test_entries_with_python3_evidence_keep_python3_meaning(source: str, tmp_path: Path) -> None:
    bot = tmp_path / "entry.py"
    bot.write_text(source)
    assert py2compat.python3_evidence(source)
    argv = resolve(str(bot), "rps").argv
    assert "--python2" not in argv, argv


def test_translations_are_cached_by_content(tmp_path: Path) -> None:
    first = adapters.python2_translation("p_py2_freq", (PY2_BOTS / "p_py2_freq.py").read_bytes())
    again = adapters.python2_translation("p_py2_freq", (PY2_BOTS / "p_py2_freq.py").read_bytes())
    assert isinstance(first, Path) and again == first
    assert first.parent.name != "python2" and os.listdir(first.parent) == ["p_py2_freq.py"]
    text = first.read_text()
    assert "print(" in text and " in seen" in text and "counts.values()" in text
    assert (PY2_BOTS / "p_py2_freq.py").read_text().count("\n") == text.count("\n")
    copy = tmp_path / "p_py2_freq.py"
    shutil.copy(PY2_BOTS / "p_py2_freq.py", copy)
    assert resolve(str(copy), "roshambolo").argv[-1] == str(first)  # same content, same file


def test_classic_division_and_other_python2_meanings() -> None:
    source = (
        "a = 7 / 2\nb = -7 / 2\nc = 7.0 / 2\nd = 7\nd /= 2\ne = [9, 8]\ne[0] /= 2\n"
        "f = sorted([3, 1, 2], lambda x, y: cmp(y, x))\ng = round(2.5), round(-0.5)\n"
        "h = True / 2\nexec 'i = 5 / 2'\n"
    )
    future = "from __future__ import division\nx = 7 / 2\n"
    # In a process of its own: install() makes the whole process's random Python 2's.
    program = (
        "import json, sys, py2compat as p\np.install()\n"
        "for text in json.load(sys.stdin):\n"
        "    namespace = {}\n"
        "    p.builtins_for(namespace)\n"
        "    exec(p.compile_translated(p.translate(text), 't'), namespace)\n"
        "    print(repr({k: v for k, v in namespace.items() if len(k) == 1}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", program],
        input=json.dumps([source, future]),
        capture_output=True,
        text=True,
        cwd=ROOT / "bots" / "adapters",
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    got, got_future = proc.stdout.splitlines()
    assert got == repr(
        {
            "a": 3,
            "b": -4,
            "c": 3.5,
            "d": 3,
            "e": [4, 8],
            "f": [3, 2, 1],
            "g": (3.0, -1.0),
            "h": 0,
            "i": 2,
        }
    )
    assert got_future == repr({"x": 3.5})


# -- real matches, one per adapter, and a Python 2 protocol bot ---------------------------------


async def test_roshambolo_module() -> None:
    result = await match("roshambolo", "p_py2_freq.py", "random", seed=7, race_to=10)
    assert [p.outcome for p in result.players] == ["ok", "ok"]
    plays = [m for kind, m in zip(log(result, 0), log(result, 4), strict=True) if kind == "play"]
    assert " ".join(plays) == "1 3 3 1 1 1 1 2 2 3 3 2 2 3 2"
    assert result.summary == "games 0-1, rounds 5-10"


async def test_liarsdice_contest_entry() -> None:
    result = await match("liarsdice", "p_py2_contest.py", "computer", seed=3)
    assert [p.outcome for p in result.players] == ["ok", "ok"]
    assert ",".join(log(result, 4)) == "25,0,0,16,0,0,15,0,0,25,0,16,0,15,0,0"
    assert "calling liar on 34" in result.players[0].stderr  # a backtick repr
    assert result.winner == 0


async def test_counting_strategy() -> None:
    result = await match("counting", "ct_py2.py", "naive", seed=5, rounds=12)
    assert log(result, 2) == [
        "100",
        "78",
        "71",
        "67",
        "64",
        "63",
        "58",
        "57",
        "55",
        "54",
        "51",
        "51",
    ]
    assert [p.score for p in result.players] == [988, 200]


async def test_rpscontest_program() -> None:
    result = await match("rps", "rps_py2_decay.py", "random", seed=4, turns=40)
    assert "".join(log(result, 2)) == "SPSPPRPSPRPRRRPPPRSPPRPRPSRSPPPRPRRSRRRR"
    assert [p.score for p in result.players] == [14, 13]


async def test_python2_protocol_bot() -> None:
    result = await match("rps", "rps_py2_protocol.py", "cycle", seed=2, turns=12)
    assert resolve(str(PY2_BOTS / "rps_py2_protocol.py"), "rps").argv[2].endswith("py2main.py")
    moves = [line.split()[2] for line in result.players[0].stderr.splitlines()]
    assert "".join(moves) == "RPRSRSRPRSRS" and result.summary == "2-4"


async def test_the_python2_marker_decides_what_slash_means() -> None:
    marked = await match("counting", "ct_marked.py", "naive", seed=1, rounds=3)
    unmarked = await match("counting", "ct_unmarked.py", "naive", seed=1, rounds=3)
    # Python 2 sends 75 every round (75 - 1 / 2 == 75), Python 3 75, 74 (74.5), 74: naive
    # (100, then one below a lost value) gets 74 past the first and ties the second.
    assert [p.score for p in marked.players] == [150, 148]
    assert [p.score for p in unmarked.players] == [150, 146]


async def test_a_python3_lookalike_runs_untranslated() -> None:
    result = await match("counting", "ct_py3_lookalike.py", "naive", seed=1, rounds=2)
    assert result.players[0].stderr.startswith("99.0 [0, 1]\n")  # true division, its own names
    assert [p.outcome for p in result.players] == ["ok", "ok"]


@pytest.mark.parametrize("adapter", [None, "roshambolo"])
async def test_a_file_neither_python_fails_at_its_start_with_the_reason(
    adapter: str | None,
) -> None:
    spec = MatchSpec(
        game="roshambolo",
        seed=1,
        options={"race_to": 3},
        bots=[
            resolve(str(PY2_BOTS / "p_broken.py"), "roshambolo", adapter=adapter),
            resolve("rock", "roshambolo"),
        ],
    )
    result = await run_match(spec)
    broken = result.players[0]
    assert broken.outcome in ("crash", "closed_stdout") and broken.turn == 1
    assert "p_broken.py does not compile under Python 3 (invalid syntax, line 3)" in broken.stderr
    assert "cannot run as Python 2: not valid Python 2 either" in broken.stderr
    assert "Traceback" not in broken.stderr and result.winner == 1


def test_judge_match_runs_a_python2_file() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "judge.cli",
            "match",
            "liarsdice",
            str(PY2_BOTS / "p_py2_contest.py"),
            "computer",
            "--seed",
            "3",
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert [p["outcome"] for p in result["players"]] == ["ok", "ok"]
    assert result["players"][0]["name"] == "p_py2_contest"


@pytest.mark.skipif(not PYTHON2, reason="no python2.7 on this machine")
@pytest.mark.parametrize(
    ("style", "game", "bot", "opponent", "options"),
    [
        ("roshambolo", "roshambolo", "p_py2_freq.py", "counter", {"race_to": 15}),
        ("liarsdice", "liarsdice", "p_py2_contest.py", "computer", {}),
        ("counting", "counting", "ct_py2.py", "tit_for_tat", {"rounds": 20}),
        ("rpscontest", "rps", "rps_py2_decay.py", "predictor", {"turns": 100}),
    ],
)
async def test_logs_equal_a_real_python2s(
    tmp_path: Path,
    style: str,
    game: str,
    bot: str,
    opponent: str,
    options: dict[str, object],
) -> None:
    for seed in (11, 12):
        result = await match(game, bot, opponent, seed=seed, **options)
        ours = [line for line in result.players[0].stderr.splitlines() if "|" in line]
        calls = tmp_path / "calls.log"
        calls.write_text("".join(f"{line}\n" for line in ours))
        proc = await trio.run_process(
            [
                PYTHON2,
                str(PY2_BOTS / "replay_in_python2.py"),
                style,
                str(PY2_BOTS / bot),
                str(seat_seed(secret_from_seed(seed), 0)),  # the bot's JUDGE_SEED
                str(calls),
            ],
            capture_stdout=True,
            capture_stderr=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        theirs = [line for line in proc.stdout.decode().splitlines() if "|" in line]
        assert len(ours) > 10 and theirs == ours


@pytest.mark.parametrize(
    ("source", "where"),
    [
        ("x = [1,\n", "EOF in multi-line statement at line 2"),
        ("def f(:\n    pass\n", "bad input at line 1"),
    ],
)
def test_untranslatable_files_say_where(source: str, where: str) -> None:
    with pytest.raises(py2compat.TranslationError) as caught:
        py2compat.translate(source)
    assert str(caught.value) == f"not valid Python 2 either: {where}"


async def test_a_resub_one_liner_runs_its_hidden_python2_entry() -> None:
    """The 2014 contest's one-liners: ``exec("import re;import base64")``, then the entry
    decoded from base64 and re-indented with ``re.sub`` (a 2.7 str, so the decoded bytes
    must stay text), then exec'd as Python 2 (print statement, classic division)."""
    result = await match("liarsdice", "ld_resub_oneliner.py", "computer", seed=3)
    entry = result.players[0]
    assert entry.outcome == "ok" and entry.caught == 0, entry.stderr
    openings = [line.split() for line in entry.stderr.splitlines() if line.startswith("one-liner")]
    assert openings and all(words[-1].isdigit() for words in openings)


async def test_a_wrapper_that_keeps_its_code_in_a_string_runs_it() -> None:
    """``codes = \"\"\"<base64>\"\"\"`` then ``eval(compile(b64decode(codes), ...))``: a string
    assigned first still makes the file a contest wrapper (it used to run as a plain script
    and exit at once)."""
    result = await match("liarsdice", "ld_codes_wrapper.py", "computer", seed=3)
    entry = result.players[0]
    assert entry.outcome == "ok" and entry.caught == 0, entry.stderr
    assert "codes wrapper opens" in entry.stderr


async def test_an_entry_importing_what_scipy_moved_since_2014_plays() -> None:
    """``from scipy.misc import comb``: scipy.misc lost comb; it is put back for entries."""
    result = await match("liarsdice", "ld_scipy_misc.py", "computer", seed=3)
    entry = result.players[0]
    assert entry.outcome == "ok" and entry.caught == 0, entry.stderr
    assert "scipy entry raises" in entry.stderr


async def test_a_base64_wrapper_runs_its_hidden_python2_entry() -> None:
    """A liar's dice entry hidden as `eval(compile(b64decode(...)))`: no get_play to be seen
    and no stdin read, so it is a contest entry for the game's adapter, and the Python 2
    code it compiles at run time is translated (print statement, classic division)."""
    path = PY2_BOTS / "ld_b64_wrapper.py"
    assert py2compat.python2_reason(path.read_text()) != ""
    argv = adapters.argv_for(path, "liarsdice", None)
    assert any(word.endswith("games/liarsdice/adapter.py") for word in argv)
    result = await match("liarsdice", "ld_b64_wrapper.py", "computer", seed=3)
    wrapper = result.players[0]
    assert wrapper.outcome == "ok" and wrapper.caught == 0, wrapper.stderr
    # Its Python 2 print statement, with total / 3 as Python 2's integer division.
    assert "opening with " in wrapper.stderr
    openings = [line.split() for line in wrapper.stderr.splitlines() if line.startswith("opening")]
    assert openings and all(words[2].isdigit() for words in openings)


# What python2.7 printed for the same program (a 64-bit build, no hash randomisation).
PYTHON2_MEANINGS = r"""
import random, hashlib, zlib, collections
random.seed('hello')
seeded = [random.random() for _ in range(2)] + [random.gammavariate(a, 1.0) for a in (1.0, 2.5)]
w = random.WichmannHill(12345)
wichmann = [w.random() for _ in range(2)] + [w.choice('RPS')]
compressed = len(zlib.compress('RPSRPSRPPS' * 10))
digest = hashlib.md5('RPS').hexdigest(), ord(hashlib.md5('RPS').digest()[0])
ordered = sorted([3, None, 'a', 1.5, (1,), [2]]), max([None, -5]), min(['x', 2]), None < 0
d = {}
for k in ['R', 'P', 'S', 'RR', 'PS']:
    d[k] = len(k)
orders = d.keys(), {'R': 1, 'P': 2, 'S': 3}.items(), list(set('RPSPSR'))
common = collections.Counter('SPRSPRRS').most_common()
def late():
    total = 0
    global total
    total = 5
late()
"""


def test_python2_meanings_of_the_library_and_of_dicts_match_python27() -> None:
    program = (
        "import json, sys, py2compat as p\np.install()\n"
        "namespace = {}\np.builtins_for(namespace)\n"
        "exec(p.compile_translated(p.translate(sys.stdin.read()), 't'), namespace)\n"
        "names = ('seeded', 'wichmann', 'compressed', 'digest', 'ordered', 'orders', 'common',"
        " 'total')\n"
        "print(repr([namespace[n] for n in names]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", program],
        input=PYTHON2_MEANINGS,
        capture_output=True,
        text=True,
        cwd=ROOT / "bots" / "adapters",
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == repr(
        [
            [0.8180391270568783, 0.4954944300274843, 1.5158772152527493, 1.7011124466172451],
            [0.7580852224968586, 0.6326419980594995, "R"],
            17,
            ("acc8e1460e0d85b64f57ca76d5e7fb98", 172),
            ([None, 1.5, 3, [2], "a", (1,)], -5, 2, True),
            (["P", "S", "R", "RR", "PS"], [("P", 2), ("S", 3), ("R", 1)], ["P", "S", "R"]),
            [("S", 3), ("R", 3), ("P", 2)],
            5,
        ]
    )
