"""Runs an rpscontest.com program as an rps judge bot: ``rpscontest.py BOTFILE``.

The program is a script: it is compiled once and executed once per round in one
namespace that lives for the whole match (``__name__ == '__main__'``), with the
global ``input`` set to ``''`` in the first round and to the opponent's previous
move (the ``L`` line's last field) after that. It leaves its move in ``output``,
which must be exactly ``'R'``, ``'P'`` or ``'S'``. Anything else is answered as
``output=<repr>``, which the judge disqualifies as an invalid order. A program that does
not compile, or an exception in it, ends the process: a crash, whose last line of stderr
names the exception, its message and the program's line (the traceback above it).
"""

from __future__ import annotations

import builtins
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from hosting import Host, Unloadable, python2_code

MOVES = ("R", "P", "S")
SHOWN = 60  # characters of a bad output quoted in the answer


def compile_program(path: Path) -> tuple[Any, str, bool]:
    """The compiled program (or None and why it cannot run), and whether it is Python 2."""
    try:
        translated = python2_code(path)
    except Unloadable as exc:
        return None, str(exc), True
    if translated is not None:
        return translated, "", True
    try:
        return compile(path.read_bytes(), str(path), "exec"), "", False
    except SyntaxError as exc:
        return (
            None,
            f"{path.name} does not compile under Python 3 ({exc.msg}, line {exc.lineno}); "
            "Python 2 programs must be ported first",
            False,
        )
    except (OSError, ValueError) as exc:
        return None, f"cannot read {path}: {exc}", False


def shown(value: object) -> str:
    try:
        text = repr(value)
    except BaseException:
        text = f"<unprintable {type(value).__name__}>"
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def main() -> None:
    host = Host()
    path = Path(sys.argv[1]).resolve()
    code, problem, translated = compile_program(path)
    if code is None:
        print(f"rpscontest adapter: {problem}", file=sys.stderr)
        raise SystemExit(1)  # a crash at its start, the reason on stderr
    sys.path.append(str(path.parent))
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    if translated:
        import py2compat

        py2compat.builtins_for(namespace)
    for message in host.messages():
        if any(line.startswith("END") for line in message):
            return
        previous = ""
        for line in message:
            fields = line.split()
            if fields and fields[0] == "L" and len(fields) == 3:
                previous = fields[2]
        namespace["input"] = previous
        try:
            exec(code, namespace)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            crash(exc, path)
        output = namespace.get("output")
        # str subclasses count (numpy.str_ from np.random.choice is common), as on rpscontest
        if isinstance(output, str) and str(output) in MOVES:
            host.answer(str(output))
            continue
        what = "not set" if "output" not in namespace else shown(output)
        print(
            f"rpscontest adapter: output is {what}; it must be exactly 'R', 'P' or 'S'",
            file=sys.stderr,
        )
        give_up(host, f"output={shown(output)}")
        return


def crash(exc: BaseException, path: Path) -> None:
    """End the process on the program's exception: a crash, not an order the judge refuses
    (the program did not answer badly, it failed)."""
    print("rpscontest adapter: the program raised an exception:", file=sys.stderr)
    traceback.print_exc(file=sys.stderr)
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    where = f" (line {frames[-1].lineno} of {path.name})" if frames else ""
    message = str(exc).splitlines()[0] if str(exc) else ""
    print(f"{type(exc).__name__}: {message}"[: SHOWN * 3] + where, file=sys.stderr)
    sys.stderr.flush()
    os._exit(1)


def give_up(host: Host, answer: str) -> None:
    """Send an answer the judge refuses (so it disqualifies the bot), then wait for the end.

    Answering, rather than exiting, makes the outcome the same every time:
    invalid_order, with the answer quoted in the reason.
    """
    sys.stderr.flush()
    host.answer(answer)
    for _ in host.messages():
        pass


if __name__ == "__main__":
    main()
