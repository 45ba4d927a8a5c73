"""Item 2, judge overhead per turn: ``judge.runner.run_match`` playing rps between two C bots.

This process is the judge. Its CPU time (all threads) over a match divided by the turns
is the judge CPU per two-bot turn; the C floor judge (item 1) runs interleaved with it so
the ratio compares runs taken at the same moment. Two figures: per turn of a 1000-turn
match (start-up and shutdown of the bots included) and the marginal cost of one more turn
(from a 1000-turn and a longer match), which is the per-turn path alone.
"""

from __future__ import annotations

import sys
import time

import trio

from bench.common import Report, Row, Spread, c_bot, paired_ratios, quiet_logs, rps_spec
from bench.floor import floor_run

TARGET_CPU_US = 15.0


async def one_match(turns: int) -> tuple[float, float]:
    """(judge CPU s, wall s) of one rps match between two C bots, played in this process."""
    from judge.runner import run_match

    spec = rps_spec([c_bot(label="a"), c_bot(label="b")], turns)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    result = await run_match(spec)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    if result.turns != turns or any(p.outcome != "ok" for p in result.players):
        raise RuntimeError(f"the overhead match went wrong: {result.summary}")
    return cpu, wall


def measure(quick: bool = False) -> dict[str, list[float]]:
    sizes = (2, 200, 1000, 2000) if quick else (7, 1000, 5000, 20_000)
    repeats, turns, long_turns, floor_turns = sizes
    series: dict[str, list[float]] = {
        "cpu_us": [], "wall_us": [], "marginal_cpu_us": [], "marginal_wall_us": [],
        "floor_cpu_us": [], "floor_wall_us": [],
    }

    async def rounds() -> None:
        await one_match(turns)  # warm-up: imports, first spawns
        for _ in range(repeats):
            cpu, wall = await one_match(turns)
            long_cpu, long_wall = await one_match(long_turns)
            floor = floor_run(2, floor_turns)
            series["cpu_us"].append(cpu / turns * 1e6)
            series["wall_us"].append(wall / turns * 1e6)
            series["marginal_cpu_us"].append((long_cpu - cpu) / (long_turns - turns) * 1e6)
            series["marginal_wall_us"].append((long_wall - wall) / (long_turns - turns) * 1e6)
            series["floor_cpu_us"].append(floor["cpu_s"] / floor["turns"] * 1e6)
            series["floor_wall_us"].append(floor["wall_s"] / floor["turns"] * 1e6)

    trio.run(rounds)
    return series


def run(quick: bool = False) -> Report:
    quiet_logs()
    report = Report("overhead")
    s = measure(quick)
    report.data = s
    marginal = Spread.of(s["marginal_cpu_us"])
    report.add(Row("2 overhead", "judge CPU per two-bot turn, marginal (per-turn path)",
                   marginal, "µs", f"<= {TARGET_CPU_US:g}", marginal.median <= TARGET_CPU_US))
    report.add(Row("2 overhead", "judge CPU per turn of a 1000-turn match (start/stop incl.)",
                   Spread.of(s["cpu_us"]), "µs"))
    report.add(Row("2 overhead", "wall per turn of a 1000-turn match",
                   Spread.of(s["wall_us"]), "µs"))
    report.add(Row("2 overhead", "judge CPU per turn / C floor judge CPU (same run)",
                   paired_ratios(s["marginal_cpu_us"], s["floor_cpu_us"]), "x"))
    report.add(Row("2 overhead", "wall per turn / C floor wall (same run)",
                   paired_ratios(s["marginal_wall_us"], s["floor_wall_us"]), "x"))
    return report


def main() -> None:
    from bench.common import print_table

    quick = "--quick" in sys.argv
    report = run(quick)
    report.save(quick)
    print_table(report.rows, "overhead")


if __name__ == "__main__":
    main()
