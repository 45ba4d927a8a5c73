"""The sandbox layers with well-behaved bots: every language runs at every layer, the
probe and layer selection, pausing, and the limits that are not attacks."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

from judge.bots import builtin_spec, resolve
from judge.cli import main
from judge.models import BotSpec, MatchSpec
from judge.runner import run_match
from judge.sandbox.base import LAYERS, Sandbox, SandboxError, SandboxLimits
from judge.sandbox.probe import probe
from judge.sandbox.select import default_sandbox, sandbox_for
from tests.conftest import ATTEMPT

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "bots" / "examples"


@pytest.fixture(params=LAYERS)
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    report = probe()
    layer: str = request.param
    if not report.available.get(layer):
        pytest.skip(f"sandbox layer {layer} unavailable here: {report.reasons[layer]}")
    return sandbox_for(layer)


EXAMPLE_BOTS = {
    "c": "bots/examples/c/rps_bot.c",
    "js": "node bots/examples/js/rps.js",
    "sh": "bots/examples/sh/rps.sh",
    "python": "bots/examples/python/rps_bot.py",
    "builtin": "cycle",
}


@pytest.mark.parametrize("language", sorted(EXAMPLE_BOTS))
async def test_every_language_plays_at_every_layer(sandbox: Sandbox, language: str) -> None:
    if language == "js" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        bot = resolve(EXAMPLE_BOTS[language], "rps")
    finally:
        os.chdir(cwd)
    spec = MatchSpec(
        game="rps", bots=[bot, builtin_spec("rps", "rock")], seed=3, options={"turns": 50}
    )
    result = await run_match(spec, sandbox=sandbox)
    assert result.sandbox == sandbox.layer
    assert [p.outcome for p in result.players] == ["ok", "ok"], result.players
    assert result.turns == 50


async def test_liars_dice_pauses_the_idle_bot(sandbox: Sandbox, tmp_path: Path) -> None:
    spec = MatchSpec(
        game="liarsdice",
        bots=[builtin_spec("liarsdice", "computer"), builtin_spec("liarsdice", "robot")],
        seed=5,
    )
    assert spec.pause_idle
    paused = await run_match(spec, sandbox=sandbox, replay_path=tmp_path / "a.jsonl")
    unpaused = await run_match(
        spec.model_copy(update={"pause_idle": False}),
        sandbox=sandbox,
        replay_path=tmp_path / "b.jsonl",
    )
    assert [p.outcome for p in paused.players] == ["ok", "ok"], paused.players
    assert paused.turns == unpaused.turns > 1
    # Pausing changes nothing the game sees: the same turns, line for line.
    body = [
        line for line in (tmp_path / "a.jsonl").read_text().splitlines() if not line.startswith("#")
    ]
    assert body == [
        line for line in (tmp_path / "b.jsonl").read_text().splitlines() if not line.startswith("#")
    ]


# Liar's dice bots for the pondering test: both call liar at once (each hand is one turn);
# the mover thinks 0.2 s with its CPU idle, the ponderer spins in a thread between its turns
# and says, at each message, how much CPU and wall time went by since its last answer.
SLOW_CALLER = """
import sys, time
while line := sys.stdin.readline():
    if line.startswith("END"):
        break
    if line == ".\\n":
        time.sleep(0.2)
        sys.stdout.write("0\\n.\\n")
        sys.stdout.flush()
"""
PONDERER = """
import sys, threading, time

sys.setswitchinterval(0.0005)  # the reading thread gets the GIL back soon after its read


def ponder():
    while True:
        pass

answered = None
while line := sys.stdin.readline():
    if answered is not None:
        cpu, wall = time.process_time() - answered[0], time.monotonic() - answered[1]
        sys.stderr.write(f"between turns: cpu {cpu:.6f} wall {wall:.6f}\\n")
        answered = None
    if line.startswith("END"):
        break
    if line == ".\\n":
        answered = (time.process_time(), time.monotonic())
        sys.stdout.write("0\\n.\\n")
        sys.stdout.flush()
        if threading.active_count() == 1:
            threading.Thread(target=ponder, daemon=True).start()
"""


async def test_a_bot_pondering_between_its_turns_is_frozen_while_the_mover_thinks(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """Idle bots are paused once the judge waits for the mover (not at every turn's start):
    a bot that computes between its turns gets next to no CPU while the other thinks."""
    box = tmp_path / "box"
    box.mkdir(mode=0o755)
    box.chmod(0o755)
    for name, text in (("slow.py", SLOW_CALLER), ("ponder.py", PONDERER)):
        (box / name).write_text(text)
        (box / name).chmod(0o755)
    spec = MatchSpec(
        game="liarsdice",
        bots=[
            resolve(str(box / "slow.py"), "liarsdice"),
            resolve(str(box / "ponder.py"), "liarsdice"),
        ],
        seed=1,
    )

    async def pondered(pause_idle: bool) -> tuple[float, float, int]:
        result = await run_match(
            spec.model_copy(update={"pause_idle": pause_idle}), sandbox=sandbox
        )
        assert [p.outcome for p in result.players] == ["ok", "ok"], result.players
        found = [line.split() for line in result.players[1].stderr.splitlines()]
        spans = [(float(w[3]), float(w[5])) for w in found if w[:2] == ["between", "turns:"]]
        return sum(s[0] for s in spans), sum(s[1] for s in spans), len(spans)

    cpu, wall, spans = await pondered(True)
    assert spans >= 3 and wall >= 0.2 * (spans - 1)  # (the last: the end of the match)
    # While frozen it cannot run: what is left is the moment before the judge found the
    # mover's answer missing, and the ponderer's wait for its own GIL once thawed.
    assert cpu < 0.25 * wall, (cpu, wall)
    # The control: unpaused, the same bot does compute on the mover's time.
    free_cpu, free_wall, _ = await pondered(False)
    assert free_cpu > 2 * cpu, (free_cpu, free_wall, cpu, wall)


def _cpu_ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total


def _tree(pid: int) -> list[int]:
    from judge.sandbox.procs import descendants

    return [pid, *descendants(pid)]


async def test_pause_stops_the_whole_tree_and_resume_restarts_it(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """A bot that spins in two processes uses no CPU while paused."""
    box = tmp_path / "box"
    box.mkdir(mode=0o755)
    box.chmod(0o755)
    script = box / "spin.sh"
    script.write_text("#!/bin/sh\n( while :; do :; done ) &\nwhile :; do :; done\n")
    script.chmod(0o755)
    bot = BotSpec(name="spinner", argv=(str(script),), cwd=box, box=box)
    proc = await sandbox.start(bot, seed=1)
    try:
        await trio.sleep(0.3)
        tree = _tree(proc.pid)
        proc.pause()
        await trio.sleep(0.1)  # a cgroup freeze completes asynchronously
        frozen = _cpu_ticks(tree)
        await trio.sleep(0.5)
        assert _cpu_ticks(tree) == frozen
        proc.resume()
        await trio.sleep(0.5)
        assert _cpu_ticks(tree) > frozen
    finally:
        await proc.kill()
    assert proc.exit_status() is not None
    assert [pid for pid in tree if _left_over(pid)] == []


def _left_over(pid: int) -> bool:
    """Still running, or a zombie this process never reaped."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z" or int(fields[1]) == os.getpid()


async def test_a_missing_program_is_a_start_failure(sandbox: Sandbox) -> None:
    bot = BotSpec(name="ghost", argv=("/nonexistent/bot",))
    spec = MatchSpec(game="rps", bots=[bot, builtin_spec("rps", "rock")], options={"turns": 3})
    result = await run_match(spec, sandbox=sandbox)
    assert result.players[0].outcome in ("start_failed", "crash")
    assert result.players[1].outcome == "ok"


@pytest.fixture
def limited_layer(sandbox: Sandbox) -> str:
    if sandbox.layer == "none":
        pytest.skip("the plain layer sets no rlimits (development only)")
    return sandbox.layer


async def test_cpu_seconds_backstop_kills_a_spinner(limited_layer: str) -> None:
    """RLIMIT_CPU ends a bot that spins past its CPU budget even with a long deadline
    (SIGXCPU at the soft limit; SIGKILL a second later if the bot catches that)."""
    sandbox = sandbox_for(limited_layer, SandboxLimits(cpu_seconds=1))
    bot = BotSpec(name="spin", argv=("/bin/sh", "-c", "while :; do :; done"))
    spec = MatchSpec(
        game="rps",
        bots=[bot, builtin_spec("rps", "rock")],
        options={"turns": 3},
        turn_deadline=30.0,
        startup_allowance=0,
    )
    result = await run_match(spec, sandbox=sandbox)
    assert result.players[0].outcome == "crash"
    assert result.players[0].reason == f"killed by signal {signal.SIGXCPU.value}"


def test_default_is_the_strongest_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BOTJUDGE_SANDBOX", raising=False)
    monkeypatch.delenv("BOTJUDGE_MIN_SANDBOX", raising=False)
    assert default_sandbox().layer == probe().strongest
    monkeypatch.setenv("BOTJUDGE_SANDBOX", "none")
    assert default_sandbox().layer == "none"
    with pytest.raises(SandboxError, match="below the required minimum 'base'"):
        default_sandbox(minimum="base")
    with pytest.raises(SandboxError, match="unknown sandbox layer 'steel'"):
        default_sandbox("steel")


def test_cli_refuses_below_the_minimum_layer() -> None:
    runner = CliRunner()
    result = runner.invoke(
        main,
        [
            "match",
            "rps",
            "rock",
            "paper",
            "--turns",
            "3",
            "--sandbox",
            "none",
            "--min-sandbox",
            "base",
        ],
    )
    assert result.exit_code == 1
    assert "sandbox layer 'none' is below the required minimum 'base'" in result.output
    assert "Traceback" not in result.output


def test_cli_records_the_layer_in_result_and_replay(tmp_path: Path) -> None:
    layer = probe().strongest
    replay = tmp_path / "m.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "judge.cli",
            "match",
            "rps",
            "rock",
            "paper",
            "--turns",
            "3",
            "--json",
            "--replay",
            str(replay),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        env={**os.environ, "BOTJUDGE_SANDBOX": ""},
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["sandbox"] == layer
    header = json.loads(replay.read_text().splitlines()[0].split(" ", 1)[1])
    assert header["sandbox"] == layer


def test_judge_sandbox_reports_every_layer() -> None:
    result = CliRunner().invoke(main, ["sandbox", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert list(report["layers"]) == list(LAYERS)
    assert report["layers"]["none"]["available"] is True
    for layer, found in report["layers"].items():
        assert found["detail"], layer  # a reason for every layer, present or not
    assert report["strongest"] == probe().strongest
    text = CliRunner().invoke(main, ["sandbox"]).output
    assert f"strongest available: {probe().strongest}" in text


JUDGE_THAT_DIES = """
import json, sys, time, trio
from pathlib import Path
from judge.models import BotSpec
from judge.sandbox.procs import descendants
from judge.sandbox.select import sandbox_for

async def main():
    box = Path(sys.argv[2])
    bot = BotSpec(name="spin", argv=(str(box / "spin.sh"),), cwd=box, box=box)
    proc = await sandbox_for(sys.argv[1]).start(bot, seed=1)
    await trio.sleep(0.5)
    print(json.dumps([proc.pid, *descendants(proc.pid)]), flush=True)
    await trio.sleep(60)

trio.run(main)
"""


def test_bots_die_with_the_judge(sandbox: Sandbox, tmp_path: Path) -> None:
    """SIGKILL to the judge process: the parent-death signal takes its bots' trees down."""
    if sandbox.layer == "none":
        pytest.skip("the plain layer has no parent-death signal (development only)")
    box = tmp_path / "box"
    box.mkdir()
    box.chmod(0o755)
    script = box / "spin.sh"
    script.write_text(
        "#!/bin/sh\n( setsid sh -c 'while :; do sleep 1; done' & )\nwhile :; do sleep 1; done\n"
    )
    script.chmod(0o755)
    judge = subprocess.Popen(
        [sys.executable, "-c", JUDGE_THAT_DIES, sandbox.layer, str(box)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert judge.stdout is not None
        tree = json.loads(judge.stdout.readline())
        assert len(tree) >= 2
    finally:
        judge.kill()
        judge.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_running(pid) for pid in tree):
        time.sleep(0.02)
    assert [pid for pid in tree if _running(pid)] == []


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    if state == "Z":
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # ours if this process is a subreaper
        return False
    return True


MISBEHAVIOUR = {
    "closes stdout": (
        "exec 1>&-; sleep 5",
        "closed_stdout",
        "closed its stdout while still running",
    ),
    "exits early": ("exit 0", "exit", "exited with status 0 before the match ended"),
    "exits with 3": ("exit 3", "crash", "exited with status 3"),
    "segfaults": ("kill -SEGV $$", "crash", "killed by signal 11"),
}


@pytest.mark.parametrize("case", sorted(MISBEHAVIOUR))
async def test_misbehaviour_reads_the_same_at_every_layer(sandbox: Sandbox, case: str) -> None:
    """No wrapper of any layer holds the bot's pipes or hides how it ended."""
    script, code, reason = MISBEHAVIOUR[case]
    bot = BotSpec(name="bad", argv=("/bin/sh", "-c", script))
    spec = MatchSpec(
        game="rps",
        bots=[bot, builtin_spec("rps", "rock")],
        options={"turns": 3},
        turn_deadline=3.0,
        startup_allowance=0,
    )
    result = await run_match(spec, sandbox=sandbox)
    assert (result.players[0].outcome, result.players[0].reason) == (code, reason)


def test_launcher_landlock_and_seccomp_hold_without_bubblewrap(tmp_path: Path) -> None:
    """Defence in depth: the inner launcher's own rules, with no namespace around them."""
    from judge.sandbox.launcher import launcher_binary

    report = probe()
    if not report.available.get("base"):
        pytest.skip(f"no launcher: {report.reasons['base']}")
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = (
        "import ctypes, os, socket, sys\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "def unshare_user():\n"
        "    if libc.unshare(0x10000000) != 0:\n"
        "        raise OSError(ctypes.get_errno(), 'unshare')\n"
        + ATTEMPT
        + f"attempt('allowed', lambda: open({str(allowed / 'a')!r}, 'w').close())\n"
        f"attempt('elsewhere', lambda: open({str(elsewhere / 'b')!r}, 'w').close())\n"
        "attempt('inet', lambda: socket.socket(socket.AF_INET))\n"
        "attempt('unix', lambda: socket.socket(socket.AF_UNIX).close())\n"
        "attempt('unshare', unshare_user)\n"
    )
    proc = subprocess.run(
        [
            str(launcher_binary()),
            "-n",
            "-L",
            "-w",
            str(allowed),
            "-S",
            "--",
            sys.executable,
            "-S",
            "-c",
            script,
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    import errno

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:5] == [
        "allowed ok",
        f"elsewhere {errno.EACCES}",
        f"inet {errno.EAFNOSUPPORT}",
        "unix ok",
        f"unshare {errno.EPERM}",
    ]
    assert not (elsewhere / "b").exists()


async def test_cgroup_cpu_quota_caps_a_spinner(tmp_path: Path) -> None:
    """At the cgroups layer a bot gets at most its CPU quota, however hard it spins."""
    report = probe()
    if not report.available.get("cgroups"):
        pytest.skip(f"cgroups layer unavailable: {report.reasons['cgroups']}")
    sandbox = sandbox_for("cgroups", SandboxLimits(cpu_cores=0.1))
    bot = BotSpec(name="spin", argv=("/bin/sh", "-c", "while :; do :; done"))
    proc = await sandbox.start(bot, seed=1)
    try:
        await trio.sleep(1.5)
        used = proc.cpu_seconds()
    finally:
        await proc.kill()
    assert used is not None
    assert 0 < used < 0.5  # 0.1 core for 1.5 s is 0.15 s; unlimited would be ~1.5 s


async def test_a_directory_bot_with_a_relative_command(sandbox: Sandbox, tmp_path: Path) -> None:
    """bot.toml's run = "./bot" is relative to the bot's own directory at every layer."""
    box = tmp_path / "dirbot"
    box.mkdir()
    box.chmod(0o755)
    (box / "bot").write_text((EXAMPLES / "sh" / "rps.sh").read_text())
    (box / "bot").chmod(0o755)
    (box / "bot.toml").write_text('run = "./bot"\n')
    bot = resolve(str(box), "rps")
    spec = MatchSpec(game="rps", bots=[bot, builtin_spec("rps", "rock")], options={"turns": 5})
    result = await run_match(spec, sandbox=sandbox)
    assert [p.outcome for p in result.players] == ["ok", "ok"], result.players


async def test_a_path_in_the_command_is_not_shown_to_the_bot(tmp_path: Path) -> None:
    """Issue 11 §2: the sandbox shows a bot its box and the system, never what its argv names."""
    report = probe()
    if not report.available.get("namespaces"):
        pytest.skip(f"no namespaces layer: {report.reasons['namespaces']}")
    secret = tmp_path / "judge-data" / "judge.sqlite3"
    secret.parent.mkdir()
    secret.parent.chmod(0o755)
    secret.write_text("every user's bots\n")
    secret.chmod(0o644)
    box = tmp_path / "box"
    box.mkdir()
    box.chmod(0o755)
    # Exit 5 if the file named on the command line could be read, 6 if not.
    script = (
        'cat "$0" >/dev/null 2>&1 && exit 5; ls "$(dirname "$0")" >/dev/null 2>&1 && exit 4; exit 6'
    )
    bot = BotSpec(name="peek", argv=("/bin/sh", "-c", script, str(secret)), cwd=box, box=box)
    spec = MatchSpec(
        game="rps",
        bots=[bot, builtin_spec("rps", "rock")],
        options={"turns": 3},
        turn_deadline=3.0,
        startup_allowance=0,
    )
    result = await run_match(spec, sandbox=sandbox_for("namespaces"))
    assert result.players[0].reason == "exited with status 6", result.players[0]


# Plays rock, after leaving a grandchild in a session of its own that keeps the inherited
# stdout and stderr open and says where it is (its pid, in the box's "leftover" file).
PIPE_HOLDING_BOT = """\
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        try:
            with open("leftover.tmp", "w") as out:
                out.write(str(os.getpid()))
            os.rename("leftover.tmp", "leftover")
        except OSError:
            pass
        time.sleep(600)
    os._exit(0)
os.wait()
for _ in range(300):  # (where the box is not writable, it plays after 3 s)
    if os.path.exists("leftover"):
        break
    time.sleep(0.01)
for line in sys.stdin:
    if line.strip() == ".":
        sys.stdout.write("R\\n.\\n")
        sys.stdout.flush()
"""


def test_a_daemon_holding_the_bots_pipes_neither_hangs_the_match_nor_outlives_it(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    box = tmp_path / "box"
    box.mkdir()
    box.chmod(0o777)
    (box / "daemon.py").write_text(PIPE_HOLDING_BOT)
    argv = [sys.executable, "-m", "judge.cli", "match", "rps", str(box / "daemon.py"), "rock"]
    try:
        judge = subprocess.run(
            [*argv, "--turns", "3", "--sandbox", sandbox.layer, "--json"],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=60,  # (a judge waiting on the daemon's pipes never ends)
        )
    finally:
        leftover = box / "leftover"
        pid = int(leftover.read_text()) if leftover.exists() else None
        if pid is not None and sandbox.layer in ("none", "base") and _running(pid):
            os.kill(pid, signal.SIGKILL)  # (only the pid it wrote: ours to end)
            pytest.fail(f"the daemon {pid} outlived its match")
    assert judge.returncode == 0, judge.stderr
    assert json.loads(judge.stdout)["turns"] == 3
    if sandbox.layer in ("none", "base"):  # (deeper, its pid is one of its own namespace's)
        assert pid is not None


def test_without_a_compiler_the_reason_says_how_to_get_isolation(tmp_path: Path) -> None:
    """What `judge match` adds to its warning when it falls back to `none` for want of cc."""
    build = (
        "import sys; from pathlib import Path; from judge.sandbox.launcher_build import build; "
        "print(build(Path(sys.argv[1])))"
    )
    found = subprocess.run(
        [sys.executable, "-c", build, str(tmp_path / "launcher")],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"PATH": str(tmp_path)},  # (no cc in it)
        check=True,
    )
    assert "install one (Debian: gcc), then `uv sync --reinstall-package botjudge`" in found.stdout
    assert not (tmp_path / "launcher").exists()


def test_only_a_process_writing_to_a_bots_pipe_is_killed_as_its_leftover() -> None:
    """What holds the write end goes; a process with the read end (one forked by the judge
    would have it) is not the bot's."""
    from judge.sandbox import procs

    read_end, write_end = os.pipe()
    sleep = [sys.executable, "-c", "import time; time.sleep(60)"]
    writer = subprocess.Popen(sleep, pass_fds=(write_end,))
    reader = subprocess.Popen(sleep, pass_fds=(read_end,))
    os.close(write_end)
    try:
        assert procs.writers_remain(read_end)
        assert trio.run(procs.kill_pipe_holders, [read_end])
        assert not procs.writers_remain(read_end)
        assert not _running(writer.pid)
        assert reader.poll() is None
    finally:
        for process in (writer, reader):
            process.kill()
            process.wait()
        os.close(read_end)
