"""bots/warm.py's run_script, as warm and forked Python bots run their scripts: the
environment it is given exactly (names, values, order, the C library's too), and code compiled
ahead only for the very same source. Each case in a fresh interpreter (run_script replaces
__main__, sys.argv and the environment of the process it runs in)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BOTS = Path(__file__).resolve().parent.parent / "bots"

SCRIPT = r"""
import ctypes, json, os, sys
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
print(json.dumps({
    "said": SAID,
    "argv": sys.argv,
    "env": list(os.environ.items()),
    "libc": {key: (libc.getenv(key.encode()) or b"").decode() for key in ("A", "B", "C")},
}))
"""


def _run(tmp_path: Path, start_env: dict[str, str], words: list[str], ahead: str | None) -> dict:
    """Runs tmp_path/bot.py (SAID = "file") through run_script in a fresh interpreter whose
    environment is ``start_env``, given ``words`` as its environment; with ``ahead``, the
    source of that path as compiled ahead (SAID = "ahead" in the code compiled for it)."""
    script = tmp_path / "bot.py"
    script.write_text("SAID = 'file'\n" + SCRIPT)
    driver = "\n".join(
        [
            "import sys, warm",
            f"script = {str(script)!r}",
            f"ahead = {ahead!r}",
            "if ahead is not None:",
            "    code = compile(\"SAID = 'ahead'\\n\" + " + repr(SCRIPT) + ", script, 'exec')",
            "    warm.AHEAD[script] = (ahead.encode(), code)",
            f"warm.run_script([script.encode(), b'x'], {[w.encode() for w in words]!r})",
        ]
    )
    out = subprocess.run(
        [sys.executable, "-S", "-s", "-c", driver],
        env=start_env,  # PYTHONPATH: bots/, for warm
        cwd=tmp_path,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout
    return dict(json.loads(out))


def test_the_environment_given_replaces_the_one_it_had(tmp_path: Path) -> None:
    base = {"PYTHONPATH": str(BOTS), "A": "1", "B": "2"}
    # The same names in the same order: values changed in place.
    same = _run(tmp_path, base, ["PYTHONPATH=" + str(BOTS), "A=1", "B=3"], None)
    assert same["env"] == [["PYTHONPATH", str(BOTS)], ["A", "1"], ["B", "3"]]
    assert same["libc"] == {"A": "1", "B": "3", "C": ""}
    # Other names, another order: exactly the given ones, in the given order.
    other = _run(tmp_path, base, ["C=5", "A=4", "PYTHONPATH=" + str(BOTS)], None)
    assert other["env"] == [["C", "5"], ["A", "4"], ["PYTHONPATH", str(BOTS)]]
    assert other["libc"] == {"A": "4", "B": "", "C": "5"}
    assert same["argv"] == other["argv"] == [str(tmp_path / "bot.py"), "x"]


def test_code_compiled_ahead_runs_only_for_the_same_source(tmp_path: Path) -> None:
    env = {"PYTHONPATH": str(BOTS), "PATH": os.environ.get("PATH", "/usr/bin")}
    words = [f"{key}={value}" for key, value in env.items()]
    source = "SAID = 'file'\n" + SCRIPT
    assert _run(tmp_path, env, words, source)["said"] == "ahead"
    assert _run(tmp_path, env, words, source + "# changed since\n")["said"] == "file"
    assert _run(tmp_path, env, words, None)["said"] == "file"
