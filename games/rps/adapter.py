"""Runs an rpscontest.com program as an rps judge bot: ``rpscontest.py BOTFILE``.

The program is a script: it is compiled once and executed once per round in one
namespace that lives for the whole match (``__name__ == '__main__'``), with the
global ``input`` set to ``''`` in the first round and to the opponent's previous
move (the ``L`` line's last field) after that. It leaves its move in ``output``,
which must be exactly ``'R'``, ``'P'`` or ``'S'``. Anything else is answered as
``output=<repr>``, and an exception as ``error=<repr>``: the judge disqualifies
both as invalid orders, as rpscontest disqualifies them (details on stderr).
"""

from __future__ import annotations

import builtins
import sys
import traceback
from pathlib import Path
from typing import Any

from hosting import Host, Unloadable, python2_code

MOVES = ("R", "P", "S")
SHOWN = 60  # characters of a bad output quoted in the answer


def compile_program(path: Path) -> tuple[Any, str]:
    """The compiled program, or None and why it cannot run."""
    try:
        translated = python2_code(path)
    except Unloadable as exc:
        return None, str(exc)
    if translated is not None:
        return translated, ""
    try:
        return compile(path.read_bytes(), str(path), "exec"), ""
    except SyntaxError as exc:
        return None, (
            f"{path.name} does not compile under Python 3 ({exc.msg}, line {exc.lineno}); "
            "Python 2 programs must be ported first"
        )
    except (OSError, ValueError) as exc:
        return None, f"cannot read {path}: {exc}"


def shown(value: object) -> str:
    try:
        text = repr(value)
    except BaseException:
        text = f"<unprintable {type(value).__name__}>"
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def main() -> None:
    host = Host()
    path = Path(sys.argv[1]).resolve()
    code, problem = compile_program(path)
    if code is None:
        print(f"rpscontest adapter: {problem}", file=sys.stderr)
        give_up(host, "error=does not compile")
        return
    sys.path.append(str(path.parent))
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
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
            print("rpscontest adapter: the program raised an exception:", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
            give_up(host, f"error={shown(exc)}")
            return
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
