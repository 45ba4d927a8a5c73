"""A person's seat in ``judge play``: the terminal a game's ``human.py`` talks to, and helpers
for reading the judge's messages (bot-side, standard library only)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TextIO


class Terminal:
    def __init__(self, path: str) -> None:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        self.input: TextIO = os.fdopen(os.dup(fd), "r", encoding="utf-8", errors="replace")
        self.output: TextIO = os.fdopen(fd, "w", encoding="utf-8")

    def say(self, text: str = "") -> None:
        self.output.write(text + "\n")
        self.output.flush()

    def ask(self, prompt: str, parse: Callable[[str], str | None], help_text: str) -> str:
        """Ask until ``parse`` accepts the answer; EOF ends the process (the seat leaves)."""
        while True:
            self.output.write(prompt)
            self.output.flush()
            line = self.input.readline()
            if not line:
                self.say("\n(end of input: leaving the match)")
                raise SystemExit(0)
            answer = parse(line.strip())
            if answer is not None:
                return answer
            self.say(help_text)


def fields(message: list[str], key: str) -> list[str]:
    return [line[len(key) + 1 :] for line in message if line.split(" ", 1)[0] == key]


def end_line(message: list[str]) -> list[str] | None:
    for line in message:
        if line.startswith("END"):
            return line.split()[1:]
    return None
