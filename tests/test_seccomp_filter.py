"""The launcher's seccomp filter, instruction by instruction: built by launcher.c itself (a
build with -DLAUNCHER_SECCOMP_DUMP writes the very filter a bot gets) and run here, by a
classic-BPF interpreter, for every syscall number, against the rules of docs/security.md
written out independently. The syscall numbers come from the system's own <asm/unistd.h>;
with an arm64 cross compiler and qemu-user, the arm64 build's filter is checked the same way.

The filter is a binary search on the number (the kernel runs it for every syscall number when
it is installed, to find the always-allowed ones): the test also checks that no number takes
more than a few instructions to decide. The hostile suite checks the same rules on real
processes (tests/test_hostile.py, tests/test_sandbox.py)."""

from __future__ import annotations

import platform
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from judge.sandbox import launcher
from tests.test_launcher_arm64 import CROSS_CC, QEMU

CC = shutil.which("cc") or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="needs a C compiler")

ARCHES = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}  # AUDIT_ARCH_*
KILL_PROCESS, ALLOW, ERRNO = 0x80000000, 0x7FFF0000, 0x00050000
EPERM, ENOSYS, EINVAL, EAFNOSUPPORT = 1, 38, 22, 97
AF_UNIX = 1
NS_FLAGS = 0x7E020000  # CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
DENIED = [
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "bpf",
    "keyctl",
    "add_key",
    "request_key",
    "perf_event_open",
    "unshare",
    "setns",
    "kexec_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "open_by_handle_at",
    "name_to_handle_at",
    "userfaultfd",
    "syslog",
    "acct",
    "settimeofday",
    "clock_settime",
    "adjtimex",
    "quotactl",
    "fanotify_init",
    "kcmp",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "fsopen",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
    "vhangup",
    "pidfd_getfd",
    "kexec_file_load",
    "iopl",
    "ioperm",
    "lookup_dcookie",
]
NOT_THERE = ("inotify_init1", "inotify_init", "mq_open", "clone3")  # ENOSYS
LOCKS = (5, 6, 7, 12, 13, 14, 36, 37, 38)  # F_GETLK.. F_OFD_SETLKW: errno 0
NOTIFY = (1024, 1025, 1026)  # F_SETLEASE F_GETLEASE F_NOTIFY: EINVAL
NAMES = (*DENIED, *NOT_THERE, "flock", "fcntl", "socket", "clone")


Built = tuple[str, list[tuple[int, ...]], dict[str, int]]  # machine, filter, syscall numbers


def _build_and_run(tmp: Path, name: str, compiler: list[str], source: Path) -> bytes:
    target = tmp / name
    proc = subprocess.run(
        [*compiler, "-o", str(target), str(source)], capture_output=True, text=True
    )
    missing = "No such file" in proc.stderr or "cannot find" in proc.stderr
    if proc.returncode != 0 and compiler[0] == CROSS_CC and missing:
        pytest.skip(f"the cross compiler lacks arm64 headers or libc: {proc.stderr.strip()[:200]}")
    assert proc.returncode == 0, proc.stderr
    runner = [QEMU] if compiler[0] == CROSS_CC else []
    return subprocess.run([*runner, str(target)], capture_output=True, check=True).stdout


@pytest.fixture(scope="module", params=["native", "arm64"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The filter as launcher.c builds it, for this machine and, with a cross compiler and
    qemu-user, for arm64 (a static build run under qemu: only writing to stdout)."""
    if request.param == "native":
        machine, compiler = platform.machine(), [str(CC), "-O2"]
        if machine not in ARCHES:
            pytest.skip(f"no seccomp filter on {machine}")
    else:
        if shutil.which(CROSS_CC) is None or shutil.which(QEMU) is None:
            pytest.skip(f"needs {CROSS_CC} and {QEMU}")
        machine, compiler = "aarch64", [CROSS_CC, "-O2", "-static"]
    tmp = tmp_path_factory.mktemp(f"seccomp-{request.param}")
    raw = _build_and_run(tmp, "dump", [*compiler, "-DLAUNCHER_SECCOMP_DUMP"], launcher.SOURCE)
    program = [struct.unpack_from("<HBBI", raw, at) for at in range(0, len(raw), 8)]
    numbers_c = tmp / "numbers.c"
    lines = ["#include <stdio.h>", "#include <asm/unistd.h>", "int main(void) {"]
    for name in NAMES:
        lines += [f"#ifdef __NR_{name}", f'    printf("{name} %d\\n", __NR_{name});', "#endif"]
    numbers_c.write_text("\n".join([*lines, "    return 0;", "}", ""]))
    out = _build_and_run(tmp, "numbers", compiler, numbers_c).decode()
    nrs = {name: int(nr) for name, nr in (line.split() for line in out.splitlines())}
    return machine, program, nrs


def run(
    program: list[tuple[int, ...]], arch: int, nr: int, args: tuple[int, ...] = ()
) -> tuple[int, int]:
    """The filter's verdict for (arch, nr, args) and how many instructions it ran."""
    words = [nr, arch, 0, 0] + [w for a in (*args, 0, 0, 0, 0, 0, 0)[:6] for w in (a, 0)]
    data = struct.pack("<16I", *words)  # (x86-64 and arm64 Linux: little-endian)
    acc, pc, steps = 0, 0, 0
    while True:
        code, jt, jf, k = program[pc]
        steps += 1
        if code == 0x20:  # BPF_LD | BPF_W | BPF_ABS
            acc = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif code == 0x06:  # BPF_RET | BPF_K
            return k, steps
        elif code == 0x05:  # BPF_JMP | BPF_JA
            pc += 1 + k
        elif code in (0x15, 0x35, 0x25, 0x45):  # JEQ JGE JGT JSET, K
            taken = {0x15: acc == k, 0x35: acc >= k, 0x25: acc > k, 0x45: bool(acc & k)}[code]
            pc += 1 + (jt if taken else jf)
        else:
            raise AssertionError(f"unexpected instruction {code:#x} at {pc}")


def expected(machine: str, nrs: dict[str, int], nr: int, args: tuple[int, ...] = ()) -> int:
    first = args[0] if args else 0
    second = args[1] if len(args) > 1 else 0
    if machine == "x86_64" and nr >= 0x40000000:
        return ERRNO | EPERM  # the x32 ABI
    by_number = {number: name for name, number in nrs.items()}
    name = by_number.get(nr)
    if name in DENIED:
        return ERRNO | EPERM
    if name in NOT_THERE:
        return ERRNO | ENOSYS
    if name == "flock":
        return ERRNO | 0
    if name == "fcntl":
        return ERRNO | 0 if second in LOCKS else ERRNO | EINVAL if second in NOTIFY else ALLOW
    if name == "socket":
        return ALLOW if first == AF_UNIX else ERRNO | EAFNOSUPPORT
    if name == "clone":
        return ERRNO | EPERM if first & NS_FLAGS else ALLOW
    return ALLOW


def test_every_syscall_number_gets_the_documented_rule(built: Built) -> None:
    machine, program, nrs = built
    arch = ARCHES[machine]
    assert {"ptrace", "mount", "unshare", "clone3", "fcntl", "socket", "clone"} <= set(nrs)
    numbers = [*range(0, 2048), 0x3FFFFFFF, 0x40000000, 0x40000001, 0x40000000 + nrs["ptrace"]]
    numbers += [0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]
    for nr in numbers:
        assert run(program, arch, nr)[0] == expected(machine, nrs, nr), nr
        # Another architecture's calling convention is killed, whatever the number.
        assert run(program, 0x40000003, nr)[0] == KILL_PROCESS, nr  # AUDIT_ARCH_I386
    for cmd in (*range(0, 2048), 0xFFFFFFFF):
        args = (3, cmd)
        assert run(program, arch, nrs["fcntl"], args)[0] == expected(
            machine, nrs, nrs["fcntl"], args
        )
    for family in (0, 1, 2, 10, 16, 17, 0xFFFFFFFF):
        args = (family, 1)
        assert run(program, arch, nrs["socket"], args)[0] == expected(
            machine, nrs, nrs["socket"], args
        )
    flags = [0, 0x11, 0x100, 0x3D0F00, *(1 << bit for bit in range(32)), NS_FLAGS, 0xFFFFFFFF]
    for value in flags:
        args = (value,)
        assert run(program, arch, nrs["clone"], args)[0] == expected(
            machine, nrs, nrs["clone"], args
        )


def test_a_syscall_number_is_decided_in_a_few_instructions(built: Built) -> None:
    """A search, not a chain: the kernel runs the filter for every number when a bot installs
    it (with interrupts off), and every syscall not always allowed runs it again."""
    machine, program, nrs = built
    arch = ARCHES[machine]
    by_argument = {nrs["fcntl"], nrs["socket"], nrs["clone"]}  # (these read an argument too)
    steps = max(run(program, arch, nr)[1] for nr in range(0, 1024) if nr not in by_argument)
    assert steps <= 12, steps
    assert len(program) < 256
