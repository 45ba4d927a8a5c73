"""Item 2, judge overhead per turn: ``judge.runner.run_match`` playing rps between two C bots.

This process is the judge. Its CPU time (all threads) over a match divided by the turns
is the judge CPU per two-bot turn; the C floor judge (item 1) runs interleaved with it so
the ratio compares runs taken at the same moment. Two figures: per turn of a 1000-turn
match (start-up and shutdown of the bots included) and the marginal cost of one more turn
(from a 1000-turn and a longer match), which is the per-turn path alone.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import trio

from bench.common import Report, Row, Spread, c_bot, paired_ratios, quiet_logs, rps_spec
from bench.floor import MODES, floor_run
from judge.parallel import batch_scheduling, set_affinity

TARGET_CPU_US = 15.0
# The floor's modes, plus one CPU with the judge and its bots batch-scheduled, as a pinned
# worker of judge.parallel runs them (batch_scheduling); its floor is the same-CPU one.
OVERHEAD_MODES = (*MODES, "same CPU, batch")
FLOOR_MODE = {**{mode: mode for mode in MODES}, "same CPU, batch": "same CPU"}


def pinned_bot(label: str, mode: str) -> Any:
    """The C rps bot, moved to CPU 1 in cross-CPU mode (taskset execs it: per-turn cost 0)."""
    bot = c_bot(label=label)
    if mode != "cross CPU":
        return bot
    return bot.model_copy(update={"argv": ("taskset", "-c", "1", *bot.argv)})


async def one_match(turns: int, mode: str = "unpinned") -> tuple[float, float]:
    """(judge CPU s, wall s) of one rps match between two C bots, played in this process."""
    from judge.runner import run_match

    spec = rps_spec([pinned_bot("a", mode), pinned_bot("b", mode)], turns)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    result = await run_match(spec)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    if result.turns != turns or any(p.outcome != "ok" for p in result.players):
        raise RuntimeError(f"the overhead match went wrong: {result.summary}")
    return cpu, wall


def measure(quick: bool = False) -> dict[str, dict[str, list[float]]]:
    sizes = (2, 200, 1000, 2000) if quick else (7, 1000, 5000, 20_000)
    repeats, turns, long_turns, floor_turns = sizes
    keys = (
        "cpu_us",
        "wall_us",
        "marginal_cpu_us",
        "marginal_wall_us",
        "floor_cpu_us",
        "floor_wall_us",
    )
    series: dict[str, dict[str, list[float]]] = {m: {k: [] for k in keys} for m in OVERHEAD_MODES}
    everywhere = os.sched_getaffinity(0)

    async def rounds() -> None:
        await one_match(turns)  # warm-up: imports, first spawns
        for _ in range(repeats):
            for mode in OVERHEAD_MODES:  # interleaved, so drift hits every mode alike
                # Bots inherit the CPUs and the scheduling policy of the thread starting them.
                set_affinity(everywhere if mode == "unpinned" else {0})
                batch_scheduling(mode.endswith("batch"))
                try:
                    cpu, wall = await one_match(turns, mode)
                    long_cpu, long_wall = await one_match(long_turns, mode)
                finally:
                    set_affinity(everywhere)
                    batch_scheduling(False)
                floor = floor_run(2, floor_turns, FLOOR_MODE[mode])
                s = series[mode]
                s["cpu_us"].append(cpu / turns * 1e6)
                s["wall_us"].append(wall / turns * 1e6)
                s["marginal_cpu_us"].append((long_cpu - cpu) / (long_turns - turns) * 1e6)
                s["marginal_wall_us"].append((long_wall - wall) / (long_turns - turns) * 1e6)
                s["floor_cpu_us"].append(floor["cpu_s"] / floor["turns"] * 1e6)
                s["floor_wall_us"].append(floor["wall_s"] / floor["turns"] * 1e6)

    trio.run(rounds)
    return series


def run(quick: bool = False) -> Report:
    quiet_logs()
    report = Report("overhead")
    series = measure(quick)
    report.data = series
    for mode in OVERHEAD_MODES:
        s = series[mode]
        marginal = Spread.of(s["marginal_cpu_us"])
        # Judged with the bots on the judge's core: across vCPUs this VM's wake-ups cost
        # more than the whole target (the C floor's own figures: docs/performance.md).
        main_row = mode.startswith("same CPU")
        report.add(
            Row(
                "2 overhead",
                f"{mode}: judge CPU per two-bot turn (marginal)",
                marginal,
                "µs",
                f"<= {TARGET_CPU_US:g}" if main_row else "",
                marginal.median <= TARGET_CPU_US if main_row and not quick else None,
            )
        )
        report.add(
            Row(
                "2 overhead",
                f"{mode}: judge CPU / C floor judge CPU (same run)",
                paired_ratios(s["marginal_cpu_us"], s["floor_cpu_us"]),
                "x",
            )
        )
        report.add(
            Row(
                "2 overhead",
                f"{mode}: C floor judge CPU per two-bot turn",
                Spread.of(s["floor_cpu_us"]),
                "µs",
            )
        )
        report.add(
            Row(
                "2 overhead",
                f"{mode}: wall per turn / C floor wall (same run)",
                paired_ratios(s["marginal_wall_us"], s["floor_wall_us"]),
                "x",
            )
        )
        report.add(
            Row(
                "2 overhead",
                f"{mode}: judge CPU per turn of a 1000-turn match (start/stop incl.)",
                Spread.of(s["cpu_us"]),
                "µs",
            )
        )
    return report


def main() -> None:
    from bench.common import print_table

    quick = "--quick" in sys.argv
    report = run(quick)
    report.save(quick)
    print_table(report.rows, "overhead")


if __name__ == "__main__":
    main()
