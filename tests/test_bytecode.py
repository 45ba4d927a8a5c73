"""Bytecode written at install time (judge/bytecode.py, run by hatch_build.py): Python reads
it even where it may not write bytecode itself, and never for a file changed since."""

from __future__ import annotations

import os
import py_compile
import subprocess
import sys
from pathlib import Path

from judge.bytecode import compile_sources, has_current_bytecode


def load(root: Path) -> tuple[str, bool]:
    """VALUE of pkg.mod imported by a fresh interpreter that writes no bytecode, and whether
    it came from the bytecode file."""
    proc = subprocess.run(
        [sys.executable, "-v", "-c", "import pkg.mod; print(pkg.mod.VALUE)"],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    pyc = f"code object from '{root / 'pkg' / '__pycache__'}/mod."
    return proc.stdout.strip(), pyc in proc.stderr


def test_install_bytecode_is_read_and_never_stale(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "examples").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    module = package / "mod.py"
    module.write_text("VALUE = 1\n")
    (package / "examples" / "bot.py").write_text("print('a script')\n")
    assert load(tmp_path) == ("1", False)  # nothing written by the import itself

    assert compile_sources(tmp_path, ("pkg",))
    assert has_current_bytecode(module)
    assert not (package / "examples" / "__pycache__").exists()
    assert load(tmp_path) == ("1", True)
    os.utime(module, (0, 0))  # a checkout rewrote the file's time, not its content
    assert has_current_bytecode(module)
    assert load(tmp_path) == ("1", True)
    module.write_text("VALUE = 2\n")
    assert not has_current_bytecode(module)
    assert load(tmp_path) == ("2", False)


def test_timestamp_bytecode_is_current_until_the_file_changes(tmp_path: Path) -> None:
    module = tmp_path / "mod.py"
    module.write_text("VALUE = 1\n")
    assert not has_current_bytecode(module)
    py_compile.compile(str(module))  # what Python itself writes
    assert has_current_bytecode(module)
    os.utime(module, (0, 0))
    assert not has_current_bytecode(module)
