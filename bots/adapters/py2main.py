"""Runs a Python 2 program that speaks the protocol itself: ``py2main.py BOTFILE --python2 T``.

The judge starts a Python 2 ``.py`` bot that needs no adapter through this script, with
the file's Python 3 translation ``T`` (see py2compat.py). It runs as ``__main__`` with
the program's own ``sys.argv[0]``, its directory first on ``sys.path`` and stdin/stdout
untouched, as ``python2 BOTFILE`` would run it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

from hosting import Unloadable, python2_code


def main() -> None:
    file = Path(sys.argv[1]).resolve()
    try:
        code = python2_code(file)
    except Unloadable as exc:
        raise SystemExit(f"python2: {exc}") from None
    if code is None:
        raise SystemExit("py2main.py BOTFILE --python2 TRANSLATION: the translation is missing")
    sys.argv = [str(file)]
    sys.path[0] = str(file.parent)
    program = ModuleType("__main__")
    program.__file__ = str(file)
    sys.modules["__main__"] = program
    import py2compat

    py2compat.builtins_for(program.__dict__)
    exec(code, program.__dict__)


if __name__ == "__main__":
    main()
