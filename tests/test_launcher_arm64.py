"""The launcher's arm64 builds, cross-compiled and run under qemu-user next to the native one.

The no-libc arm64 build (raw system calls, its own _start) and the static libc one must give
the same exit status, output and "launcher:" errors as the native launcher for every option
qemu-user can emulate; the exec'd programs are the host's own and run natively. Skipped
without aarch64-linux-gnu-gcc and qemu-aarch64 (Debian: gcc-aarch64-linux-gnu,
libc6-dev-arm64-cross, qemu-user). What qemu-user cannot emulate (PR_SET_SECCOMP;
PR_SET_CHILD_SUBREAPER, Landlock and clone3 in qemu 7.2) skips with the reason.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.sandbox import launcher

CROSS_CC = "aarch64-linux-gnu-gcc"
QEMU = "qemu-aarch64"

pytestmark = pytest.mark.skipif(
    shutil.which(CROSS_CC) is None or shutil.which(QEMU) is None,
    reason=f"needs {CROSS_CC} and {QEMU} on PATH (packages gcc-aarch64-linux-gnu, "
    "libc6-dev-arm64-cross, qemu-user)",
)

Result = tuple[int, str, str]
NOT_A_PID = "4194305"  # above the largest pid_max


def _cross_compile(flags: tuple[str, ...], target: Path, extra: tuple[str, ...] = ()) -> None:
    proc = subprocess.run(
        [CROSS_CC, *flags, *extra, "-o", str(target), str(launcher.SOURCE)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if proc.returncode != 0 and ("No such file" in proc.stderr or "cannot find" in proc.stderr):
        pytest.skip(f"the cross compiler lacks arm64 headers or libc: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def arm_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("arm64")


@pytest.fixture(scope="module")
def arm_nolibc(arm_dir: Path) -> Path:
    target = arm_dir / "launcher-nolibc"
    _cross_compile(launcher.NOLIBC, target)
    return target


@pytest.fixture(scope="module")
def builds(arm_nolibc: Path, arm_dir: Path) -> dict[str, list[str]]:
    static = arm_dir / "launcher-static"
    _cross_compile(launcher.BUILDS[1], static)
    return {
        "native": [str(launcher.launcher_binary())],
        "arm64-nolibc": [QEMU, str(arm_nolibc)],
        "arm64-static": [QEMU, str(static)],
    }


def run(prefix: list[str], args: list[str], **kwargs: object) -> Result:
    proc = subprocess.run(
        [*prefix, *args],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
        **kwargs,  # type: ignore[call-overload]
    )
    return proc.returncode, proc.stdout, proc.stderr


def run_all(builds: dict[str, list[str]], args: list[str], **kwargs: object) -> dict[str, Result]:
    return {name: run(prefix, args, **kwargs) for name, prefix in builds.items()}


def assert_same(results: dict[str, Result]) -> Result:
    native = results["native"]
    for name, result in results.items():
        assert result == native, f"{name} differs from the native launcher"
    return native


def test_nolibc_build_is_a_static_aarch64_elf_without_libc(arm_nolibc: Path) -> None:
    data = arm_nolibc.read_bytes()
    assert data[:4] == b"\x7fELF"
    assert data[4] == 2 and data[5] == 1, "not 64-bit little-endian"
    e_type, e_machine = struct.unpack_from("<HH", data, 16)
    assert (e_type, e_machine) == (2, 183), "not an AArch64 ET_EXEC"
    (phoff,) = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    segment_types = {struct.unpack_from("<I", data, phoff + i * phentsize)[0] for i in range(phnum)}
    assert 3 not in segment_types and 2 not in segment_types, "has PT_INTERP or PT_DYNAMIC"
    nm = shutil.which("aarch64-linux-gnu-nm")
    if nm is None:
        pytest.skip("aarch64-linux-gnu-nm is missing")
    symbols = subprocess.run(
        [nm, str(arm_nolibc)], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    names = {line.split()[-1] for line in symbols if line.strip()}
    assert "_start" in names and "launcher_start" in names
    assert not [line for line in symbols if line.split()[:1] == ["U"]], "undefined symbols"
    assert not {"__libc_start_main", "main", "errno", "__errno_location"} & names


CASES: list[tuple[str, list[str], Result]] = [
    (
        "rlimits",
        [
            "-r",
            "nofile:64:64",
            "-r",
            "core:0:0",
            "-r",
            "cpu:5:7",
            "-r",
            "fsize:1000:-1",
            "--",
            "/bin/sh",
            "-c",
            "ulimit -n; ulimit -c; ulimit -t; ulimit -H -t; ulimit -f; ulimit -H -f",
        ],
        (0, "64\n0\n5\n7\n1\nunlimited\n", ""),
    ),
    ("chdir", ["-c", "/tmp", "--", "/bin/sh", "-c", "pwd"], (0, "/tmp\n", "")),
    (
        "chdir to a missing dir",
        ["-c", "/nonexistent-dir", "--", "/bin/true"],
        (127, "", "launcher: chdir /nonexistent-dir: No such file or directory\n"),
    ),
    (
        "unknown option",
        ["-x", "--", "/bin/true"],
        (127, "", "launcher: usage -x: Invalid argument\n"),
    ),
    ("option without its value", ["-r"], (127, "", "launcher: usage -r: Invalid argument\n")),
    (
        "bad rlimit",
        ["-r", "bogus:1:1", "--", "/bin/true"],
        (127, "", "launcher: bad rlimit bogus:1:1: Invalid argument\n"),
    ),
    ("no program", ["-n", "--"], (127, "", "launcher: usage no program: Invalid argument\n")),
    (
        "template options without -N",
        ["-M", "3", "--", "/bin/true"],
        (127, "", "launcher: usage -M or -K without -N: Invalid argument\n"),
    ),
    (
        "a template of no tree",
        ["-K"],
        (127, "", "launcher: usage -M or -K without -N: Invalid argument\n"),
    ),
    (
        "missing program",
        ["--", "/nonexistent/program"],
        (127, "", "launcher: cannot run /nonexistent/program: No such file or directory\n"),
    ),
    (
        "program not on PATH",
        ["no-such-program-botjudge"],
        (127, "", "launcher: cannot run no-such-program-botjudge: No such file or directory\n"),
    ),
    ("exit status", ["--", "/bin/sh", "-c", "exit 42"], (42, "", "")),
    ("killed by a signal", ["--", "/bin/sh", "-c", "kill -TERM $$"], (-15, "", "")),
    (
        "no_new_privs",
        ["-n", "--", "/bin/sh", "-c", "grep NoNewPrivs /proc/self/status"],
        (0, "NoNewPrivs:\t1\n", ""),
    ),
    (
        "bad -p",
        ["-p", "x1", "--", "/bin/true"],
        (127, "", "launcher: bad -p x1: Invalid argument\n"),
    ),
    ("judge already gone (-p)", ["-p", NOT_A_PID, "--", "/bin/echo", "started"], (127, "", "")),
    (
        "judge alive (-p)",
        ["-p", str(os.getpid()), "--", "/bin/echo", "started"],
        (0, "started\n", ""),
    ),
]


@pytest.mark.parametrize(("args", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_same_as_native(builds: dict[str, list[str]], args: list[str], expected: Result) -> None:
    assert assert_same(run_all(builds, args)) == expected


def test_script_without_shebang_and_path_search(
    builds: dict[str, list[str]], tmp_path: Path
) -> None:
    script = tmp_path / "plain.sh"
    script.write_text('echo plain "$@"\n')
    script.chmod(0o755)
    (tmp_path / "not-executable").write_text("echo never\n")
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin"}
    assert assert_same(run_all(builds, ["plain.sh", "a", "b"], env=env)) == (0, "plain a b\n", "")
    denied = assert_same(run_all(builds, ["--", "not-executable"], env=env))
    assert denied == (127, "", "launcher: cannot run not-executable: Permission denied\n")


def test_moves_pipes_onto_stdin_and_stdout(builds: dict[str, list[str]]) -> None:
    for name, prefix in builds.items():
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        os.write(in_w, b"ping\n")
        os.close(in_w)
        shell = (
            f'read line; echo "got $line"; for fd in {in_r} {out_w}; do '
            f'test -e /proc/$$/fd/$fd && echo "fd $fd still open"; done; exit 0'
        )
        try:
            result = run(
                prefix,
                ["-i", f"{in_r}:{out_w}", "--", "/bin/sh", "-c", shell],
                pass_fds=(in_r, out_w),
            )
        finally:
            os.close(in_r)
            os.close(out_w)
        with os.fdopen(out_r) as moved:
            assert (result, moved.read()) == ((0, "", ""), "got ping\n"), name
    failed = assert_same(run_all(builds, ["-i", f"{NOT_A_PID}:1", "--", "/bin/true"]))
    assert failed == (127, "", "launcher: dup2: Bad file descriptor\n")


def test_parent_death_kills_the_bot(builds: dict[str, list[str]]) -> None:
    """-p: when the process that started the launcher dies, the bot gets SIGKILL."""
    for name, prefix in builds.items():
        middle_code = (
            "import os, subprocess\n"
            f"bot = subprocess.Popen({prefix!r} + ['-p', str(os.getpid()), '--', '/bin/sh', "
            "'-c', 'echo $$; exec sleep 600'], stdout=subprocess.PIPE)\n"
            "assert bot.stdout is not None\n"
            "print(int(bot.stdout.readline()), flush=True)\n"
        )
        # The bot inherits the middle process's stderr: EOF there means the bot is gone.
        middle = subprocess.Popen(
            [sys.executable, "-c", middle_code],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        assert middle.stdout is not None and middle.stderr is not None
        bot = int(middle.stdout.readline())
        try:
            assert middle.wait(timeout=30) == 0, name
            ready, _, _ = select.select([middle.stderr], [], [], 20)
            assert ready and middle.stderr.read() == b"", f"{name}: the bot outlived its parent"
            # EOF comes as the dying bot closes its files, a moment before it is a zombie.
            for _ in range(100):
                if not _alive(bot):
                    break
                time.sleep(0.02)
        finally:
            if _alive(bot):
                os.kill(bot, signal.SIGKILL)
            middle.stdout.close()
            middle.stderr.close()
        assert not _alive(bot), name


def _alive(pid: int) -> bool:
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


root_only = pytest.mark.skipif(os.geteuid() != 0, reason="needs root")


@root_only
def test_drops_every_capability(builds: dict[str, list[str]]) -> None:
    args = ["-C", "--", "/bin/sh", "-c", "grep ^Cap /proc/self/status"]
    caps = assert_same(run_all(builds, args))
    assert caps[0] == 0
    assert [line.split()[1] for line in caps[1].splitlines()] == ["0000000000000000"] * 5


@root_only
def test_drops_to_a_uid(builds: dict[str, list[str]]) -> None:
    ids = assert_same(
        run_all(
            builds,
            [
                "-u",
                "65534:65534",
                "--",
                "/bin/sh",
                "-c",
                "id -u; id -g; id -G; grep ^CapEff /proc/self/status",
            ],
        )
    )
    assert ids == (0, "65534\n65534\n65534\nCapEff:\t0000000000000000\n", "")


@pytest.fixture
def v2_cgroup() -> Iterator[Path]:
    mounts = Path("/proc/self/mounts").read_text().splitlines()
    roots = [line.split()[1] for line in mounts if line.split()[2:3] == ["cgroup2"]]
    if os.geteuid() != 0 or not roots:
        pytest.skip("needs root and a cgroup2 mount")
    group = Path(roots[0]) / f"botjudge-arm64-test-{uuid.uuid4().hex[:8]}"
    try:
        group.mkdir()
    except OSError as exc:
        pytest.skip(f"cannot create a v2 cgroup: {exc}")
    try:
        yield group
    finally:
        group.rmdir()


def test_enters_a_v2_cgroup(builds: dict[str, list[str]], v2_cgroup: Path) -> None:
    """Natively by clone3(CLONE_INTO_CGROUP) and a relay; qemu 7.2 lacks clone3, so there the
    launcher takes its fallback (cgroup.procs)."""
    result = assert_same(
        run_all(
            builds,
            ["-G", str(v2_cgroup), "--", "/bin/sh", "-c", "grep ^0:: /proc/self/cgroup; exit 5"],
        )
    )
    assert result == (5, f"0::/{v2_cgroup.name}\n", "")
    missing = assert_same(run_all(builds, ["-G", f"{v2_cgroup}-missing", "--", "/bin/true"]))
    assert missing == (
        127,
        "",
        f"launcher: opening cgroup {v2_cgroup}-missing: No such file or directory\n",
    )


def test_supervise_kills_the_bots_tree(builds: dict[str, list[str]]) -> None:
    args = ["-s", "--", "/bin/sh", "-c", "sleep 60 & echo started; exit 3"]
    for name, prefix in builds.items():
        result = run(prefix, args)  # a leaked sleep would hold stdout open: timeout
        if name != "native" and result[0] == 127 and "launcher: subreaper:" in result[2]:
            pytest.skip(f"qemu-user refuses PR_SET_CHILD_SUBREAPER: {result[2].strip()}")
        assert result == (3, "started\n", ""), name


def test_landlock(builds: dict[str, list[str]], tmp_path: Path) -> None:
    writable = tmp_path / "writable"
    writable.mkdir()
    outside = tmp_path / "outside"
    args = [
        "-L",
        "-w",
        str(writable),
        "--",
        "/bin/sh",
        "-c",
        f"echo x 2>/dev/null > {outside} && echo outside; "
        f"echo y > {writable}/inside && echo inside",
    ]
    native = run(builds["native"], args)
    if native[1] != "inside\n":
        pytest.skip(f"the kernel applies no Landlock here: {native}")
    for name in ("arm64-nolibc", "arm64-static"):
        outside.unlink(missing_ok=True)
        result = run(builds[name], args)
        if result == (0, "outside\ninside\n", ""):
            pytest.skip(
                "qemu-user does not pass Landlock through (the launcher skips it on "
                "ENOSYS, as on a kernel without Landlock)"
            )
        assert result == native, name


def test_seccomp(builds: dict[str, list[str]]) -> None:
    args = ["-S", "--", "/bin/sh", "-c", "unshare -m true 2>/dev/null; echo $?"]
    native = run(builds["native"], args)
    assert native == (0, "1\n", "")
    for name in ("arm64-nolibc", "arm64-static"):
        result = run(builds[name], args)
        if result[0] == 127 and "launcher: seccomp:" in result[2]:
            pytest.skip(f"qemu-user refuses PR_SET_SECCOMP: {result[2].strip()}")
        assert result == native, name


def test_big_endian_nolibc_build(arm_dir: Path) -> None:
    qemu_be = shutil.which("qemu-aarch64_be")
    if qemu_be is None:
        pytest.skip("qemu-aarch64_be is missing")
    target = arm_dir / "launcher-nolibc-be"
    _cross_compile(launcher.NOLIBC, target, ("-mbig-endian",))
    assert target.read_bytes()[5] == 2, "not big-endian"
    assert run([qemu_be, str(target)], CASES[0][1]) == CASES[0][2]
    usage = (127, "", "launcher: usage -x: Invalid argument\n")
    assert run([qemu_be, str(target)], ["-x"]) == usage
