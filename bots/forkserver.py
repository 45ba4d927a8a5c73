"""The fork server (judge/sandbox/forkserver.py): one Python interpreter, started by the judge
outside every sandbox, that has imported what Python bots import and forks a child per bot.

    python [-S] -s forkserver.py LIBRARY JUDGE_PID SOCKET_FD MODE   (its bots' flags)

MODE says what is imported ahead: "stdlib" (what any Python bot starts with), "bots" (and
bots/botlib.py), "games" (and every game's built-in bots, each then played through its game's
REHEARSAL before any bot is forked: see _rehearse). It never reads anything of a bot.
Per start it gets, on the socket, only descriptors: the bot's stdin (read end), stdout and
stderr (write ends), a pipe the judge writes the start's words to, and at the cgroups layer
the bot's v2 cgroup. launcher_serve (launcher.c, the loop, in C) forks a child of the
judge, into that cgroup, and answers with its pid. The child, in C only, reads the words (the
launcher's options, the program's words, its environment) and takes the launcher's steps in
the launcher's own code (cgroups, rlimits, fresh namespaces, the bot's file system, its uid,
no_new_privs, Landlock, seccomp); in the bot's process the call returns, the program's
words and environment copied into the fork server's buffer (the bot's own copy of it), and
the bot's script runs as ``python [-S] -s SCRIPT ARGS`` would (bots/warm.py).
"""

import _signal  # type: ignore[import-not-found]
import atexit  # (_finish's: made once here, not in every bot, each copying its pages)
import ctypes
import gc
import importlib
import os
import random  # noqa: F401  (what every bot imports; its at-fork hook reseeds it)
import signal
import socket
import sys
import types

import warm

PR_SET_PDEATHSIG = 1
GO_MAX = 65536  # launcher.c's: the most a start's words take
BIND_NOW = "LD_BIND_NOW"  # set by the judge for this interpreter only (see serve)
_kept: list[object] = []  # what a bot must not free (see _bot)
# Plays of each built-in ahead: 3.11 quickens a function on its 8th call, 3.12 and 3.13
# specialize an instruction on its 2nd run (on any other, rehearsals only cost their time).
REHEARSALS = 10
REHEARSAL_MAX = 4096  # written to a pipe whole before it is read (a pipe holds a page)
REHEARSAL_CPU = 2.0  # seconds of CPU all rehearsals may take (they take ~0.06 here)


def _preimport(mode: str) -> None:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path[0] = root
    if mode in ("bots", "games"):
        importlib.import_module("bots.botlib")
    games = []
    if mode == "games":
        folder = os.path.join(root, "games")
        for name in sorted(os.listdir(folder)):
            if os.path.exists(os.path.join(folder, name, "bots.py")):
                games.append(importlib.import_module(f"games.{name}.bots"))
    if mode in ("bots", "games"):
        play = os.path.join(root, "bots", "play.py")
        warm.compile_ahead(play)  # the built-ins' script
        _rehearse(play, games)


class _OutOfTime(Exception):
    """The rehearsals took their budget of CPU (a built-in that never ends, say)."""


_timed = [False]  # the rehearsals' timer is armed (a late signal raises nothing)


def _out_of_time(signum: int, frame: object) -> None:
    if _timed[0]:
        raise _OutOfTime


def _rehearse(play: str, games: list[types.ModuleType]) -> None:
    """Plays every built-in through its game's REHEARSAL (the messages a seat gets in a short
    match) REHEARSALS times, here, before any bot is forked: the code a built-in runs is then
    quickened, and its attribute lookups cached, in the memory every bot shares, instead of
    written (its pages copied) in each bot. Only the judge's own code runs, on its own input,
    for REHEARSAL_CPU seconds of CPU at most; what it changed is put back (fds 0-2, sys.argv,
    sys.path, __main__, SIGVTALRM), and stdin is read to its end (nothing left for a bot)."""
    if not games:
        return
    environment = [key + b"=" + value for key, value in os.environb.items()]
    saved = sys.argv, sys.path[0], sys.modules["__main__"]
    saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
    null = os.open(os.devnull, os.O_WRONLY)
    handler = _signal.signal(_signal.SIGVTALRM, _out_of_time)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        _timed[0] = True
        _signal.setitimer(_signal.ITIMER_VIRTUAL, REHEARSAL_CPU)
        for module in games:
            _rehearse_game(play, module, environment)
    except _OutOfTime:
        pass
    finally:
        _timed[0] = False
        _signal.setitimer(_signal.ITIMER_VIRTUAL, 0)
        _signal.signal(_signal.SIGVTALRM, handler)
        sys.stdin.read()  # (what an interrupted one left: its pipe's write end is closed)
        sys.stdout.flush()
        for fd, dup in enumerate(saved_fds):
            os.dup2(dup, fd)
            os.close(dup)
        os.close(null)
        sys.argv, sys.path[0], sys.modules["__main__"] = saved


def _rehearse_game(play: str, module: types.ModuleType, environment: list[bytes]) -> None:
    game = module.__name__.split(".")[1]
    transcript = getattr(module, "REHEARSAL", "").encode()
    if not transcript or len(transcript) > REHEARSAL_MAX:
        return
    for name in module.BOTS:
        program = [os.fsencode(play), game.encode(), name.encode()]
        for _ in range(REHEARSALS):
            read, write = os.pipe()
            os.write(write, transcript)  # (fits in the pipe: nothing waits for it)
            os.close(write)
            os.dup2(read, 0)
            os.close(read)
            try:
                warm.run_script(program, environment)
            except SystemExit:
                pass  # (a bot may end so)
            except _OutOfTime:
                raise
            except Exception:
                break  # (tests/test_forkserver.py checks every built-in plays it)
            finally:
                sys.stdin.read()  # to the end (a built-in that stopped early)


def _bot(
    server: socket.socket, words_buffer: bytearray, size: int
) -> tuple[list[bytes], list[bytes]]:
    """In the bot's process, in its sandbox (launcher_serve returned here): nothing of the
    fork server's to keep."""
    server.detach()  # its descriptor is closed already; the object must not close it again
    words = bytes(memoryview(words_buffer)[:size]).split(b"\0")
    # signal.signal's own function: the module's wrapper makes an enum of the old handler
    # (a ValueError raised and caught on the way: pages of the enum machinery copied).
    _signal.signal(signal.SIGINT, signal.default_int_handler)
    # random is reseeded already (its at-fork hook, run by PyOS_AfterFork_Child): never the
    # state another bot was forked with.
    # A fresh import cache; the fork server's is kept, not freed: freeing it (its finders'
    # listings of whole directories) would copy the pages it touches, in every bot.
    _kept.append(sys.path_importer_cache)
    sys.path_importer_cache = {}
    sys.modules.pop("warm", None)
    program = int(words[0])
    return words[1 : 1 + program], words[1 + program :]


def _signals_as_started_clean() -> None:
    """Signals the judge had ignored (nohup, a shell's background job) are not its bots':
    dispositions as an interpreter started by a clean parent has them (the launcher does the
    same for the bots it execs)."""
    python_ignores = {signal.SIGPIPE, signal.SIGXFSZ}
    for sig in signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP, *python_ignores}:
        if signal.getsignal(sig) == signal.SIG_IGN:
            signal.signal(sig, signal.SIG_DFL)
    if signal.getsignal(signal.SIGINT) == signal.SIG_DFL:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def serve() -> tuple[list[bytes], list[bytes]]:
    """Forks a child per start; returns only in a bot's process (its program and env)."""
    # Started with LD_BIND_NOW (judge/sandbox/forkserver.py): the loader bound every symbol
    # of the interpreter's libraries at start, so no bot binds one on its first call (each
    # such binding writes a library's GOT: its page copied, 11-25 pages a bot). Not the bots'.
    os.environ.pop(BIND_NOW, None)
    _signals_as_started_clean()
    library_path, mode = sys.argv[1], sys.argv[4]
    judge, server_fd = int(sys.argv[2]), int(sys.argv[3])
    library = ctypes.PyDLL(library_path)  # PyDLL: the GIL stays held around the fork
    library.launcher_serve.restype = ctypes.c_long
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != judge:
        os._exit(0)  # the judge is gone already
    server = socket.socket(fileno=server_fd)
    _preimport(mode)
    # Ready, and the top-level modules now imported (a script whose directory holds one of
    # those names is started otherwise: it would import its own).
    names = {name.split(".")[0] for name in sys.modules} - {"__main__", "warm"}
    server.sendall(b"R" + b"\0".join(sorted(os.fsencode(name) for name in names)))
    del names  # freed here, not in every bot (a set of every module's name: pages copied)
    hooks = [
        ctypes.cast(getattr(ctypes.pythonapi, name), ctypes.c_void_p)
        for name in ("PyOS_BeforeFork", "PyOS_AfterFork_Parent", "PyOS_AfterFork_Child")
    ]
    # launcher_serve copies a bot's words here, in the bot's process (launcher.c's GO_MAX bytes;
    # read without a call through ctypes, whose objects' pages a call would copy: ~40 a bot).
    words_buffer = bytearray(GO_MAX)
    words_into = (ctypes.c_char * GO_MAX).from_buffer(words_buffer)
    # What is imported now is never collected: a bot's collections then do not walk (and
    # copy, page by page) the memory it shares with the fork server.
    # compile() makes the interpreter's AST types on its first call: once
    # here, not in every bot (bots/warm.py compiles each bot's script).
    compile("", "<fork server>", "exec")
    gc.collect()
    gc.freeze()
    # The loop is launcher.c's (launcher_serve): per start, the descriptors from the socket,
    # a child forked between the interpreter's before / after-fork calls (the child and the
    # relay and pid 1 it becomes run C only), its pid answered. It returns only in a bot's
    # process, in its sandbox, or when the judge closed its end.
    fd = server.fileno()
    size = library.launcher_serve(fd, *hooks, words_into)
    if size < 0:
        os._exit(0)
    # Not freed on the return (the libraries' objects would be: their pages copied).
    _kept.extend((library, libc, server, hooks, words_into))
    return _bot(server, words_buffer, size)


def _exit_code(exc: SystemExit) -> int:
    """The exit status the interpreter gives an uncaught SystemExit."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    print(exc.code, file=sys.stderr)
    return 1


def _finish(code: int) -> None:
    """Ends the bot as the interpreter's exit would, less the teardown of every object: the
    bot's memory is mostly the fork server's, and freeing it all would copy it page by page
    (2-3 ms of CPU per bot). Non-daemon threads are waited for, atexit handlers run, stdout
    and stderr are flushed; objects still alive are not finalized (their buffered files,
    other than stdout and stderr, are not flushed: the sandbox's /tmp ends with it anyway)."""
    threading = sys.modules.get("threading")
    # (the interpreter's own exit step, private: where it is missing, threads are not waited)
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120  # as the interpreter does when flushing stdout fails
    os._exit(code)


if __name__ == "__main__":
    _program, _environment = serve()
    try:
        warm.run_script(_program, _environment)
    except SystemExit as _exc:
        _finish(_exit_code(_exc))
    except KeyboardInterrupt:
        sys.excepthook(*sys.exc_info())
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)  # as the interpreter ends on it
    except BaseException:
        sys.excepthook(*sys.exc_info())
        _finish(1)
    _finish(0)
