"""How the sandbox starts bots quickly without giving anything up: cgroup sets reused bot
after bot, cgroups entered without cgroup.procs writes (and the fallback where that
cannot work), the prepared /etc and /dev, and per-bot paths remembered per bot spec."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from judge.models import BotSpec
from judge.sandbox import launcher, skeleton
from judge.sandbox.base import BotProcess, SandboxLimits
from judge.sandbox.isolated import IsolatedSandbox
from judge.sandbox.probe import probe
from judge.sandbox.procs import descendants
from judge.sandbox.select import sandbox_for
from tests.conftest import ATTEMPT

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def cgroups_layer() -> None:
    report = probe()
    if not report.available.get("cgroups"):
        pytest.skip(f"cgroups layer unavailable: {report.reasons['cgroups']}")


def _namespaces_layer() -> None:
    report = probe()
    if not report.available.get("namespaces"):
        pytest.skip(f"namespaces layer unavailable: {report.reasons['namespaces']}")


def _cgroup_paths(pid: int) -> dict[str, str]:
    """hierarchy id -> the process's cgroup path in it."""
    found = {}
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        hid, _, path = line.split(":", 2)
        found[hid] = path
    return found


async def _answer(proc: BotProcess, message: bytes = b"ping\n") -> bytes:
    stdin, stdout = proc.process.stdin, proc.process.stdout
    assert stdin is not None and stdout is not None
    await stdin.send_all(message)
    with trio.fail_after(10):
        return await stdout.receive_some(4096)


ECHO = ("/bin/sh", "-c", 'read line; echo "got $line"; sleep 30')


async def test_cgroup_sets_are_reused_with_fresh_counters(cgroups_layer: None) -> None:
    """Bot after bot in the same cgroup directories: each starts inside all of them, an OOM
    kill or CPU used by the one before is not counted against the next. (Without warm
    sandboxes, so that the next bot's set is the one just released; with them,
    tests/test_sandbox_pool.py checks the counters.)"""
    limits = SandboxLimits(memory_mb=64, cpu_cores=0.5)
    sandbox = IsolatedSandbox("cgroups", limits, probe().hierarchy, pool=0)
    hog = BotSpec(
        name="hog",
        argv=(sys.executable, "-S", "-c", "x = bytearray(200 << 20)\nimport time; time.sleep(30)"),
    )
    first = await sandbox.start(hog, seed=1)
    assert first.cgroups is not None  # type: ignore[attr-defined]
    v1_dirs = [str(p) for p in first.cgroups.dirs[1:]]  # type: ignore[attr-defined]
    with trio.fail_after(10):
        await first.process.wait()
    assert first.memory_exceeded()
    await first.kill()

    spinner = BotSpec(name="spin", argv=("/bin/sh", "-c", "while :; do :; done"))
    second = await sandbox.start(spinner, seed=1)
    try:
        cgroups = second.cgroups  # type: ignore[attr-defined]
        assert [str(p) for p in cgroups.dirs[1:]] == v1_dirs  # the same directories again
        await trio.sleep(0.5)
        assert second.exit_status() is None  # a cgroup once killed does not kill newcomers
        assert not second.memory_exceeded()
        used = second.cpu_seconds()
        assert used is not None and 0 < used < 0.45
        # Every process of the bot is in every cgroup of the set; the relay is in none.
        tree = descendants(second.pid)
        assert len(tree) >= 3
        names = {Path(p).name for p in [*v1_dirs, str(cgroups.v2)]}
        for pid in tree:
            inside = [p for p in _cgroup_paths(pid).values() if Path(p).name in names]
            assert len(inside) == len(cgroups.dirs), _cgroup_paths(pid)
        assert not names & {Path(p).name for p in _cgroup_paths(second.pid).values()}
    finally:
        await second.kill()
    final = second.cpu_seconds()  # kept after the set went back for the next bot
    assert final is not None and final >= used

    third = await sandbox.start(BotSpec(name="echo", argv=ECHO), seed=1)
    try:
        assert await _answer(third) == b"got ping\n"
        third_used = third.cpu_seconds()
        assert third_used is not None and third_used < 0.2  # not the spinner's time
        assert not third.memory_exceeded()
    finally:
        await third.kill()


ANSWER_AND_END = ("/bin/sh", "-c", 'read line; echo "got $line"')


def _cgroup_frozen(v2: Path) -> bool:
    return "frozen 1" in (v2 / "cgroup.events").read_text().splitlines()


async def test_a_bot_that_ended_by_itself_leaves_its_v2_cgroup_to_the_next(
    cgroups_layer: None,
) -> None:
    """A bot that exited before its kill is not cgroup.kill'ed: its v2 directory (which
    a cgroup.kill would make unfit for clone3 into it) goes to the next bot as it is,
    instead of being replaced by a new one (a mkdir and an rmdir per bot)."""
    sandbox = IsolatedSandbox("cgroups", SandboxLimits(), probe().hierarchy, pool=0)
    first = await sandbox.start(BotSpec(name="once", argv=ANSWER_AND_END), seed=1)
    v2 = first.cgroups.v2  # type: ignore[attr-defined]
    assert v2 is not None
    assert await _answer(first) == b"got ping\n"
    with trio.fail_after(10):
        await first.process.wait()
        while (v2 / "cgroup.procs").read_text():  # noqa: ASYNC110 (the kernel lists exits late)
            await trio.sleep(0.01)
    await first.kill()
    second = await sandbox.start(BotSpec(name="echo", argv=ECHO), seed=1)
    try:
        assert second.cgroups.v2 == v2  # type: ignore[attr-defined]
        assert await _answer(second) == b"got ping\n"
    finally:
        await second.kill()
    # Killed while it ran: the next bot gets a fresh v2 directory, and freezing it works
    # (the kept cgroup.freeze descriptor of the old directory is not used for it).
    third = await sandbox.start(BotSpec(name="echo", argv=ECHO), seed=1)
    try:
        fresh = third.cgroups.v2  # type: ignore[attr-defined]
        assert fresh != v2
        third.pause()
        with trio.fail_after(10):
            while not _cgroup_frozen(fresh):  # noqa: ASYNC110 (the kernel says when)
                await trio.sleep(0.01)
        third.resume()
        assert await _answer(third) == b"got ping\n"
        assert not _cgroup_frozen(fresh)
    finally:
        await third.kill()


JUDGE_IN_A_KILLED_CGROUP = """
import json, sys, trio
from judge.models import BotSpec
from judge.sandbox.probe import probe
from judge.sandbox.select import sandbox_for

async def main():
    report = probe()
    sandbox = sandbox_for("cgroups")
    proc = await sandbox.start(BotSpec(name="echo", argv=tuple(sys.argv[1:])), seed=1)
    await proc.process.stdin.send_all(b"ping\\n")
    with trio.fail_after(10):
        answer = await proc.process.stdout.receive_some(100)
    await proc.kill()
    print(json.dumps({"clone_into": report.hierarchy.clone_into, "answer": answer.decode()}))

trio.run(main)
"""


def test_a_judge_in_a_once_killed_cgroup_still_starts_bots(cgroups_layer: None) -> None:
    """The kernel kills a child cloned into a cgroup whose kill count differs from its
    parent's cgroup: the probe notices, and bots join their v2 cgroup the slow way."""
    hierarchy = probe().hierarchy
    assert hierarchy is not None
    if hierarchy.v2 is None or not hierarchy.v2_kill:
        pytest.skip("no v2 cgroup with cgroup.kill here")
    killed = hierarchy.v2 / f"botjudge-test-{os.getpid()}-killed"
    killed.mkdir()
    try:
        (killed / "cgroup.kill").write_text("1\n")  # empty, but counted
        judge = subprocess.run(
            [
                "/bin/sh",
                "-c",
                f'echo $$ > {killed}/cgroup.procs && exec "$@"',
                "sh",
                sys.executable,
                "-c",
                JUDGE_IN_A_KILLED_CGROUP,
                *ECHO,
            ],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=60,
        )
    finally:
        killed.rmdir()
    assert judge.returncode == 0, judge.stderr
    found = json.loads(judge.stdout.splitlines()[-1])
    assert found == {"clone_into": False, "answer": "got ping\n"}


def test_etc_snapshot_follows_the_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(skeleton, "RECHECK_EVERY", 0.0)
    monkeypatch.setattr(skeleton, "cache_dir", lambda: tmp_path / "cache")
    etc = tmp_path / "etc"
    (etc / "alternatives").mkdir(parents=True)
    (etc / "alternatives" / "awk").symlink_to("/usr/bin/mawk")
    (etc / "passwd").write_text("root:x:0:0::/root:/bin/sh\n")
    (etc / "group").write_text("root:x:0:\n")
    first = skeleton.etc_snapshot(etc)
    assert first is not None
    assert (first / "passwd").read_text() == "root:x:0:0::/root:/bin/sh\n"
    assert os.readlink(first / "alternatives" / "awk") == "/usr/bin/mawk"
    assert sorted(p.name for p in first.iterdir()) == ["alternatives", "group", "passwd"]
    assert skeleton.etc_snapshot(etc) == first  # nothing changed: the same snapshot

    (etc / "passwd").write_text("root:x:0:0::/root:/bin/sh\nbot:x:60000:60000::/tmp:/bin/sh\n")
    second = skeleton.etc_snapshot(etc)
    assert second is not None and second != first
    assert "bot:x:60000" in (second / "passwd").read_text()
    assert first.is_dir()  # a running bot may still have the old one bound


async def _read_to_end(proc: BotProcess) -> tuple[bytes, bytes]:
    """Everything the bot writes on stdout and stderr until it closes both."""
    found = {"out": b"", "err": b""}

    async def drain(key: str, stream: trio.abc.ReceiveStream | None) -> None:
        assert stream is not None
        while chunk := await stream.receive_some(65536):
            found[key] += chunk

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(drain, "out", proc.process.stdout)
            nursery.start_soon(drain, "err", proc.process.stderr)
    return found["out"], found["err"]


async def test_bots_see_the_prepared_etc_and_dev() -> None:
    _namespaces_layer()
    passwd = Path("/etc/passwd").read_text()  # noqa: ASYNC240 (a small local file)
    script = (
        "cmp /etc/passwd /host-passwd-not-there 2>/dev/null; "
        "cat /etc/passwd; echo ---; "
        "echo x > /dev/null && echo null-ok; head -c 8 /dev/urandom | wc -c; "
        "touch /dev/new || true; touch /etc/new || true; "
        "mkdir /dev/shm/d && echo shm-ok"
    )
    sandbox = sandbox_for("namespaces")
    proc = await sandbox.start(BotSpec(name="look", argv=("/bin/sh", "-c", script)), seed=1)
    out, err = await _read_to_end(proc)
    await proc.kill()
    text, err_text = out.decode(), err.decode()
    assert text.split("---\n")[0] == passwd, (text, err_text)
    assert "null-ok\n8\n" in text and "shm-ok" in text
    assert "touch: cannot touch '/etc/new'" in err_text
    assert "touch: cannot touch '/dev/new'" in err_text


async def test_a_replaced_program_is_worked_out_again(tmp_path: Path) -> None:
    """Paths are remembered per bot spec, but a program replaced by another file is looked
    at afresh; a link that leads out of the box shows nothing outside it."""
    _namespaces_layer()
    box, other = tmp_path / "box", tmp_path / "other"
    for directory in (tmp_path, box, other):
        directory.mkdir(exist_ok=True)
        directory.chmod(0o755)
    program = box / "bot"
    program.write_text("#!/bin/sh\nread line; echo first; sleep 30\n")
    program.chmod(0o755)
    sandbox = IsolatedSandbox("namespaces")
    bot = BotSpec(name="b", argv=(str(program),), cwd=box, box=box)
    proc = await sandbox.start(bot, seed=1)
    try:
        assert await _answer(proc) == b"first\n"
    finally:
        await proc.kill()
    program.unlink()
    program.write_text("#!/bin/sh\nread line; echo second; sleep 30\n")
    program.chmod(0o755)
    proc = await sandbox.start(bot, seed=1)
    try:
        assert await _answer(proc) == b"second\n"
    finally:
        await proc.kill()
    real = other / "bot"
    real.write_text("#!/bin/sh\nread line; echo outside; sleep 30\n")
    real.chmod(0o755)
    program.unlink()
    program.symlink_to(real)
    proc = await sandbox.start(bot, seed=1)
    out, err = await _read_to_end(proc)
    await proc.kill()
    assert out == b"" and b"No such file or directory" in err, (out, err)


@pytest.mark.parametrize("flags", launcher.BUILDS, ids=["nolibc", "static", "dynamic"])
def test_every_launcher_build_applies_the_same_rules(
    flags: tuple[str, ...], tmp_path: Path
) -> None:
    """The launcher is built without a libc where it can be, with one elsewhere: each build
    sets limits, Landlock and seccomp alike, finds programs on PATH and reports failures."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    binary = tmp_path / "launcher"
    built = subprocess.run(
        [cc, *flags, "-o", str(binary), str(launcher.SOURCE)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if built.returncode != 0:
        pytest.skip(f"this compiler cannot make that build: {built.stderr.strip()[-200:]}")
    allowed, elsewhere = tmp_path / "allowed", tmp_path / "elsewhere"
    allowed.mkdir()
    elsewhere.mkdir()
    script = (
        "import os, resource, socket\n"
        + ATTEMPT
        + f"attempt('allowed', lambda: open({str(allowed / 'a')!r}, 'w').close())\n"
        f"attempt('elsewhere', lambda: open({str(elsewhere / 'b')!r}, 'w').close())\n"
        "attempt('inet', lambda: socket.socket(socket.AF_INET))\n"
        "print('nofile', resource.getrlimit(resource.RLIMIT_NOFILE))\n"
        "print('cpu', resource.getrlimit(resource.RLIMIT_CPU))\n"
    )
    python = Path(sys.executable).name  # found through PATH, as execvp does
    env = {"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"}
    run = subprocess.run(
        [
            str(binary),
            "-r",
            "nofile:64:64",
            "-r",
            "cpu:-1:-1",
            "-n",
            "-L",
            "-w",
            str(allowed),
            "-S",
            "--",
            python,
            "-S",
            "-c",
            script,
        ],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    import errno

    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "allowed ok",
        f"elsewhere {errno.EACCES}",
        f"inet {errno.EAFNOSUPPORT}",
        "nofile (64, 64)",
        f"cpu ({resource.RLIM_INFINITY}, {resource.RLIM_INFINITY})",
    ]
    missing = subprocess.run(
        [str(binary), "--", "no-such-program-here"],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    assert missing.returncode == 127
    assert missing.stderr == (
        "launcher: cannot run no-such-program-here: No such file or directory\n"
    )
    # The supervisor (base layer) ends the way its bot did.
    for command, status in (("exit 3", 3), ("kill -SEGV $$", -11)):
        ended = subprocess.run(
            [str(binary), "-s", "--", "/bin/sh", "-c", command], capture_output=True, timeout=30
        )
        assert ended.returncode == status


def test_a_released_uid_slot_stays_locked_for_this_judge_only() -> None:
    """A released slot is kept (its lock held) for this process's next bot; another judge
    process, or a child forked from this one, never gets it meanwhile."""
    import fcntl

    from judge.sandbox import procs

    if os.geteuid() != 0:
        pytest.skip("uid slots are used by a judge running as root")
    slot = procs.acquire_slot()
    procs.release_slot(slot)
    other = os.open(procs.SLOT_DIR / f"{slot}.lock", os.O_RDWR | os.O_CLOEXEC)
    try:
        with pytest.raises(BlockingIOError):  # another judge process cannot take it
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(other)
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # a forked judge: its own slot, not the parent's idle one
        try:
            os.write(write_end, str(procs.acquire_slot()).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    child_slot = int(os.read(read_end, 16))
    os.close(read_end)
    os.waitpid(child, 0)
    assert child_slot != slot
    again = procs.acquire_slot()
    try:
        assert again == slot
    finally:
        procs.release_slot(again)


def test_a_judge_with_a_sandbox_has_its_descriptor_limit_raised(cgroups_layer: None) -> None:
    """The judge holds ~9 descriptors per running bot (pipes, its cgroup set's files): a
    sandbox raises the judge's soft RLIMIT_NOFILE to the hard one (bots get their own)."""
    code = (
        "import resource\n"
        "from judge.sandbox.probe import probe\n"
        "from judge.sandbox.isolated import IsolatedSandbox\n"
        "from judge.sandbox.base import SandboxLimits\n"
        "IsolatedSandbox('cgroups', SandboxLimits(), probe().hierarchy)\n"
        "print(*resource.getrlimit(resource.RLIMIT_NOFILE))\n"
    )
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]

    def low() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))

    out = subprocess.run(
        [sys.executable, "-c", code],
        preexec_fn=low,
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        timeout=60,
    ).stdout.split()
    assert [int(n) for n in out] == [hard, hard]
