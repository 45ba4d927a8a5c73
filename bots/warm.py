"""A warm Python bot (judge/sandbox/isolated.py): started ahead in a sandbox of its own, like
any bot, with the modules most bots import already imported. The first thing on its stdin
says which program it is to be: 8 digits (a length), then that many bytes of NUL-separated
words: the working directory, the number of program words, the words (the script first),
then the environment. It then runs the script as ``python -S -s SCRIPT ARGS`` would.
Nothing else is read from stdin here, so the match's messages are left for the bot.
"""

# What built-in bots and botlib import anyway; nothing that reads the environment or the
# seed at import. (Interpreter start-up is most of what is saved: ~6 ms of CPU here.)
import importlib  # noqa: F401
import os
import random  # noqa: F401
import sys


def _read_exactly(size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = os.read(0, size - len(data))
        if not chunk:
            return b""
        data += chunk
    return data


def main() -> None:
    head = _read_exactly(8)
    if not head:
        os._exit(0)  # never given a bot
    words = _read_exactly(int(head)).split(b"\0")
    count = int(words[1])
    os.chdir(words[0])
    run_script(words[2 : 2 + count], words[2 + count :])


def run_script(program: list[bytes], environment: list[bytes]) -> None:
    """Runs SCRIPT ARGS (``program``) with ``environment`` (KEY=VALUE words) as the only
    environment, in the working directory already chosen (bots/forkserver.py too)."""
    argv = [os.fsdecode(word) for word in program]
    os.environ.clear()
    for entry in environment:
        key, _, value = entry.partition(b"=")
        os.environb[key] = value
    script = os.path.abspath(argv[0])
    sys.argv = argv
    sys.path[0] = os.path.dirname(script)
    # As the interpreter runs a script (not runpy.run_path, which imports pkgutil, typing
    # and re: 8 ms of CPU here): a fresh __main__ module, the script compiled and run in it.
    main_module = type(sys)("__main__")
    main_module.__file__ = script
    main_module.__builtins__ = __builtins__
    sys.modules["__main__"] = main_module
    with open(script, "rb") as handle:
        code = compile(handle.read(), script, "exec")
    exec(code, main_module.__dict__)


if __name__ == "__main__":
    main()
