"""Hostile bots against every sandbox layer this machine offers, through run_match.

Each attack runs as a real process next to an ordinary match on the same layer. For
each: the hostile seat's exact outcome, the effect on the host (connections that
arrived, files that appeared, signals the judge got), the other match finishing
untouched, and no process of any bot left afterwards. A layer the machine lacks is
skipped with the probe's reason; an attack a layer cannot contain by design is either
asserted as an escape (documenting the gap) or skipped with the reason when running
it would harm the machine.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trio

from judge.bots import builtin_spec
from judge.models import BotSpec, MatchResult, MatchSpec
from judge.runner import run_match
from judge.sandbox.base import SandboxLimits
from judge.sandbox.isolated import IsolatedSandbox
from judge.sandbox.probe import probe
from judge.sandbox.select import sandbox_for

HOSTILE = Path(__file__).parent / "bots" / "hostile"
LAYERS = ("base", "namespaces", "cgroups")
CONTAINING = ("namespaces", "cgroups")  # layers that hide the host
LIMITS = SandboxLimits(
    cpu_seconds=30,
    file_size_mb=16,
    open_files=64,
    memory_mb=256,
    pids=64,
    tmp_mb=8,
    address_space_mb=512,
)
HOSTILE_TURNS = 20
CONTROL_TURNS = 300


@pytest.fixture(params=LAYERS)
def layer(request: pytest.FixtureRequest) -> str:
    report = probe()
    name: str = request.param
    if not report.available.get(name):
        pytest.skip(f"sandbox layer {name} unavailable here: {report.reasons[name]}")
    return name


@pytest.fixture(params=["cold", "warm", "forked"])
def start(request: pytest.FixtureRequest) -> str:
    """How the hostile bot's sandbox is made: at its start, or ahead (a warm sandbox,
    docs/security.md) and handed to it when its match starts, or by a process the fork
    server forked (judge/sandbox/forkserver.py; the attack is then a Python bot, or a
    program it execs)."""
    name: str = request.param
    return name


@pytest.fixture(scope="session")
def hostile_box(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hostile bots' own box, readable by the sandbox's slot uids."""
    box = tmp_path_factory.mktemp("hostile-box")
    for name in ("outside.py", "snoop.py", "signal.sh", "forkbomb.sh", "exec.py"):
        shutil.copy2(HOSTILE / name, box / name)
    subprocess.run(
        ["cc", "-O2", "-o", str(box / "hostile"), str(HOSTILE / "hostile.c")], check=True
    )
    box.chmod(0o755)
    return box


@dataclass
class Scene:
    """Everything an attack could reach on the host, and what reached it."""

    tmp: Path
    box: Path
    warm: bool = False  # the hostile bot gets a sandbox made ahead
    forked: bool = False  # the hostile bot is forked by the fork server
    token: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    signals: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.secret = self.tmp / "secret.txt"
        self.secret.write_text(f"the-secret-{self.token}\n")
        self.other_box = self.tmp / "other-box"
        self.other_box.mkdir()
        (self.other_box / "strategy.txt").write_text("always paper\n")
        self.outside = self.tmp / "outside"
        self.outside.mkdir(mode=0o777)
        self.outside.chmod(0o777)
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(8)
        self.unix_path = self.tmp / "judge.sock"
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind(str(self.unix_path))
        self.unix.listen(8)
        self.unix_path.chmod(0o777)

    def env(self) -> dict[str, str]:
        return {
            "HOSTILE_TOKEN": self.token,
            "HOSTILE_PORT": str(self.tcp.getsockname()[1]),
            "HOSTILE_SOCKET": str(self.unix_path),
            "HOSTILE_JUDGE_PID": str(os.getpid()),
            "HOSTILE_SECRET": str(self.secret),
            "HOSTILE_OTHER_BOX": str(self.other_box),
            "HOSTILE_OUTSIDE": str(self.outside),
        }

    def bot(self, *argv: str) -> BotSpec:
        program = argv[0]
        if program.endswith(".py"):
            full = (sys.executable, "-S", "-s", str(self.box / program), *argv[1:])
        elif self.forked:  # a Python bot, forked, that becomes the attack
            full = (sys.executable, "-S", "-s", str(self.box / "exec.py"))
            full += (str(self.box / program), *argv[1:])
        else:
            full = (str(self.box / program), *argv[1:])
        return BotSpec(
            name=f"hostile-{'-'.join(argv)}", argv=full, cwd=self.box, box=self.box, env=self.env()
        )

    def connections(self, listener: socket.socket) -> int:
        listener.setblocking(False)
        count = 0
        while True:
            try:
                conn, _ = listener.accept()
            except BlockingIOError:
                return count
            conn.close()
            count += 1

    def escaped_files(self) -> list[Path]:
        names = [f"hostile-{self.token}", f"fill-{self.token}.bin"]
        return [
            d / n
            for d in (self.outside, Path("/tmp"), Path("/dev/shm"))
            for n in names
            if (d / n).exists()
        ]

    def close(self) -> None:
        self.tcp.close()
        self.unix.close()
        for path in self.escaped_files():
            path.unlink()
        (self.box / f"fill-{self.token}.bin").unlink(missing_ok=True)


@pytest.fixture
def scene(tmp_path: Path, hostile_box: Path, start: str) -> Iterator[Scene]:
    made = Scene(tmp_path, hostile_box, warm=start == "warm", forked=start == "forked")
    previous = signal.signal(signal.SIGUSR1, lambda sig, frame: made.signals.append(sig))
    try:
        yield made
    finally:
        signal.signal(signal.SIGUSR1, previous)
        made.close()


def _is_resource_tracker(pid: str) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"multiprocessing.resource_tracker" in cmdline


def bot_processes(token: str, warm: AbstractSet[int] = frozenset()) -> list[str]:
    """Every process left of this test's bots: the test's token is in the environment of
    all of them (bwrap and launchers included), or they are children of this process, but
    for the ``warm`` sandboxes made ahead for later bots (no bot has been in them).
    (Other judges on the machine run bots under slot uids too, so uids prove nothing.)"""
    found = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            uid = os.stat(f"/proc/{entry}").st_uid
        except OSError:
            continue
        ppid = int(stat[stat.rfind(b")") + 2 :].split()[1])
        if ppid == me and _is_resource_tracker(entry):
            continue  # multiprocessing's helper, left by judge.parallel's workers: not a bot
        if token.encode() in environ or (ppid == me and int(entry) not in warm):
            found.append(f"{entry} uid={uid} {stat[:80]!r}")
    return found


async def play(scene: Scene, layer: str, hostile: BotSpec) -> MatchResult:
    """The hostile match next to an ordinary one on the same layer; checks what must
    always hold and returns the hostile match's result."""
    sandbox = sandbox_for(layer, LIMITS)
    marked = {"HOSTILE_TOKEN": scene.token}

    def builtin(name: str) -> BotSpec:
        return builtin_spec("rps", name).model_copy(update={"env": marked})

    hostile_spec = MatchSpec(
        game="rps",
        bots=[hostile, builtin("paper")],
        seed=1,
        options={"turns": HOSTILE_TURNS},
        turn_deadline=1.0,
        startup_allowance=2.0,
    )
    control_spec = MatchSpec(
        game="rps",
        bots=[builtin("rock"), builtin("cycle")],
        seed=2,
        options={"turns": CONTROL_TURNS},
    )
    results: dict[str, MatchResult] = {}

    async def run(key: str, spec: MatchSpec) -> None:
        results[key] = await run_match(spec, sandbox=sandbox)

    if scene.warm:
        await fill_the_pool(sandbox, builtin)
    forked_before = 0
    if scene.forked:
        await start_the_fork_server(sandbox, scene)
        assert isinstance(sandbox, IsolatedSandbox)
        forked_before = sandbox.forked["stdlib"]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run, "hostile", hostile_spec)
        nursery.start_soon(run, "control", control_spec)
    if isinstance(sandbox, IsolatedSandbox) and scene.forked:
        # the hostile bot was forked (the only one of its kind here)
        assert sandbox.forked["stdlib"] == forked_before + 1
    control = results["control"]
    assert control.turns == CONTROL_TURNS
    assert [p.outcome for p in control.players] == ["ok", "ok"], control.players
    assert results["hostile"].sandbox == layer
    assert results["hostile"].players[1].outcome == "ok"
    warm = sandbox.warm_pids() if isinstance(sandbox, IsolatedSandbox) else set()
    assert bot_processes(scene.token, warm) == []
    return results["hostile"]


async def fill_the_pool(sandbox: object, builtin: Callable[[str], BotSpec]) -> None:
    """Start enough bots that the sandbox makes warm sandboxes ahead, and wait for them:
    the hostile bot, started next, then takes one."""
    if not isinstance(sandbox, IsolatedSandbox) or sandbox.layer not in CONTAINING:
        pytest.skip("the base layer starts every bot cold (no warm sandboxes)")
    warm_up = MatchSpec(
        game="rps", bots=[builtin("rock"), builtin("paper")], seed=3, options={"turns": 2}
    )
    with trio.fail_after(30):
        while len(sandbox.warm_pids()) < 2:
            await run_match(warm_up, sandbox=sandbox)
            await trio.sleep(0.05)


async def start_the_fork_server(sandbox: object, scene: Scene) -> None:
    """Start bots of the hostile bot's kind (a Python bot with a box of its own) until one
    is forked: the fork server for them then runs, and the hostile bot is forked next."""
    if not isinstance(sandbox, IsolatedSandbox) or sandbox.layer not in CONTAINING:
        pytest.skip("the base layer starts every bot cold (no fork server)")
    if not sandbox.fork_server:
        pytest.skip("the fork server is off here (BOTJUDGE_FORK_SERVER=0)")
    harmless = scene.bot("exec.py", "/bin/true")
    with trio.fail_after(30):
        while sandbox.forked["stdlib"] == 0:
            proc = await sandbox.start(harmless, seed=0)
            await proc.kill()
            await trio.sleep(0.05)


def outcome(result: MatchResult) -> str:
    return result.players[0].outcome


def stderr(result: MatchResult) -> str:
    return result.players[0].stderr


# -- the network -----------------------------------------------------------------------


async def test_tcp_to_the_judges_listener(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("hostile", "tcp"))
    assert outcome(result) == "ok"
    if layer in CONTAINING:
        assert scene.connections(scene.tcp) == 0
        assert "tcp: Address family not supported by protocol" in stderr(result)
    else:  # the base layer does not touch the network: the gap, asserted
        assert scene.connections(scene.tcp) == 1
        assert "tcp: connected" in stderr(result)


async def test_unix_socket_of_the_judge(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("hostile", "unix"))
    assert outcome(result) == "ok"
    if layer in CONTAINING:
        assert scene.connections(scene.unix) == 0
        assert "unix: No such file or directory" in stderr(result)
    else:
        assert scene.connections(scene.unix) == 1
        assert "unix: connected" in stderr(result)


async def test_resolve_and_connect_outside(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("outside.py"))
    assert outcome(result) == "ok"
    if layer in CONTAINING:
        # No resolver and no route: nothing leaves the namespace.
        assert "outside: connected" not in stderr(result)
        assert "resolve:" not in stderr(result)
    # At the base layer the result depends on this machine's network; either is the gap.


# -- the filesystem --------------------------------------------------------------------


async def test_secret_other_boxes_and_writes_outside(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("snoop.py"))
    assert outcome(result) == "ok"
    err = stderr(result)
    if layer in CONTAINING:
        assert "secret: No such file or directory" in err
        assert "listing: No such file or directory" in err
        assert scene.token not in err.replace(f"hostile-{scene.token}", "")
        assert scene.escaped_files() == []
        # Inside, /tmp and /dev/shm are private and writable; the outside dir does not exist.
        assert f"write {scene.outside}: No such file or directory" in err
    else:
        assert f"secret: read the-secret-{scene.token}" in err
        assert "strategy.txt" in err
        assert len(scene.escaped_files()) == 3


async def test_fill_the_disk(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("hostile", "disk"))
    assert outcome(result) == "ok"
    err = stderr(result)
    limit = LIMITS.file_size_mb
    if layer in CONTAINING:
        assert "disk 0: Read-only file system" in err  # the box
        assert f"disk 1: stopped after {LIMITS.tmp_mb} MiB: No space left on device" in err
        assert f"disk 2: stopped after {LIMITS.tmp_mb // 4} MiB: No space left" in err
        assert scene.escaped_files() == []
        assert not (scene.box / f"fill-{scene.token}.bin").exists()
    else:
        for target in range(3):
            assert f"disk {target}: stopped after {limit} MiB: File too large" in err
        box_file = scene.box / f"fill-{scene.token}.bin"
        assert box_file.stat().st_size == limit * 1024 * 1024


async def test_open_files_without_bound(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("hostile", "nofile"))
    assert outcome(result) == "ok"
    line = next(x for x in stderr(result).splitlines() if x.startswith("nofile:"))
    assert line.startswith("nofile: Too many open files after ")
    assert int(line.rsplit(" ", 1)[1]) < LIMITS.open_files


# -- processes -------------------------------------------------------------------------


@pytest.fixture
def bomb_layer(layer: str) -> str:
    if layer == "base":
        pytest.skip(
            "base layer: no process limit (a root judge's bots run as root, and "
            "RLIMIT_NPROC ignores root): a fork bomb would exhaust the machine's pids"
        )
    if layer == "namespaces" and os.geteuid() != 0:
        pytest.skip(
            "namespaces layer without root: no uid of its own, so no process limit; "
            "a fork bomb would exhaust this user's processes"
        )
    return layer


async def test_fork_bomb_c(scene: Scene, bomb_layer: str) -> None:
    result = await play(scene, bomb_layer, scene.bot("hostile", "forkbomb"))
    assert outcome(result) == "timeout"


async def test_fork_bomb_shell(scene: Scene, bomb_layer: str) -> None:
    result = await play(scene, bomb_layer, scene.bot("forkbomb.sh"))
    assert outcome(result) == "timeout"


async def test_daemon_that_tries_to_outlive_the_match(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("hostile", "daemon"))
    assert outcome(result) == "ok"
    assert "daemon: started" in stderr(result)
    # play() has checked that nothing of it is left.


async def test_memory_without_bound(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("hostile", "memory"))
    if layer == "cgroups":
        assert outcome(result) == "memory"
    else:  # the address-space limit makes malloc fail; the bot then never answers
        assert outcome(result) == "timeout"
        assert "memory: malloc failed after" in stderr(result)


async def test_spin_without_answering(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("hostile", "spin"))
    assert outcome(result) == "timeout"


async def test_stop_itself(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("hostile", "stop"))
    assert outcome(result) == "timeout"


async def test_ptrace_the_judge(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("hostile", "ptrace"))
    assert outcome(result) == "ok"
    # Namespaces hide the judge; at the base layer the judge is non-dumpable and a bot left
    # uid 0 keeps no capability, so it cannot attach (and stop the judge) either.
    assert "ptrace: Operation not permitted" in stderr(result)


async def test_signal_the_judge(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("signal.sh"))
    assert outcome(result) == "ok"
    if layer in CONTAINING:
        assert "signal: refused" in stderr(result)
        assert scene.signals == []
    else:
        assert "signal: delivered" in stderr(result)
        assert scene.signals == [signal.SIGUSR1]


# -- output ----------------------------------------------------------------------------


async def test_flood_stdout(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("hostile", "stdout"))
    assert outcome(result) == "protocol_error"


async def test_flood_stderr(scene: Scene, layer: str) -> None:
    result = await play(scene, layer, scene.bot("hostile", "stderr"))
    assert outcome(result) == "ok"
    assert len(stderr(result)) < 16_384
    assert "bytes dropped" in stderr(result)
