"""A warm Python bot (judge/sandbox/isolated.py): started ahead in a sandbox of its own, like
any bot, with the modules most bots import already imported. The first thing on its stdin
says which program it is to be: 8 digits (a length), then that many bytes of NUL-separated
words: the working directory, the number of program words, the words (the script first),
then the environment. It then runs the script as ``python -S -s SCRIPT ARGS`` would.
Nothing else is read from stdin here, so the match's messages are left for the bot.
"""

# What built-in bots and botlib import anyway; nothing that reads the environment or the
# seed at import. (Interpreter start-up is most of what is saved.)
import importlib  # noqa: F401
import os
import random  # noqa: F401
import sys

TYPE_CHECKING = False  # not typing's (a warm start would import it)
if TYPE_CHECKING:
    from types import CodeType

# Scripts the fork server compiled ahead (bots/forkserver.py): path -> (source, code). A bot
# whose script at that path has exactly that source runs that code, as compiled here.
AHEAD: "dict[str, tuple[bytes, CodeType]]" = {}


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
    wanted = [entry.partition(b"=") for entry in environment]
    if [key for key, _, _ in wanted] == list(os.environb):
        # The same names in the same order (a fork server's environment is its bots', with
        # seed 0): only the values that differ are set (the order stays the bot's own, and
        # nothing is freed and made again).
        for key, _, value in wanted:
            if os.environb[key] != value:
                os.environb[key] = value
    else:
        os.environ.clear()
        for key, _, value in wanted:
            os.environb[key] = value
    script = os.path.abspath(argv[0])
    sys.argv = argv
    sys.path[0] = os.path.dirname(script)
    # As the interpreter runs a script (not runpy.run_path, which imports pkgutil, typing
    # and re on every start): a fresh __main__ module, the script compiled and run in it.
    main_module = type(sys)("__main__")
    main_module.__file__ = script
    main_module.__builtins__ = __builtins__
    sys.modules["__main__"] = main_module
    with open(script, "rb") as handle:
        source = handle.read()
    ahead = AHEAD.get(script)
    code = ahead[1] if ahead is not None and ahead[0] == source else _compile(source, script)
    exec(code, main_module.__dict__)


def _compile(source: bytes, script: str) -> "CodeType":
    return compile(source, script, "exec")


def compile_ahead(script: str) -> None:
    """Compiles ``script`` now for the bots forked later (compiling costs a bot ~0.25 ms of
    CPU); a bot whose script differs from this source compiles its own."""
    with open(script, "rb") as handle:
        source = handle.read()
    AHEAD[script] = (source, _compile(source, script))


if __name__ == "__main__":
    main()
