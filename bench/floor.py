"""Item 1, the floor: a minimal C judge doing the rps round trip over pipes with C bots.

``bench/c/floor_judge.c`` writes one turn's message to one bot (or to two, then reads
both answers) and reads each ``R`` answer up to its ``.`` line. Nothing a judge in any
language can do per turn is cheaper, so it is the yardstick for item 2.
"""

from __future__ import annotations

import json
import subprocess
import sys

from bench.common import Report, Row, Spread, build

# Where the judge and its bots run: unpinned (the scheduler decides), all on one CPU, or
# judge on CPU 0 and bots on CPU 1. On a VM a cross-CPU wake-up costs far more than a
# same-CPU switch, and unpinned runs land in either mode, so both pinned modes are shown.
MODES = ("unpinned", "same CPU", "cross CPU")


def floor_run(bots: int, turns: int, mode: str = "unpinned") -> dict[str, float]:
    judge = build("floor_judge")
    bot = build("floor_bot")
    argv = [str(judge), str(bot), str(bots), str(turns)]
    if mode != "unpinned":
        argv = ["taskset", "-c", "0", *argv]
    if mode == "cross CPU":
        argv.append("1")
    out = subprocess.run(argv, check=True, capture_output=True, text=True, timeout=120)
    data: dict[str, float] = json.loads(out.stdout)
    return data


def measure(quick: bool = False) -> dict[tuple[int, str], dict[str, Spread]]:
    """Per (bots, mode): wall µs and judge CPU µs per turn, median over the runs."""
    repeats, turns = (2, 2000) if quick else (5, 30_000)
    runs: dict[tuple[int, str], list[dict[str, float]]] = {
        (bots, mode): [] for bots in (1, 2) for mode in MODES
    }
    for _ in range(repeats):
        for key in runs:  # interleaved, so drift hits every mode alike
            runs[key].append(floor_run(key[0], turns, key[1]))
    return {
        key: {
            "wall_us": Spread.of([r["wall_s"] / r["turns"] * 1e6 for r in rs]),
            "median_us": Spread.of([r["median_us"] for r in rs]),
            "cpu_us": Spread.of([r["cpu_s"] / r["turns"] * 1e6 for r in rs]),
        }
        for key, rs in runs.items()
    }


def run(quick: bool = False) -> Report:
    report = Report("floor")
    figures = measure(quick)
    for (bots, mode), fig in figures.items():
        what = "one bot" if bots == 1 else "two bots"
        report.add(Row("1 floor", f"C judge, {what}, {mode}: wall per turn", fig["wall_us"], "µs"))
        report.add(
            Row(
                "1 floor",
                f"C judge, {what}, {mode}: judge CPU per turn",
                fig["cpu_us"],
                "µs",
                digits=2,
            )
        )
    report.data = {f"{b} {m}": {k: vars(v) for k, v in f.items()} for (b, m), f in figures.items()}
    return report


def main() -> None:
    from bench.common import print_table

    quick = "--quick" in sys.argv
    report = run(quick)
    report.save(quick)
    print_table(report.rows, "floor")


if __name__ == "__main__":
    main()
