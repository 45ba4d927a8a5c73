"""The Python 2 translation's parser library, fissix (lib2to3's maintained fork: lib2to3 left
the standard library in Python 3.13), as every supported Python runs it (docs/portability.md).
The translation's meaning is tested in test_adapters_python2.py and test_py2order.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

TRANSLATE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from bots.adapters import py2compat
text = py2compat.translate(sys.argv[2])
print(json.dumps({"text": text, "modules": sorted(m for m in sys.modules if "2to3" in m)}))
"""


def translated(tmp_path: Path, source: str) -> dict[str, object]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    done = subprocess.run(
        [sys.executable, "-c", TRANSLATE, str(ROOT), source],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_translation_uses_no_lib2to3_and_writes_nothing_in_the_home(tmp_path: Path) -> None:
    """lib2to3 is gone in 3.13; fissix would cache its grammar in the user's (or a bot's)
    home: a file another process could plant for it to unpickle."""
    result = translated(tmp_path, "d = {}\nif d.has_key(1):\n    print 'yes'\n")
    assert result["modules"] == []
    assert "print('yes')" in str(result["text"])
    assert "1 in d" in str(result["text"])
    assert list((tmp_path / "home").iterdir()) == []


def test_translation_keeps_every_line_where_it_was(tmp_path: Path) -> None:
    """Python 2's sort(cmp) is py2_sort's, at run time: no fixer adds an import line (fissix's
    fix_sorted would), so a traceback's line numbers are the bot file's."""
    source = (
        "moves = ['R', 'P', 'S']\n"
        "moves.sort(lambda a, b: cmp(b, a))\n"
        "best = sorted(moves, cmp=lambda a, b: cmp(a, b))\n"
        "print best[0], moves[0]\n"
    )
    text = str(translated(tmp_path, source)["text"])
    assert "cmp_to_key" not in text
    assert text.splitlines()[1:3] == source.splitlines()[1:3]
    assert len(text.splitlines()) == len(source.splitlines())


RUN_PYTHON2 = """
import json, sys
sys.path[:0] = [sys.argv[1] + "/bots/adapters", sys.argv[1]]
import py2compat
names = {"__builtins__": py2compat.install(), "__name__": "bot"}
source = sys.argv[2]
exec(py2compat.compile_translated(py2compat.translate(source), "bot.py"), names)
print(json.dumps(names["result"]))
"""


def run_python2(source: str) -> object:
    done = subprocess.run(
        [sys.executable, "-c", RUN_PYTHON2, str(ROOT), source],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_sum_adds_floats_as_python2_did_on_every_version() -> None:
    """Python 3.12's sum compensates floats' rounding (python2.7 gives 0.9999999999999999
    here, 3.12 1.0): two rpscontest entries comparing such sums moved otherwise."""
    result = run_python2(
        "tenths = [0.1] * 10\n"
        "result = [repr(sum(tenths)), sum(tenths, 0.5) == 1.5]\n"
        "result += [sum([1, 2, 3]), sum([[1], [2]], [])]\n"
    )
    assert result == ["0.9999999999999999", False, 6, [1, 2]]
