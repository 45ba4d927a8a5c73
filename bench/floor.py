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


def floor_run(bots: int, turns: int) -> dict[str, float]:
    judge = build("floor_judge")
    bot = build("floor_bot")
    out = subprocess.run(
        [str(judge), str(bot), str(bots), str(turns)],
        check=True, capture_output=True, text=True, timeout=120,
    )
    data: dict[str, float] = json.loads(out.stdout)
    return data


def measure(quick: bool = False) -> dict[int, dict[str, Spread]]:
    """Per mode (1 or 2 bots): wall µs and judge CPU µs per turn, median over the runs."""
    repeats, turns = (2, 2000) if quick else (5, 50_000)
    runs: dict[int, list[dict[str, float]]] = {1: [], 2: []}
    for _ in range(repeats):
        for bots in (1, 2):  # interleaved, so drift hits both modes alike
            runs[bots].append(floor_run(bots, turns))
    return {
        bots: {
            "wall_us": Spread.of([r["wall_s"] / r["turns"] * 1e6 for r in rs]),
            "median_us": Spread.of([r["median_us"] for r in rs]),
            "cpu_us": Spread.of([r["cpu_s"] / r["turns"] * 1e6 for r in rs]),
        }
        for bots, rs in runs.items()
    }


def run(quick: bool = False) -> Report:
    report = Report("floor")
    figures = measure(quick)
    for bots, fig in figures.items():
        what = "one bot" if bots == 1 else "two bots (simultaneous turn)"
        report.add(Row("1 floor", f"C judge, C bot: wall per turn, {what}", fig["wall_us"], "µs"))
        report.add(Row("1 floor", f"C judge CPU per turn, {what}", fig["cpu_us"], "µs", digits=2))
    report.data = {str(b): {k: vars(v) for k, v in f.items()} for b, f in figures.items()}
    return report


def main() -> None:
    from bench.common import print_table

    quick = "--quick" in sys.argv
    report = run(quick)
    report.save(quick)
    print_table(report.rows, "floor")


if __name__ == "__main__":
    main()
