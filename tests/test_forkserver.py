"""The fork server (judge/sandbox/forkserver.py, bots/forkserver.py): a forked Python bot is
in namespaces, a cgroup and a uid of its own, fresh for each bot and none of them the fork
server's; it holds nothing of the fork server's (descriptors, random state); and a fork
server that dies is replaced, its starts going on without it meanwhile. Real processes."""

from __future__ import annotations

import contextlib
import errno
import importlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest
import trio

from judge.models import BotSpec
from judge.sandbox import isolated, launcher, procs
from judge.sandbox.base import BotProcess, SandboxLimits, minimal_env
from judge.sandbox.forkserver import SCRIPT
from judge.sandbox.isolated import IsolatedSandbox, NamespacedProcess
from judge.sandbox.launcher import launcher_library
from judge.sandbox.probe import probe
from tests.bot_report import read_report

NAMESPACES = ("pid", "mnt", "net", "ipc", "uts", "user", "cgroup")

BOT = r"""
import json, os, random, sys
def is_open(fd):
    try:
        os.fstat(fd)  # (listing /proc/self/fd would open descriptors of its own)
    except OSError:
        return False
    return True
fds = [fd for fd in range(4096) if is_open(fd)]
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
print(json.dumps({
    "ns": {name: os.readlink(f"/proc/self/ns/{name}") for name in sys.argv[1].split(",")},
    "uid": os.getuid(),
    "fds": fds,
    "seccomp": status["Seccomp"].strip(),
    "nnp": status["NoNewPrivs"].strip(),
    "random": random.random(),
    "argv": sys.argv,
    "env": dict(os.environ),
    "main": __name__,
    "cwd": os.getcwd(),
}), flush=True)
sys.stdin.readline()
"""


@pytest.fixture(params=["namespaces", "cgroups"])
def layer(request: pytest.FixtureRequest) -> str:
    if not probe().available.get(request.param):
        pytest.skip(f"{request.param} unavailable: {probe().reasons[request.param]}")
    if launcher_library() is None:
        pytest.skip("the fork server's library cannot be built here (no cc)")
    return str(request.param)


def _bot(tmp_path: Path, name: str) -> BotSpec:
    box = tmp_path / "box"
    box.mkdir(exist_ok=True)
    (box / "bot.py").write_text(BOT)
    for path in (tmp_path, box, box / "bot.py"):
        path.chmod(0o755)
    return BotSpec(
        name=name,
        argv=(sys.executable, "-S", "-s", str(box / "bot.py"), ",".join(NAMESPACES)),
        cwd=box,
        box=box,
        env={"WHO": name},
    )


def _script_bot(box: Path, name: str, source: str) -> BotSpec:
    """A Python bot running ``source`` from a box of its own (readable by a slot uid)."""
    box.mkdir()
    (box / "bot.py").write_text(source)
    for path in (box.parent, box, box / "bot.py"):
        path.chmod(0o755)
    return BotSpec(
        name=name, argv=(sys.executable, "-S", "-s", str(box / "bot.py")), cwd=box, box=box
    )


def _host_cgroups(proc: BotProcess) -> str:
    """The cgroups of the bot's own process (the deepest of its tree), from outside."""
    pids = procs.descendants(proc.process.pid)
    return _read(f"/proc/{max(pids)}/cgroup")


def _read(path: str) -> str:
    with open(path) as handle:
        return handle.read()


def _started(proc: BotProcess) -> str:
    assert isinstance(proc, NamespacedProcess)
    return proc.started


async def _until_forked(sandbox: IsolatedSandbox, bot: BotSpec) -> None:
    with trio.fail_after(30):
        for seed in range(1000):
            proc = await sandbox.start(bot, seed=seed)
            await read_report(proc)
            await proc.kill()
            if _started(proc) == "forked":
                return
            await trio.sleep(0.05)


def _sandbox(layer: str) -> IsolatedSandbox:
    return IsolatedSandbox(layer, SandboxLimits(), probe().hierarchy, pool=4, fork_server=True)


async def _forked_and_cold(
    layer: str, bot: BotSpec, seed: int
) -> tuple[dict[str, object], dict[str, object]]:
    """The bot's report started by a fork server, then started cold."""
    forked_sandbox = _sandbox(layer)
    await _until_forked(forked_sandbox, bot)
    reports = []
    for sandbox in (
        forked_sandbox,
        IsolatedSandbox(layer, SandboxLimits(), probe().hierarchy, pool=0),
    ):
        proc = await sandbox.start(bot, seed=seed)
        reports.append((_started(proc), await read_report(proc)))
        await proc.kill()
    assert [started for started, _ in reports] == ["forked", "cold"]
    return reports[0][1], reports[1][1]


async def test_forked_bots_are_in_fresh_sandboxes_of_their_own(tmp_path: Path, layer: str) -> None:
    sandbox = _sandbox(layer)
    await _until_forked(sandbox, _bot(tmp_path, "warmup"))
    (server,) = sandbox.fork_server_pids()
    first = await sandbox.start(_bot(tmp_path, "first"), seed=1)
    second = await sandbox.start(_bot(tmp_path, "second"), seed=2)
    assert _started(first) == _started(second) == "forked"
    seen = [await read_report(first), await read_report(second)]
    server_ns = {name: os.readlink(f"/proc/{server}/ns/{name}") for name in NAMESPACES}
    for name in NAMESPACES:  # at once: none shared with each other or with the fork server
        ids = [report["ns"][name] for report in seen]  # type: ignore[index]
        assert len({*ids, server_ns[name]}) == 3, (name, ids, server_ns[name])
    if layer == "cgroups":  # as the host sees them (inside, each its own cgroup namespace)
        groups = [_host_cgroups(proc) for proc in (first, second)]
        server_groups = _read(f"/proc/{server}/cgroup")
        assert len({*groups, server_groups}) == 3, groups
    if os.geteuid() == 0:  # a slot uid each, never the fork server's (root)
        assert seen[0]["uid"] != seen[1]["uid"]
        assert 0 not in (seen[0]["uid"], seen[1]["uid"])
    for report, name, seed in zip(seen, ("first", "second"), (1, 2), strict=True):
        assert report["fds"] == [0, 1, 2]  # nothing of the fork server's descriptors
        assert report["seccomp"] == "2" and report["nnp"] == "1"
        assert report["main"] == "__main__"
        assert report["argv"] == [str(tmp_path / "box" / "bot.py"), ",".join(NAMESPACES)]
        assert report["cwd"] == str(tmp_path / "box")
        bot = _bot(tmp_path, name)
        assert report["env"] == minimal_env(bot, seed=seed, home=Path("/tmp"))
    assert seen[0]["random"] != seen[1]["random"]  # each reseeded, not the server's state
    # The server's libraries were bound when it started (no bot binds a symbol lazily):
    # LD_BIND_NOW was its own setting only (the bots' environments are checked above).
    assert "LD_BIND_NOW=1" in _read(f"/proc/{server}/environ").split("\0")
    for proc in (first, second):
        await proc.kill()


async def test_a_killed_fork_server_is_replaced_and_starts_go_on(
    tmp_path: Path, layer: str
) -> None:
    sandbox = _sandbox(layer)
    bot = _bot(tmp_path, "bot")
    await _until_forked(sandbox, bot)
    (server,) = sandbox.fork_server_pids()
    os.kill(server, signal.SIGKILL)
    await trio.sleep(0.1)
    proc = await sandbox.start(bot, seed=3)  # not forked: started another way, and answers
    assert _started(proc) != "forked"
    assert (await read_report(proc))["env"] == minimal_env(bot, seed=3, home=Path("/tmp"))
    await proc.kill()
    await _until_forked(sandbox, bot)  # a new one
    assert sandbox.fork_server_pids() and server not in sandbox.fork_server_pids()


async def test_a_stopped_fork_server_is_given_up(tmp_path: Path, layer: str) -> None:
    """A fork server that does not answer (here: stopped) costs a start its answer time,
    then the start goes on without it."""
    sandbox = _sandbox(layer)
    bot = _bot(tmp_path, "bot")
    await _until_forked(sandbox, bot)
    (server,) = sandbox.fork_server_pids()
    os.kill(server, signal.SIGSTOP)
    try:
        proc = await sandbox.start(bot, seed=4)
        assert _started(proc) != "forked"
        await read_report(proc)
        await proc.kill()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server, signal.SIGCONT)


async def test_a_script_beside_a_module_the_server_imported_is_not_forked(
    tmp_path: Path, layer: str
) -> None:
    """`random` is imported by the fork server; a bot with its own random.py beside its script
    imports that one when started cold, and so must it here."""
    sandbox = _sandbox(layer)
    await _until_forked(sandbox, _bot(tmp_path, "warmup"))
    box = tmp_path / "shadow"
    box.mkdir()
    (box / "random.py").write_text("OWN = True\n")
    (box / "bot.py").write_text(
        "import json, random\nprint(json.dumps({'own': getattr(random, 'OWN', False)}))\ninput()\n"
    )
    for path in (box, box / "random.py", box / "bot.py"):
        path.chmod(0o755)
    bot = BotSpec(name="shadow", argv=(sys.executable, "-S", "-s", "bot.py"), cwd=box, box=box)
    proc = await sandbox.start(bot, seed=5)
    assert _started(proc) != "forked"
    assert (await read_report(proc)) == {"own": True}
    await proc.kill()


ENDING = r"""
import atexit, sys, threading, time
how = sys.argv[1]
atexit.register(lambda: print("atexit ran"))
def late():
    time.sleep(0.2)
    print("thread done")
threading.Thread(target=late).start()  # not a daemon: the bot ends after it
print("unflushed", end="")  # flushed at the end, as by the interpreter
if how == "code":
    sys.exit(3)
if how == "message":
    sys.exit("bye")
if how == "raise":
    raise ValueError("boom")
"""


@pytest.mark.parametrize("forked", [True, False])
@pytest.mark.parametrize(
    ("how", "status", "stderr"),
    [("code", 3, ""), ("message", 1, "bye"), ("raise", 1, "ValueError: boom"), ("end", 0, "")],
)
async def test_a_forked_bot_ends_as_the_interpreter_would(
    tmp_path: Path, layer: str, how: str, status: int, stderr: str, forked: bool
) -> None:
    """A forked bot ends without freeing the fork server's objects, but as a cold one
    otherwise (the same expectations, cold): exit status, message or traceback, atexit,
    threads, flushed stdout."""
    if forked:
        sandbox = _sandbox(layer)
        await _until_forked(sandbox, _bot(tmp_path, "warmup"))
    else:
        sandbox = IsolatedSandbox(layer, SandboxLimits(), probe().hierarchy, pool=0)
    box = tmp_path / "ending"
    box.mkdir()
    (box / "bot.py").write_text(ENDING)
    for path in (box, box / "bot.py"):
        path.chmod(0o755)
    bot = BotSpec(name="end", argv=(sys.executable, "-S", "-s", "bot.py", how), cwd=box, box=box)
    proc = await sandbox.start(bot, seed=6)
    assert _started(proc) == ("forked" if forked else "cold")
    out, err = b"", b""
    with trio.fail_after(30):
        assert proc.process.stdout is not None and proc.process.stderr is not None
        while chunk := await proc.process.stdout.receive_some():
            out += chunk
        while chunk := await proc.process.stderr.receive_some():
            err += chunk
        await proc.process.wait()
    assert out.decode() == "unflushedthread done\natexit ran\n"
    assert stderr in err.decode()
    assert proc.process.returncode == status
    await proc.kill()


INTERPRETER = r"""
import json, sys
import helper  # found through PYTHONPATH, as the adapters' helpers are
print(json.dumps({
    "hash": hash("abc"),
    "path": sys.path,
    "flags": [sys.flags.no_site, sys.flags.no_user_site, sys.flags.dont_write_bytecode],
    "helper": helper.WHERE,
    "main": sorted(name for name in vars(sys.modules["__main__"]) if not name.startswith("__")),
}), flush=True)
input()
"""


@pytest.mark.parametrize("flags", [("-s",), ("-S", "-s")])
async def test_a_forked_bot_sees_the_interpreter_a_cold_one_does(
    tmp_path: Path, layer: str, flags: tuple[str, ...]
) -> None:
    """The adapters' way (`python -s`, PYTHONPATH, PYTHONHASHSEED=0) and the built-ins'
    (`-S -s`): the same hash of a string, sys.path, flags and module search, forked or cold."""
    box = tmp_path / "interp"
    helpers = tmp_path / "helpers"
    for directory in (box, helpers):
        directory.mkdir()
    (box / "bot.py").write_text(INTERPRETER)
    (helpers / "helper.py").write_text("WHERE = __file__\n")
    for path in (tmp_path, box, helpers, box / "bot.py", helpers / "helper.py"):
        path.chmod(0o755)
    bot = BotSpec(
        name="interp",
        argv=(sys.executable, *flags, str(box / "bot.py")),
        cwd=box,
        box=box,
        readonly_paths=(helpers,),
        env={"PYTHONPATH": str(helpers), "PYTHONHASHSEED": "0"},
    )
    forked, cold = await _forked_and_cold(layer, bot, seed=7)
    assert forked == cold


async def test_a_bot_with_more_words_than_the_child_reads_starts_otherwise(
    tmp_path: Path, layer: str
) -> None:
    sandbox = _sandbox(layer)
    await _until_forked(sandbox, _bot(tmp_path, "warmup"))
    big = _bot(tmp_path, "big").model_copy(update={"env": {"WHO": "big", "BIG": "x" * 70_000}})
    proc = await sandbox.start(big, seed=8)
    assert _started(proc) != "forked"
    assert (await read_report(proc))["env"] == minimal_env(big, seed=8, home=Path("/tmp"))
    await proc.kill()


INTERRUPTED = r"""
import json, os, signal
try:
    os.kill(os.getpid(), signal.SIGINT)
    said = "went on"
except KeyboardInterrupt:
    said = "KeyboardInterrupt"
print(json.dumps({"said": said, "handler": repr(signal.getsignal(signal.SIGINT))}), flush=True)
input()
"""


async def test_sigint_in_a_forked_bot_is_a_keyboard_interrupt_as_cold(
    tmp_path: Path, layer: str
) -> None:
    """The interpreter's SIGINT handler is the bot's again (its first process had the
    default, as the launcher's exec'd processes do): forked or cold, the same."""
    bot = _script_bot(tmp_path / "interrupted", "int", INTERRUPTED)
    forked, cold = await _forked_and_cold(layer, bot, seed=8)
    assert forked == cold
    assert forked["said"] == "KeyboardInterrupt"


TREE = r"""
import errno, json, os
def attempt(action):
    try:
        action()
        return "done"
    except OSError as exc:
        return errno.errorcode[exc.errno]
mounts = sorted({(line.split()[4], line.split()[5]) for line in open("/proc/self/mountinfo")})
print(json.dumps({
    "mounts": mounts,
    "root_dev": os.stat("/").st_dev,
    "box": sorted(os.listdir(os.path.dirname(os.path.abspath(__file__)))),
    "tmp": sorted(os.listdir("/tmp")),
    "oldroot": os.path.exists("/oldroot"),
    "write_root": attempt(lambda: os.mkdir("/made")),
    "write_dev": attempt(lambda: os.mkdir("/dev/made")),
    "write_tmp": attempt(lambda: open("/tmp/made", "w").close()),
    "write_box": attempt(lambda: open(os.path.join(os.path.dirname(__file__), "made"), "w")),
}), flush=True)
input()
"""


async def test_a_forked_bots_tree_is_a_copy_of_its_template_as_cold_as_seen(
    tmp_path: Path, layer: str
) -> None:
    """A root judge's forked bot gets its file system as a copy of a template mount namespace
    (judge/sandbox/templates.py) plus its own /tmp, /dev/shm, /proc and its box (under /tmp
    here, so shown again over its fresh /tmp): what it sees and may write is a cold start's.
    Two forked bots share the template's read-only root; two cold bots have a root each."""
    bot = _script_bot(tmp_path / "tree", "tree", TREE)
    forked, cold = await _forked_and_cold(layer, bot, seed=10)
    assert forked["mounts"] == cold["mounts"]
    assert forked["box"] == cold["box"] == ["bot.py"]
    assert forked["tmp"] == cold["tmp"]  # (what is bound under /tmp: its first directories)
    if tmp_path.parts[1] == "tmp":
        assert tmp_path.parts[2] in cold["tmp"]  # type: ignore[operator]
    for report in (forked, cold):
        assert report["oldroot"] is False
        assert report["write_root"] == report["write_dev"] == report["write_box"] == "EROFS"
        assert report["write_tmp"] == "done"
    if os.geteuid() != 0:
        return  # (templates are a root judge's)
    sandbox = _sandbox(layer)
    await _until_forked(sandbox, bot)
    roots: dict[str, set[object]] = {"forked": set(), "cold": set()}
    for kind, chosen in (("forked", sandbox), ("cold", _cold(layer))):
        both = [await chosen.start(bot, seed=start) for start in range(2)]  # (alive at once)
        for proc in both:
            assert _started(proc) == kind
            roots[kind].add((await read_report(proc))["root_dev"])
        for proc in both:
            await proc.kill()
    assert len(roots["forked"]) == 1 and len(roots["cold"]) == 2


def _cold(layer: str) -> IsolatedSandbox:
    return IsolatedSandbox(layer, SandboxLimits(), probe().hierarchy, pool=0)


SIGNALS = r"""
import json, signal
status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines())
names = ("SIGHUP", "SIGINT", "SIGQUIT", "SIGUSR1", "SIGTERM")
print(json.dumps({"ignored": int(status["SigIgn"], 16),
                  "handlers": {n: repr(signal.getsignal(getattr(signal, n))) for n in names}}),
      flush=True)
input()
"""


async def test_signals_the_judge_ignores_are_not_ignored_by_its_bots(
    tmp_path: Path, layer: str
) -> None:
    """A judge started with signals ignored (nohup, a shell's background job) passes none of
    that on: forked or cold, a Python bot's signals are as a clean start's (it ignores
    SIGPIPE and SIGXFSZ itself, and SIGINT is its KeyboardInterrupt)."""
    bot = _script_bot(tmp_path / "signals", "sig", SIGNALS)
    ignored = (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGUSR1, signal.SIGTERM)
    before = {sig: signal.signal(sig, signal.SIG_IGN) for sig in ignored}
    try:
        forked, cold = await _forked_and_cold(layer, bot, seed=9)
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    assert forked == cold
    assert cold["ignored"] == 1 << (signal.SIGPIPE - 1) | 1 << (signal.SIGXFSZ - 1)
    handlers = cold["handlers"]
    assert isinstance(handlers, dict)
    assert handlers.pop("SIGINT") == repr(signal.default_int_handler)
    assert set(handlers.values()) == {repr(signal.SIG_DFL)}


PID1 = r"""
import json, os
try:
    with open("/proc/1/mem", "rb"):
        opened = True
except OSError:
    opened = False
owner = {path: os.stat(path).st_uid for path in ("/proc/1/environ", "/proc/self/environ")}
print(json.dumps({"me": os.getuid(), "pid1_owner": owner["/proc/1/environ"],
                  "self_owner": owner["/proc/self/environ"], "opened": opened}), flush=True)
input()
"""


async def test_a_forked_bots_pid1_is_not_open_to_it(tmp_path: Path, layer: str) -> None:
    """pid 1 above a forked bot shares its relay's memory (outside the namespaces): it is not
    dumpable, so /proc/1's files are not the bot's and its memory cannot be opened; the bot's
    own (/proc/self/environ) are its own, as a cold bot's."""
    bot = _script_bot(tmp_path / "pid1", "pid1", PID1)
    sandbox = _sandbox(layer)
    await _until_forked(sandbox, bot)
    proc = await sandbox.start(bot, seed=9)
    assert _started(proc) == "forked"
    report = await read_report(proc)
    await proc.kill()
    assert report["self_owner"] == report["me"]
    assert report["pid1_owner"] != report["me"]
    assert report["opened"] is False


FILTER = r"""
import ctypes, json, os, socket, struct, sys
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
report = {"seccomp": status["Seccomp"].strip()}
if sys.argv[1] == "alter":
    # The launcher's filter (built once by the fork server): its first two instructions, as
    # this bot's copy of the library holds them (its data and the .bss mapped after it).
    arch = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}[os.uname().machine]
    start = struct.pack("=HBBIHBBI", 0x20, 0, 0, 4, 0x15, 1, 0, arch)
    allow = struct.pack("=HBBI", 0x06, 0, 0, 0x7FFF0000)  # RET ALLOW, for every syscall
    found, inside = 0, False
    for fields in [line.split() for line in open("/proc/self/maps")]:
        named = len(fields) > 5
        inside = "liblauncher" in fields[5] if named else inside
        if inside and "rw" in fields[1]:
            low, high = (int(x, 16) for x in fields[0].split("-"))
            at = ctypes.string_at(low, high - low).find(start)
            if at >= 0:
                ctypes.memmove(low + at, allow, len(allow))
                found += 1
        if not named:
            inside = False
    report["found"] = found
else:
    libc = ctypes.CDLL(None, use_errno=True)
    report["unshare"] = [libc.unshare(0x10000000), ctypes.get_errno()]  # CLONE_NEWUSER
    try:
        socket.socket(socket.AF_INET).close()
        report["inet"] = 0
    except OSError as exc:
        report["inet"] = exc.errno
print(json.dumps(report), flush=True)
input()
"""


async def test_the_filter_built_ahead_is_not_a_bots_to_alter(tmp_path: Path, layer: str) -> None:
    """The fork server builds the seccomp filter once (launcher_serve) and each child hands
    it to the kernel: a forked bot that overwrites it in its memory (to allow everything)
    alters its own copy only; the next bot forked gets the filter intact."""
    box = tmp_path / "filter"
    box.mkdir()
    (box / "bot.py").write_text(FILTER)
    for path in (tmp_path, box, box / "bot.py"):
        path.chmod(0o755)

    def bot(mode: str) -> BotSpec:
        argv = (sys.executable, "-S", "-s", str(box / "bot.py"), mode)
        return BotSpec(name=mode, argv=argv, cwd=box, box=box)

    sandbox = _sandbox(layer)
    await _until_forked(sandbox, bot("check"))
    (server,) = sandbox.fork_server_pids()
    reports = []
    for mode in ("alter", "check"):
        proc = await sandbox.start(bot(mode), seed=10)
        assert _started(proc) == "forked"
        reports.append(await read_report(proc))
        await proc.kill()
    assert sandbox.fork_server_pids() == {server}
    altered, checked = reports
    assert altered["seccomp"] == checked["seccomp"] == "2"
    assert altered["found"] == 1
    assert checked["unshare"] == [-1, errno.EPERM]
    assert checked["inet"] == errno.EAFNOSUPPORT


def test_kept_fork_servers_serve_run_after_run(tmp_path: Path, layer: str) -> None:
    """A worker process plays batch after batch, each a trio run of its own: with
    keep_fork_servers() the next run's first Python bot is forked at once, by the same
    fork server, instead of starting and importing a new one for every batch."""
    sandbox = _sandbox(layer)
    sandbox.keep_fork_servers()
    bot = _bot(tmp_path, "bot")
    try:
        trio.run(_until_forked, sandbox, bot)
        (server,) = sandbox.fork_server_pids()

        async def first_start() -> str:
            proc = await sandbox.start(bot, seed=5)
            await read_report(proc)
            await proc.kill()
            return _started(proc)

        assert trio.run(first_start) == "forked"
        assert sandbox.fork_server_pids() == {server}
    finally:
        sandbox.close_fork_servers()
    assert sandbox.fork_server_pids() == set()


async def test_a_leftover_scan_while_a_fork_is_in_flight_spares_the_bot(
    tmp_path: Path, layer: str
) -> None:
    """The fork's answer is awaited (the judge's other matches go on meanwhile). A scan for
    leftovers in that moment (another bot's kill) first takes the answers in flight, so the
    new bot, a child of the judge not yet registered, is not taken for a leftover."""
    sandbox = _sandbox(layer)
    bot = _bot(tmp_path, "bot")
    await _until_forked(sandbox, bot)
    (server,) = sandbox.fork_server_pids()
    started: list[BotProcess] = []

    async def start() -> None:
        started.append(await sandbox.start(bot, seed=7))

    os.kill(server, signal.SIGSTOP)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(start)
            await trio.sleep(0.05)  # asked: its task waits for the answer
            os.kill(server, signal.SIGCONT)
            time.sleep(0.2)  # noqa: ASYNC251 (this thread held: forked, answered, not read)
            procs.reap_adopted()
    finally:
        os.kill(server, signal.SIGCONT)
    (proc,) = started
    assert _started(proc) == "forked"
    assert (await read_report(proc))["env"] == minimal_env(bot, seed=7, home=Path("/tmp"))
    await proc.kill()


def test_the_fork_servers_word_buffer_is_as_large_as_the_launchers_limit() -> None:
    """launcher_serve copies a bot's words into bots/forkserver.py's buffer of GO_MAX bytes,
    trusting that they are fewer than launcher.c's GO_MAX: the two must be the same number,
    and the judge's own cap (isolated.GO_MAX) below it."""
    in_c = re.search(r"^#define GO_MAX (\d+)$", launcher.SOURCE.read_text(), re.MULTILINE)
    in_python = re.search(r"^GO_MAX = (\d+)", SCRIPT.read_text(), re.MULTILINE)
    assert in_c is not None and in_python is not None
    assert int(in_c[1]) == int(in_python[1])
    assert int(in_c[1]) > isolated.GO_MAX


def _game_modules() -> list[ModuleType]:
    return [
        importlib.import_module(f"games.{folder.name}.bots")
        for folder in sorted(isolated.GAMES_DIR.iterdir())
        if (folder / "bots.py").exists()
    ]


@pytest.mark.parametrize(
    ("game", "name"),
    [(m.__name__.split(".")[1], name) for m in _game_modules() for name in m.BOTS],
)
def test_every_builtin_plays_its_games_rehearsal(
    game: str, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fork server plays each built-in through its game's REHEARSAL before it forks any
    (bots/forkserver.py, _rehearse): a built-in that fails on it, or a rehearsal too long,
    would be forked unrehearsed. Here as a process of its own: an answer to every message
    but the last, a clean exit."""
    monkeypatch.syspath_prepend(str(isolated.BOTS_DIR))  # (as the fork server imports it)
    forkserver = importlib.import_module("forkserver")
    transcript = importlib.import_module(f"games.{game}.bots").REHEARSAL
    play = isolated.BOTS_DIR / "play.py"
    done = subprocess.run(
        [sys.executable, "-S", "-s", str(play), game, name],
        input=transcript.encode(),
        capture_output=True,
        timeout=30,
        env={"JUDGE_SEED": "5"},
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert len(transcript.encode()) <= forkserver.REHEARSAL_MAX  # (else it is not rehearsed)
    messages = transcript.count("\n.\n")
    assert messages >= 3 and transcript.splitlines()[-2].startswith("END")
    assert done.stdout.count(b"\n.\n") == messages - 1


REHEARSED_BOT = r"""
import dis, json, os, sys
sys.path.append(sys.argv[1])  # (a cold start imports the game from the repository)
from games.liarsdice import bots
code = bots.computer_play.__code__
plain = {i.opname for i in dis.get_instructions(code)}
# (3.12 makes superinstructions, LOAD_CONST__LOAD_FAST..., as code is made, not as it runs)
specialized = {
    i.opname for i in dis.get_instructions(code, adaptive=True) if "__" not in i.opname
} - plain
os.set_blocking(0, False)  # what stdin holds already (the judge has sent nothing yet)
print(json.dumps({
    "specialized": sorted(specialized),
    "stdin": sys.stdin.buffer.peek(1).decode(),
}), flush=True)
"""


async def test_forked_builtins_run_code_the_fork_server_rehearsed(
    tmp_path: Path, layer: str
) -> None:
    """A bot forked by the games' fork server finds the built-ins' code already specialized
    (played through their rehearsals, so no bot writes those pages), and nothing in its
    stdin: the rehearsal's input is all read. Started cold, the same code is plain."""
    spec = _script_bot(tmp_path / "box", "rehearsed", REHEARSED_BOT)
    spec = spec.model_copy(
        update={
            "argv": (*spec.argv, str(isolated.BOTS_DIR.parent)),
            "readonly_paths": (isolated.BOTS_DIR, isolated.GAMES_DIR),
        }
    )
    forked, cold = await _forked_and_cold(layer, spec, seed=1)
    assert forked["specialized"], forked  # e.g. LOAD_GLOBAL_MODULE, CALL_PY_EXACT_ARGS
    assert cold["specialized"] == []
    assert forked["stdin"] == cold["stdin"] == ""


REHEARSING = r"""
import json, os, sys, time, types
bots_dir = sys.argv[1]
sys.path[0] = bots_dir
sys.path.append(os.path.dirname(bots_dir))
import forkserver
forkserver.REHEARSAL_CPU = 0.3
from bots import botlib
def early():  # reads one message of several, then ends
    botlib.read_message()
spins = [0]
def spin():  # never ends
    while True:
        spins[0] += 1
module = types.ModuleType("games.trial.bots")
module.BOTS = {"early": early, "spin": spin}
module.REHEARSAL = "Y 1\n.\nY 2\n.\nEND\n.\n"
sys.modules["games.trial.bots"] = module
argv, main = list(sys.argv), sys.modules["__main__"]
began = time.process_time()
forkserver._rehearse(os.path.join(bots_dir, "play.py"), [module])
print(json.dumps({
    "cpu": time.process_time() - began,
    "spins": spins[0],
    "kept": sys.argv == argv and sys.modules["__main__"] is main,
    "stdin": sys.stdin.readline(),
}), flush=True)
"""


def test_a_rehearsal_that_never_ends_costs_its_budget_and_leaves_stdin_clean(
    tmp_path: Path,
) -> None:
    """A built-in that stops early has the rest of its rehearsal read for it, and one that
    never ends is stopped by the rehearsals' CPU budget: the fork server goes on, with its
    own stdin (here the test's line) and state as before."""
    script = tmp_path / "rehearsing.py"
    script.write_text(REHEARSING)
    done = subprocess.run(
        [sys.executable, "-S", "-s", str(script), str(isolated.BOTS_DIR)],
        input=b"the judge's\n",
        capture_output=True,
        timeout=60,
        cwd=isolated.BOTS_DIR.parent,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["kept"] and report["stdin"] == "the judge's\n"
    # The spinning built-in ran and was stopped by its CPU budget, not by the 60 s timeout.
    # (No lower bound on the CPU measured: under load the kernel's accounting of a process's
    # CPU can read under what its timer counted; a test must not need an idle machine.)
    assert report["spins"] > 0 and report["cpu"] < 5
