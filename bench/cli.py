"""Item: how fast the `judge` command starts (issue 14, "quick to start").

In interleaved rounds, wall time of ``judge --help`` and of ``judge match rps rock paper
--turns 1`` (sandbox as the machine offers), next to ``python -c pass`` (the interpreter's
own start, measured in the same rounds), so a loaded machine shows as a ratio rather than a
false figure. Targets: --help under 0.3 s, the one-turn match under 1 s.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time

from bench.common import ROOT, Report, Row, Spread, paired_ratios

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "judge --help": [sys.executable, "-m", "judge.cli", "--help"],
    "judge match rps rock paper --turns 1": [
        sys.executable,
        "-m",
        "judge.cli",
        "match",
        "rps",
        "rock",
        "paper",
        "--turns",
        "1",
    ],
}
TARGETS = {"judge --help": 0.3, "judge match rps rock paper --turns 1": 1.0}


def wall(argv: list[str]) -> float:
    return measure(argv)[0]


def measure(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and every process it started)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    elapsed = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def run(quick: bool = False) -> Report:
    report = Report("cli")
    rounds = 1 if quick else 15
    if not quick:
        for argv in COMMANDS.values():  # warm the file cache and the bytecode
            wall(argv)
    # --quick (the test suite's run) leaves out the match: it only checks the item works.
    commands = {n: a for n, a in COMMANDS.items() if not (quick and "match" in n)}
    samples: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, argv in commands.items():
            elapsed, used = measure(argv)
            samples[name].append(elapsed)
            cpu[name].append(used)
    report.data = {"samples_s": samples, "cpu_s": cpu, "rounds": rounds}
    base = samples["python -c pass"]
    report.add(Row("cli", "python -c pass", Spread.of(base), "s", digits=3))
    for name, target in TARGETS.items():
        if name not in samples:
            continue
        spread = Spread.of(samples[name])
        report.add(Row("cli", name, spread, "s", f"< {target:g}", spread.median < target, digits=3))
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
    return report
