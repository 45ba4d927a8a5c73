"""``judge play``: a person at a real terminal (a pty driven by the test) against built-ins."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT

TIMEOUT = 60.0
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Terminal:
    """The judge on a pseudo-terminal; the test types and reads what a person would."""

    def __init__(self, *args: str) -> None:
        self.master, slave = os.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "judge.cli", "play", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            close_fds=True,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = ""  # everything read so far
        self.pos = 0  # how far expect() has consumed

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: every writer of the terminal is gone
            return False
        if not data:
            return False
        text = data.decode(errors="replace").replace("\r\n", "\n")
        self.seen += ANSI.sub("", text)
        return True

    def expect(self, pattern: str) -> re.Match[str]:
        deadline = time.monotonic() + TIMEOUT
        while True:
            found = re.compile(pattern).search(self.seen, self.pos)
            if found:
                self.pos = found.end()
                return found
            if time.monotonic() > deadline or not self._read(0.2):
                if found := re.compile(pattern).search(self.seen, self.pos):
                    self.pos = found.end()
                    return found
                raise AssertionError(f"never saw {pattern!r}; terminal so far:\n{self.seen}")

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def finish(self) -> str:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline and self._read(0.2):
            if self.proc.poll() is not None and not select.select([self.master], [], [], 0)[0]:
                break
        self.proc.wait(timeout=TIMEOUT)
        os.close(self.master)
        return self.seen


def test_counting_with_invalid_input_re_asked() -> None:
    term = Terminal("counting", "crab", "--rounds", "3", "--seed", "1")
    term.expect(r"round 1\. Start round\.")
    term.expect(r"How far will you count\? \(1-100\) ")
    term.type("abc")
    term.expect("Please type a whole number from 1 to 100.")
    term.type("0")
    term.expect("Please type a whole number from 1 to 100.")
    term.type("100")
    term.expect("1: your opponent stops counting, you keep counting. Your opponent gets 2 points.")
    term.expect("Current points: you 0, your opponent 2")
    term.expect(r"How far will you count\?")
    term.type("1")
    term.expect("Both players stop counting at 1. No points.")
    term.expect(r"How far will you count\?")
    term.type("40")
    term.expect("Current points: you 0, your opponent 4")
    term.expect("Ends with points: 0 4; you are ranked 2.")
    out = term.finish()
    assert "crab wins (0-4)" in out
    assert term.proc.returncode == 0 and "Traceback" not in out


def test_rps_against_rock() -> None:
    term = Terminal("rps", "rock", "--turns", "2", "--seed", "1")
    term.expect("You are player 1, your enemy is player 2.")
    term.expect(r"Your move\? \(R for rock, P for paper, S for scissors\) ")
    term.type("x")
    term.expect("Please type R, P or S")
    term.type("p")
    term.expect("You played paper, the enemy played rock: you win the round.")
    term.expect("The score is 1 to 0.")
    term.type("paper")
    term.expect("Match over: you are ranked 1")
    out = term.finish()
    assert "human wins (2-0)" in out


def test_liarsdice_against_the_robot_as_the_second_seat() -> None:
    term = Terminal("liarsdice", "robot", "--seat", "2", "--seed", "4")
    prompts = 0
    while True:
        found = term.expect(r'You are player "B" \| Hands: (\S+) \| History: (\S*)|You win!')
        if found[0] == "You win!":
            break
        term.expect(r"Enter move .*: ")
        own = dict(entry.split(":") for entry in found[1].split(","))["B"]
        assert own == "".join(sorted(own, reverse=True)) and own.isdigit()
        if prompts == 0:
            term.type("17")  # face 7: re-asked, not counted as a liar call
            term.expect("A bid is quantity\\*10 \\+ face")
        prompts += 1
        term.type("1" + own[0])  # one of my highest face: always true, the robot calls liar
    out = term.finish()
    assert prompts >= 1
    assert out.count("player A loses one die") == 5
    assert "human wins" in out


def test_roshambolo_against_rock() -> None:
    term = Terminal("roshambolo", "rock", "--race-to", "2", "--seed", "3")
    term.expect(r"What is your play\? \(1 for Rock, 2 for Paper, 3 for Scissors\) ")
    term.type("lizard")
    term.expect("Please type 1, 2 or 3")
    term.type("2")
    term.expect("You played PAPER.")
    term.expect(r"played PAPER.*won the point\.|played ROCK.*won the point\.")
    term.expect("The score is 1 to 0.")
    term.expect(r"What is your play\?")
    term.type("paper")
    term.expect("Match over: you are ranked 1")
    assert "human wins" in term.finish()


@pytest.mark.parametrize("args", [["chess"], ["counting", "crab", "--seat", "3"]])
def test_usage_errors(args: list[str]) -> None:
    term = Terminal(*args)
    out = term.finish()
    assert term.proc.returncode == 2 and "Error:" in out and "Traceback" not in out


def test_needs_a_terminal() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "judge.cli", "play", "rps"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2 and "needs a terminal" in proc.stderr
