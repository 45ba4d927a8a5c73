"""Finds this machine's interpreter of a Python version (standard library only: .ci/run runs it
with any python3, before anything is installed).

    python3 tests/pythons.py 3.12      # prints its path, or says why not and exits 1

Where to look, in order: pyenv's versions (the newest 3.12.x there), then ``python3.12`` on
the PATH, then uv's own list (``uv python find``). A candidate counts only if it runs and
says it is that version: a pyenv shim of a version not selected fails, and is passed over.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

SUPPORTED = ("3.11", "3.12", "3.13")


def _runs_as(python: str, version: str) -> bool:
    try:
        done = subprocess.run(
            [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and done.stdout.strip() == version


def _pyenv_candidates(version: str) -> list[str]:
    root = os.environ.get("PYENV_ROOT") or ""
    if not root and shutil.which("pyenv"):
        done = subprocess.run(["pyenv", "root"], capture_output=True, text=True, check=False)
        root = done.stdout.strip()
    versions = Path(root or Path.home() / ".pyenv") / "versions"
    found = []
    for folder in versions.glob(f"{version}.*"):
        patch = folder.name[len(version) + 1 :]
        if patch.isdigit():  # (not 3.12-dev, not 3.12.1t)
            found.append((int(patch), str(folder / "bin" / f"python{version}")))
    return [path for _, path in sorted(found, reverse=True)]


def _uv_candidates(version: str) -> list[str]:
    uv = shutil.which("uv")
    if uv is None:
        return []
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    done = subprocess.run(
        [uv, "python", "find", "--no-project", version],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    return [done.stdout.strip()] if done.returncode == 0 and done.stdout.strip() else []


def find_python(version: str) -> str | None:
    """The path of a working interpreter of ``version`` ("3.12"), or None."""
    if not re.fullmatch(r"3\.\d+", version):
        raise ValueError(f"not a Python version: {version!r}")
    on_path = shutil.which(f"python{version}")
    candidates = [
        *_pyenv_candidates(version),
        *([on_path] if on_path else []),
        *_uv_candidates(version),
    ]
    return next((c for c in candidates if _runs_as(c, version)), None)


if __name__ == "__main__":
    wanted = sys.argv[1]
    path = find_python(wanted)
    if path is None:
        sys.exit(
            f"no Python {wanted} here (looked in pyenv's versions, for python{wanted} on the "
            f"PATH and with `uv python find {wanted}`): install it, e.g. `pyenv install {wanted}`"
        )
    print(path)
