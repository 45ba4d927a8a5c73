"""Warm sandboxes (judge/sandbox/isolated.py, launcher -W) and the fork server
(judge/sandbox/forkserver.py): a sandbox made ahead is used by one bot only, a forked bot
is in sandboxes of its own, and nothing of one bot reaches the next user of its slot uid or
its cgroup set: not its files, /tmp, /dev/shm, processes, environment or cgroup counters.
Every check runs with the pool on (warm, forked) and off; the bots are real processes."""

from __future__ import annotations

import ctypes
import os
import socket
import sys
import threading
from pathlib import Path

import pytest
import trio

from judge.bots import BOTS_DIR
from judge.models import BotSpec
from judge.sandbox import procs
from judge.sandbox.base import BotProcess, SandboxLimits, minimal_env
from judge.sandbox.isolated import WARM_AFTER, IsolatedSandbox
from judge.sandbox.probe import probe
from tests.bot_report import read_report

# A bot that dirties everything it can and burns CPU ("dirty"), or reports what it sees.
BOT = r"""
import json, os, socket, sys, time
mode, name = sys.argv[1], sys.argv[2]
if mode == "dirty":
    for place in ("/tmp", "/dev/shm"):
        with open(f"{place}/left-by-{name}", "w") as handle:
            handle.write("secret")
    # sockets in its network namespace (an abstract name: what a next bot there would find)
    held = socket.socket(socket.AF_UNIX)
    held.bind(f"\0left-by-{name}".encode())
    held.listen()
    pair = socket.socketpair()
    if os.fork() == 0:  # a daemon that would outlive its bot
        os.setsid()
        if os.fork() == 0:
            time.sleep(300)
        os._exit(0)
    while time.process_time() < 0.3:
        pass
procs = sorted(
    int(entry) for entry in os.listdir("/proc")
    if entry.isdigit() and int(entry) not in (1, os.getpid())
)
# (a box, the interpreter or the judge's checkout under the host's /tmp is shown at its path,
# over the private /tmp: those directories are no bot's)
here = os.path.dirname(os.path.abspath(__file__))
shown = {here, sys.executable, sys.prefix, sys.base_prefix, *sys.path}
shown_tops = {path.split("/")[2] for path in shown if path.startswith("/tmp/")}
seen = {
    "tmp": sorted(entry for entry in os.listdir("/tmp") if entry not in shown_tops),
    "shm": sorted(os.listdir("/dev/shm")),
    "procs": [open(f"/proc/{p}/cmdline", "rb").read().decode(errors="replace") for p in procs],
    "env": dict(os.environ),
    "uid": os.getuid(),
    "boxes": sorted(os.listdir(os.path.dirname(here))) if os.getcwd() == here else None,
    "argv": sys.argv,
    # the host's tree a warm pid 1 still had while it waited, and a host file outside the box
    "host": [p for p in ("/oldroot", "/home", os.environ["HOST_SECRET"]) if os.path.exists(p)],
    "cwd": os.getcwd(),
    "sockets": open("/proc/net/unix").read().splitlines()[1:],
    "netns": os.readlink("/proc/self/ns/net"),
}
print(json.dumps(seen), flush=True)
sys.stdin.readline()
"""


def _layers() -> list[str]:
    return [layer for layer in ("namespaces", "cgroups") if probe().available.get(layer)]


@pytest.fixture(params=["namespaces", "cgroups"])
def layer(request: pytest.FixtureRequest) -> str:
    if request.param not in _layers():
        pytest.skip(f"{request.param} unavailable: {probe().reasons[request.param]}")
    return str(request.param)


def _python_bot(tmp_path: Path, name: str, mode: str) -> BotSpec:
    """A bot that can start as a warm Python (bots/warm.py): `python -S -s SCRIPT`, shown
    a directory the judge chose (as built-ins are shown bots/ and games/), no box of its own.
    Every such bot with the same directories uses the same pool."""
    shared = tmp_path / "shared"
    shared.mkdir(exist_ok=True)
    (shared / "bot.py").write_text(BOT)
    for path in (tmp_path, shared, shared / "bot.py"):
        path.chmod(0o755)
    return BotSpec(
        name=name,
        argv=(sys.executable, "-S", "-s", str(shared / "bot.py"), mode, name),
        readonly_paths=(shared, BOTS_DIR),
        env={"SECRET_OF": name, "HOST_SECRET": str(_secret(tmp_path))},
    )


def _secret(tmp_path: Path) -> Path:
    secret = tmp_path / "secret"
    secret.write_text("not for bots")
    secret.chmod(0o644)
    return secret


def _bot(tmp_path: Path, name: str, mode: str, kind: str = "box") -> BotSpec:
    if kind == "python":
        return _python_bot(tmp_path, name, mode)
    box = tmp_path / "boxes" / name
    box.mkdir(parents=True)
    (box / "bot.py").write_text(BOT)
    for path in (tmp_path, tmp_path / "boxes", box, box / "bot.py"):
        path.chmod(0o755)
    return BotSpec(
        name=name,
        argv=(sys.executable, "-S", "bot.py", mode, name),
        cwd=box,
        box=box,
        env={"SECRET_OF": name, "HOST_SECRET": str(_secret(tmp_path))},
    )


def _sandbox(layer: str, pool: int, fork_server: bool = False) -> IsolatedSandbox:
    return IsolatedSandbox(
        layer, SandboxLimits(), probe().hierarchy, pool=pool, fork_server=fork_server
    )


def _assert_clean(seen: dict[str, object], name: str) -> None:
    assert seen["tmp"] == [], seen  # nothing in /tmp, not even our own box (it is elsewhere)
    assert seen["shm"] == []
    assert seen["host"] == []
    assert seen["procs"] == []  # pid 1 and the bot alone
    env = seen["env"]
    assert isinstance(env, dict)
    assert env["SECRET_OF"] == name
    assert not any("left-by" in value for value in env.values())
    assert seen["boxes"] in ([name], None)  # other boxes are not shown
    assert seen["sockets"] == []  # nor sockets in its network namespace


@pytest.mark.parametrize(
    ("pool", "kind"), [(4, "box"), (4, "python"), (4, "forked"), (0, "box"), (0, "python")]
)
async def test_nothing_of_a_bot_reaches_the_next_user_of_its_slot(
    tmp_path: Path, layer: str, pool: int, kind: str
) -> None:
    sandbox = _sandbox(layer, pool, fork_server=kind == "forked")
    if kind == "forked":
        kind = "python"
        # every kind of start here is then forked once the fork server is ready
        await _until_forked(sandbox, _bot(tmp_path, "warmup", "look", kind))
    uids: list[int] = []
    netns_of_uid: dict[int, set[str]] = {}
    warm_used = 0
    forked = 0
    for round_ in range(6):
        dirty = _bot(tmp_path, f"dirty{round_}", "dirty", kind)
        before = sandbox.warm_pids()
        proc = await sandbox.start(dirty, seed=round_)
        warm_used += proc.pid in before
        forked += _started(proc) == "forked"
        seen = await read_report(proc)
        assert seen["tmp"] == [f"left-by-dirty{round_}"]  # it did dirty its own /tmp
        assert any(f"@left-by-dirty{round_}" in line for line in seen["sockets"])  # type: ignore[attr-defined]
        cpu = proc.cpu_seconds()
        assert cpu is None or cpu >= 0.3
        uids.append(int(str(seen["uid"])))
        netns_of_uid.setdefault(uids[-1], set()).add(str(seen["netns"]))
        await proc.kill()

        clean = _bot(tmp_path, f"clean{round_}", "look", kind)
        before = sandbox.warm_pids()
        proc = await sandbox.start(clean, seed=round_)
        warm_used += proc.pid in before
        forked += _started(proc) == "forked"
        seen = await read_report(proc)
        _assert_clean(seen, f"clean{round_}")
        assert seen["argv"] == list(clean.argv[3 if kind == "python" else 2 :])
        assert seen["env"] == minimal_env(clean, seed=round_, home=Path("/tmp"))
        uids.append(int(str(seen["uid"])))
        netns_of_uid.setdefault(uids[-1], set()).add(str(seen["netns"]))
        cpu = proc.cpu_seconds()
        # The dirty bot's 0.3 s of CPU are not counted to the next user of its cgroup set.
        assert cpu is None or cpu < 0.3
        await proc.kill()
    if os.geteuid() == 0:
        assert len(set(uids)) < len(uids)  # slots were reused: the checks above meant it
        # and so was each slot's network namespace (procs.slot_netns): its sockets are gone
        assert all(len(names) == 1 for names in netns_of_uid.values()), netns_of_uid
    if sandbox.fork_server:
        assert forked == 12 and warm_used == 0  # every start forked, none from the pool
    elif pool:
        assert warm_used >= 5  # a run's first starts are cold (WARM_AFTER); later ones warm
        assert forked == 0
    else:
        assert warm_used == forked == 0 and sandbox.warm_pids() == set()


def _started(proc: BotProcess) -> str:
    return str(getattr(proc, "started", "cold"))


async def _until_forked(sandbox: IsolatedSandbox, bot: BotSpec) -> None:
    """Starts ``bot`` until a start is forked (the fork server is started after the run's
    first starts, and imports before it serves)."""
    with trio.fail_after(30):
        for seed in range(1000):
            proc = await sandbox.start(bot, seed=seed)
            await read_report(proc)
            await proc.kill()
            if _started(proc) == "forked":
                return
            await trio.sleep(0.05)


@pytest.mark.parametrize("pool", [4, 0])
async def test_bots_at_once_never_share_a_sandbox(tmp_path: Path, layer: str, pool: int) -> None:
    sandbox = _sandbox(layer, pool)
    procs = []
    for index in range(WARM_AFTER + 2):  # fill the pool first
        proc = await sandbox.start(_bot(tmp_path, f"warmup{index}", "look"), seed=index)
        await read_report(proc)
        procs.append(proc)
    for proc in procs:
        await proc.kill()
    await trio.sleep(0.2)  # (lets the pool refill; correctness does not depend on it)
    dirty = await sandbox.start(_bot(tmp_path, "dirtyA", "dirty"), seed=1)
    clean = await sandbox.start(_bot(tmp_path, "cleanB", "look"), seed=2)
    seen_dirty, seen_clean = await read_report(dirty), await read_report(clean)
    _assert_clean(seen_clean, "cleanB")
    assert seen_dirty["tmp"] == ["left-by-dirtyA"]
    if os.geteuid() == 0:
        assert seen_dirty["uid"] != seen_clean["uid"]
    assert dirty.pid != clean.pid
    for proc in (dirty, clean):
        await proc.kill()


async def test_unused_warm_sandboxes_end_with_the_run(tmp_path: Path, layer: str) -> None:
    sandbox = _sandbox(layer, 4)
    bot = _bot(tmp_path, "one", "look")

    async def main() -> set[int]:
        for _ in range(WARM_AFTER + 2):
            proc = await sandbox.start(bot, seed=1)
            await read_report(proc)
            await proc.kill()
        await trio.sleep(0.2)
        return sandbox.warm_pids()

    # A run of its own (this test's trio run is another): its warm sandboxes go with it.
    warm = await trio.to_thread.run_sync(trio.run, main)
    assert warm
    assert [pid for pid in warm if _alive(pid)] == []


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="slot uids (and their network namespaces) need root")
async def test_a_kept_network_namespace_with_a_socket_left_is_not_entered(
    tmp_path: Path, layer: str
) -> None:
    """A slot's network namespace is kept for its next bots only while it holds no socket:
    one that outlived its bot (here: held by the test) must not be found by the next."""
    sandbox = _sandbox(layer, 0)

    async def look(name: str) -> dict[str, object]:
        proc = await sandbox.start(_bot(tmp_path, name, "look"), seed=1)
        seen = await read_report(proc)
        await proc.kill()
        return seen

    first = await look("first")
    slot = int(str(first["uid"])) - procs.SLOT_UID_BASE
    kept = procs.slot_netns(slot)
    assert kept is not None
    left: list[socket.socket] = []

    def leave_a_socket() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        assert libc.setns(kept, procs.CLONE_NEWNET) == 0, ctypes.get_errno()
        held = socket.socket(socket.AF_UNIX)
        held.bind(b"\0outlived-its-bot")
        left.append(held)

    thread = threading.Thread(target=leave_a_socket)
    thread.start()
    thread.join()
    assert left
    second = await look("second")
    assert second["uid"] == first["uid"]  # the same slot
    assert second["sockets"] == []
    assert second["netns"] != first["netns"]  # a new namespace, not the kept one
    left[0].close()
    third = await look("third")
    assert third["uid"] == first["uid"]
    assert third["netns"] == first["netns"]  # empty again: kept and entered
