"""Building the C launcher (launcher.c): standard library only, so that the package's build
hook (hatch_build.py, at install time) and the judge (a fallback at run time) share it."""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
from pathlib import Path

SOURCE = Path(__file__).with_name("launcher.c")
# Where an install puts the launcher it built (next to this file, so a wheel carries it).
PACKAGED_DIR = Path(__file__).with_name("bin")
# It runs once per bot start: without a C library first (x86-64 and arm64; a libc's
# start-up costs ~0.3 ms per exec in a VM), else static (no dynamic loader), else whatever
# this compiler can do.
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


def binary_name() -> str:
    """launcher-<hash of the source, the flags and the machine>: a stale build is never used."""
    flavour = repr(BUILDS).encode() + platform.machine().encode()
    return "launcher-" + hashlib.sha256(SOURCE.read_bytes() + flavour).hexdigest()[:16]


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
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return "the sandbox launcher needs a C compiler (cc) to be built once"
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    problem = ""
    for flags in BUILDS:
        try:
            proc = subprocess.run(
                [cc, *flags, "-o", str(partial), str(SOURCE)],
                capture_output=True,
                text=True,
                timeout=120,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"building the sandbox launcher failed: {exc}"
        if proc.returncode == 0 and _runs(partial):
            partial.chmod(0o755)
            os.replace(partial, target)
            return None
        problem = proc.stderr.strip() or "the built launcher could not start a program"
        partial.unlink(missing_ok=True)
    return f"building the sandbox launcher failed:\n{problem}"
