"""The C launcher (launcher.c): compiled on first use, cached by the hash of its source."""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import threading
from pathlib import Path

from judge.sandbox.base import SandboxError

SOURCE = Path(__file__).with_name("launcher.c")
# It runs twice per namespaced bot start: without a C library first (x86-64 and arm64; a
# libc's start-up costs ~0.3 ms per exec in a VM), else static (no dynamic loader), else
# whatever this compiler can do.
NOLIBC = ("-O2", "-static", "-nostdlib", "-fno-stack-protector", "-fno-pie", "-no-pie",
          "-DLAUNCHER_NOLIBC")
BUILDS = (NOLIBC, ("-O2", "-static"), ("-O2",))
_build_lock = threading.Lock()
_built: Path | None = None


def cache_dir() -> Path:
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "botjudge"
    if os.geteuid() == 0:
        # Somewhere a dropped uid can reach, so bwrap binds it without staging.
        return Path("/var/cache/botjudge")
    return Path.home() / ".cache" / "botjudge"


def launcher_binary() -> Path:
    """Path of the compiled launcher; builds it once (needs cc), else raises SandboxError."""
    global _built
    if _built is not None and _built.exists():
        return _built
    with _build_lock:
        source = SOURCE.read_bytes()
        flavour = repr(BUILDS).encode() + platform.machine().encode()
        digest = hashlib.sha256(source + flavour).hexdigest()[:16]
        target = cache_dir() / f"launcher-{digest}"
        if not target.exists():
            _compile(target)
        _built = target
        return target


def _runs(binary: Path) -> bool:
    """A build that compiles but cannot start a program (a new architecture) is skipped."""
    try:
        probe = subprocess.run(
            [str(binary), "-n", "-r", "core:0:0", "--", "/bin/sh", "-c", "exit 7"],
            capture_output=True, timeout=30, stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 7


def _compile(target: Path) -> None:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise SandboxError("the sandbox launcher needs a C compiler (cc) to be built once")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    problem = ""
    for flags in BUILDS:
        try:
            proc = subprocess.run(
                [cc, *flags, "-o", str(partial), str(SOURCE)],
                capture_output=True, text=True, timeout=120,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxError(f"building the sandbox launcher failed: {exc}") from None
        if proc.returncode == 0 and _runs(partial):
            break
        problem = proc.stderr.strip() or "the built launcher could not start a program"
        partial.unlink(missing_ok=True)
    else:
        raise SandboxError(f"building the sandbox launcher failed:\n{problem}")
    partial.chmod(0o755)
    os.replace(partial, target)
