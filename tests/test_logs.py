"""Log lines name the exception they report: type, message and traceback, in both formats."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.server_helpers import ROOT

SCRIPT = """
import sys
from judge import logs
logs.configure("warning", sys.argv[1])
log = logs.get_logger("judge.test")
try:
    raise OSError(28, "No space left on device")
except OSError:
    log.exception("match bookkeeping failed", match_id="m1")
"""


def run(fmt: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, fmt], capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def test_json_lines_on_stdout_carry_the_exception() -> None:
    done = run("json")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    line = json.loads(done.stdout)
    assert line["event"] == "match bookkeeping failed" and line["match_id"] == "m1"
    assert line["error_type"] == "OSError"
    assert line["error"] == "[Errno 28] No space left on device"
    assert line["exception"].startswith("Traceback (most recent call last):")
    assert "exc_info" not in line


def test_console_lines_on_stderr_carry_the_exception() -> None:
    done = run("console")
    assert done.returncode == 0 and done.stdout == "", done.stdout
    assert "match bookkeeping failed" in done.stderr
    assert "error_type=OSError" in done.stderr
    assert "Traceback (most recent call last):" in done.stderr
    assert "OSError: [Errno 28] No space left on device" in done.stderr
