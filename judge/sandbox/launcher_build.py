"""Building the C launcher (launcher.c): standard library only, so that the package's build
hook (hatch_build.py, at install time) and the judge (a fallback at run time) share it."""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

SOURCE = Path(__file__).with_name("launcher.c")
# Where an install puts the launcher it built (next to this file, so a wheel carries it).
PACKAGED_DIR = Path(__file__).with_name("bin")
# It runs once per bot start: without a C library first (x86-64 and arm64; a libc's
# start-up probes the CPU, which traps to the hypervisor in a VM), else static (no dynamic
# loader), else whatever this compiler can do.
NOLIBC = (
    "-O2",
    "-static",
    "-nostdlib",
    "-fno-stack-protector",
    "-fno-pie",
    "-no-pie",
    "-DLAUNCHER_NOLIBC",
)
BUILDS = (NOLIBC, ("-O2", "-static"), ("-O2",))
# The fork server's shared object (the same steps, returning in the bot's process): with libc.
LIBRARY = ("-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-DLAUNCHER_LIBRARY")
LIBRARY_SYMBOLS = (
    "launcher_serve",
    "launcher_fork",
    "launcher_fork_child",
    "launcher_clone_parent",
)


def binary_name() -> str:
    """launcher-<hash of the source, the flags and the machine>: a stale build is never used."""
    flavour = repr(BUILDS).encode() + platform.machine().encode()
    return "launcher-" + hashlib.sha256(SOURCE.read_bytes() + flavour).hexdigest()[:16]


def library_name() -> str:
    """liblauncher-<hash of the source, the flags and the machine>.so"""
    flavour = repr(LIBRARY).encode() + platform.machine().encode()
    return "liblauncher-" + hashlib.sha256(SOURCE.read_bytes() + flavour).hexdigest()[:16] + ".so"


def _loads(library: Path) -> bool:
    """The shared object loads here and has its entries (checked in a child process: a
    library that cannot load must not take the caller down)."""
    names = ", ".join(repr(name) for name in LIBRARY_SYMBOLS)
    check = (
        "import ctypes, sys; lib = ctypes.PyDLL(sys.argv[1]); "
        f"[getattr(lib, n) for n in ({names},)]"
    )
    try:
        probe = subprocess.run(
            [sys.executable, "-S", "-s", "-c", check, str(library)],
            capture_output=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def build_library(target: Path) -> str | None:
    """Compile the fork server's shared object to ``target``; None on success."""
    return _compile(target, (LIBRARY,), _loads, "the fork server's library")


def _runs(binary: Path) -> bool:
    """A build that compiles but cannot start a program (a new architecture) is skipped."""
    try:
        probe = subprocess.run(
            [str(binary), "-n", "-r", "core:0:0", "--", "/bin/sh", "-c", "exit 7"],
            capture_output=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 7


def build(target: Path) -> str | None:
    """Compile the launcher to ``target`` (atomically); None on success, else the problem."""
    return _compile(target, BUILDS, _runs, "the sandbox launcher")


def _compile(
    target: Path, builds: tuple[tuple[str, ...], ...], works: Callable[[Path], bool], what: str
) -> str | None:
    """The first of ``builds`` (compiler flags) that compiles and ``works``, moved to
    ``target`` atomically; None on success, else the problem."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return (
            f"{what} needs a C compiler (cc) to be built once: install one (Debian: gcc), "
            "then `uv sync --reinstall-package botjudge`"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    problem = ""
    for flags in builds:
        try:
            proc = subprocess.run(
                [cc, *flags, "-o", str(partial), str(SOURCE)],
                capture_output=True,
                text=True,
                timeout=120,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"building {what} failed: {exc}"
        if proc.returncode == 0 and works(partial):
            partial.chmod(0o755)
            os.replace(partial, target)
            return None
        problem = proc.stderr.strip() or f"the built {what} did not work here"
        partial.unlink(missing_ok=True)
    return f"building {what} failed:\n{problem}"
