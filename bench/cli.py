"""Item: how fast the `judge` command starts (issue 14, "quick to start").

In interleaved rounds, wall time of ``judge --help`` and of ``judge match rps rock paper
--turns 1`` (sandbox as the machine offers), next to ``python -c pass`` (the interpreter's
own start, measured in the same rounds), so a loaded machine shows as a ratio rather than a
false figure. Targets: --help under 0.3 s, the one-turn match under 1 s.

The same match also runs without bytecode for anything but the standard library (a
PYTHONPYCACHEPREFIX holding only the standard library's, and PYTHONDONTWRITEBYTECODE: the
judge process compiles the judge and its dependencies at every start, as it does where their
bytecode was never written), and the item counts how many of the modules a match imports
have current bytecode, which is what the first figures depend on.
"""

from __future__ import annotations

import importlib.util
import os
import py_compile
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from bench.common import ROOT, Report, Row, Spread, paired_ratios
from judge.bytecode import has_current_bytecode

MATCH = ["match", "rps", "rock", "paper", "--turns", "1"]
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "judge --help": [sys.executable, "-m", "judge.cli", "--help"],
    "judge match rps rock paper --turns 1": [sys.executable, "-m", "judge.cli", *MATCH],
}
NO_BYTECODE = "the same match, no bytecode but the standard library's"
TARGETS = {"judge --help": 0.3, "judge match rps rock paper --turns 1": 1.0}

# Runs the match and writes the file of every module it imported (for the bytecode count).
RECORDING = """
import atexit, sys
def record(path=sys.argv[1]):
    files = (getattr(m, "__file__", None) for m in list(sys.modules.values()))
    with open(path, "w") as out:
        out.write("\\n".join(f for f in files if f and f.endswith(".py")))
atexit.register(record)
sys.argv = ["judge", *sys.argv[2:]]
from judge.cli import main
main()
"""


def wall(argv: list[str], env: dict[str, str] | None = None) -> float:
    return measure(argv, env)[0]


def measure(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and every process it started)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(
        argv,
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    elapsed = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def imported_files() -> list[str]:
    """The source file of every module a one-turn match imports."""
    with tempfile.NamedTemporaryFile("r") as record:
        subprocess.run(
            [sys.executable, "-c", RECORDING, record.name, *MATCH],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        return sorted(set(record.read().split("\n")) - {""})


def stdlib_only_cache(files: list[str]) -> str:
    """A PYTHONPYCACHEPREFIX directory with the bytecode of the standard library's ``files``
    and nothing else."""
    prefix = tempfile.mkdtemp(prefix="bench-stdlib-bytecode-")
    stdlib = {Path(sysconfig.get_paths()[k]).resolve() for k in ("stdlib", "platstdlib")}
    saved, sys.pycache_prefix = sys.pycache_prefix, prefix
    try:
        for name in files:
            path = Path(name).resolve()
            if "site-packages" not in path.parts and any(d in path.parents for d in stdlib):
                py_compile.compile(name, cfile=importlib.util.cache_from_source(name))
    finally:
        sys.pycache_prefix = saved
    return prefix


def run(quick: bool = False) -> Report:
    report = Report("cli")
    rounds = 1 if quick else 15
    files = imported_files()
    missing = [f for f in files if not has_current_bytecode(Path(f))]
    stdlib_cache = stdlib_only_cache(files)
    no_bytecode = {
        **os.environ,
        "PYTHONPYCACHEPREFIX": stdlib_cache,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    # --quick (the test suite's run) times no match: it only checks the item works.
    commands: dict[str, tuple[list[str], dict[str, str] | None]] = {
        name: (argv, None) for name, argv in COMMANDS.items() if not (quick and "match" in name)
    }
    if not quick:
        commands[NO_BYTECODE] = (COMMANDS["judge match rps rock paper --turns 1"], no_bytecode)
        for argv, env in commands.values():  # warm the file cache (and the bytecode)
            wall(argv, env)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, (argv, env) in commands.items():
            elapsed, used = measure(argv, env)
            samples[name].append(elapsed)
            cpu[name].append(used)
    shutil.rmtree(stdlib_cache)
    current, imported = len(files) - len(missing), len(files)
    report.data = {
        "samples_s": samples,
        "cpu_s": cpu,
        "rounds": rounds,
        "bytecode": {"current": current, "imported": imported, "missing": missing},
        "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE", ""),
    }
    base = samples["python -c pass"]
    report.add(Row("cli", "python -c pass", Spread.of(base), "s", digits=3))
    report.add(
        Row(
            "cli",
            "modules a match imports that have current bytecode",
            Spread.of([current]),
            f"of {imported}",
            digits=0,
            note=", ".join(Path(f).name for f in missing[:3]) + (", ..." if missing[3:] else ""),
        )
    )
    for name in [*TARGETS, NO_BYTECODE]:
        if name not in samples:
            continue
        target = TARGETS.get(name)
        spread = Spread.of(samples[name])
        report.add(
            Row(
                "cli",
                name,
                spread,
                "s",
                f"< {target:g}" if target else "",
                spread.median < target if target else None,
                digits=3,
            )
        )
        report.add(
            Row(
                "cli",
                f"{name} / python -c pass (same round)",
                paired_ratios(samples[name], base),
                "x",
                digits=1,
            )
        )
        report.add(
            Row(
                "cli",
                f"{name}: CPU (with the bots it starts)",
                Spread.of(cpu[name]),
                "s",
                digits=3,
                note="wall on an idle machine is about this",
            )
        )
    if NO_BYTECODE in samples:
        report.add(
            Row(
                "cli",
                "match without bytecode / with (same round)",
                paired_ratios(samples[NO_BYTECODE], samples[" ".join(["judge", *MATCH])]),
                "x",
                digits=2,
            )
        )
    return report
