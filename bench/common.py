"""Shared pieces of the bench: statistics, ratios, rows of the table, JSON output, C builds.

Every figure is a median over repeated runs with its spread (min..max over the runs).
Comparisons are ratios of runs taken side by side (interleaved, same moment), so the
noise of a shared machine hits both sides of a ratio alike.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
BUILD_DIR = BENCH_DIR / "build"
RESULTS_DIR = BENCH_DIR / "results"
C_SOURCES = {
    "floor_judge": BENCH_DIR / "c" / "floor_judge.c",
    "floor_bot": BENCH_DIR / "c" / "floor_bot.c",
    "slow_bot": BENCH_DIR / "c" / "slow_bot.c",
    "rps_bot": ROOT / "bots" / "examples" / "c" / "rps_bot.c",
}


@dataclass(frozen=True)
class Spread:
    """The median of repeated measurements and their range."""

    median: float
    low: float
    high: float
    runs: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        if not values:
            raise ValueError("no measurements")
        return cls(statistics.median(values), min(values), max(values), len(values))

    def scaled(self, factor: float) -> Spread:
        return Spread(self.median * factor, self.low * factor, self.high * factor, self.runs)

    def text(self, digits: int = 1) -> str:
        return f"{self.median:.{digits}f} ({self.low:.{digits}f}..{self.high:.{digits}f})"


def paired_ratios(numerators: Sequence[float], denominators: Sequence[float]) -> Spread:
    """Ratios of measurements taken side by side: run i of one over run i of the other."""
    if len(numerators) != len(denominators):
        raise ValueError("paired ratios need as many runs on each side")
    ratios = [a / b for a, b in zip(numerators, denominators, strict=True) if b > 0]
    return Spread.of(ratios)


@dataclass
class Row:
    """One line of the summary table."""

    item: str
    figure: str
    value: Spread | None
    unit: str
    target: str = ""
    met: bool | None = None
    note: str = ""
    digits: int = 1

    def cells(self) -> list[str]:
        value = self.value.text(self.digits) if self.value is not None else "-"
        verdict = {True: "yes", False: "NO", None: ""}[self.met]
        return [self.item, self.figure, value, self.unit, self.target, verdict, self.note]


@dataclass
class Report:
    """What one bench script produced: rows for the table and raw data for its JSON file."""

    name: str
    rows: list[Row] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        return row

    def save(self, quick: bool) -> Path:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        path = RESULTS_DIR / f"{self.name}{'-quick' if quick else ''}.json"
        payload = {
            "bench": self.name,
            "quick": quick,
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": machine(),
            "rows": [
                {**asdict(row), "value": asdict(row.value) if row.value else None}
                for row in self.rows
            ],
            "data": self.data,
        }
        path.write_text(json.dumps(payload, indent=1, default=str) + "\n")
        return path


def machine() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "cpus": len(os.sched_getaffinity(0)),
        "python": platform.python_version(),
        "kernel": platform.release(),
        "load_avg": load,
    }


def quiet_logs() -> None:
    """The runner logs every match at info; the bench wants only warnings."""
    from judge import logs

    logs.configure("warning")
    logging.getLogger().setLevel(logging.WARNING)


def build(name: str) -> Path:
    """Compile one of the bench's C programs into bench/build/ (only when its source changed)."""
    source = C_SOURCES[name]
    target = BUILD_DIR / name
    if target.exists() and target.stat().st_mtime >= source.stat().st_mtime:
        return target
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise RuntimeError("the bench needs a C compiler (cc or gcc)")
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    subprocess.run([cc, "-O2", "-o", str(target), str(source)], check=True)
    return target


def c_bot(name: str = "rps_bot", label: str | None = None) -> Any:
    from judge.models import BotSpec

    path = build(name)
    return BotSpec(name=label or name, argv=(str(path),), readonly_paths=(BUILD_DIR,))


def python_rps_bot(label: str = "python") -> Any:
    """A Python rps bot as users write them: bots/examples/python/rps_bot.py with botlib."""
    from judge.bots import resolve

    spec = resolve(str(ROOT / "bots" / "examples" / "python" / "rps_bot.py"), "rps")
    return spec.model_copy(update={"name": label})


def rps_spec(bots: Sequence[Any], turns: int, seed: int = 0, **extra: Any) -> Any:
    from judge.models import MatchSpec

    return MatchSpec(game="rps", bots=list(bots), options={"turns": turns}, seed=seed, **extra)


def print_table(rows: Sequence[Row], title: str = "bench") -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_lines=False)
    for header in ("item", "figure", "median (min..max)", "unit", "target", "met", "note"):
        table.add_column(header, overflow="fold")
    for row in rows:
        table.add_row(*row.cells())
    Console(file=sys.stdout, width=160).print(table)
