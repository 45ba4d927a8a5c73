"""Item 3, throughput: 1000-turn rps matches per second with all cores in use.

Matches go through ``judge.executors.local.run_matches`` (one judge process per core, each
running ``per_worker`` matches at once), in worker processes started once for the whole
item, so each level's rate is a steady state (a cold start of the workers costs ~0.5 s).
Levels: C bots at several concurrencies, one judge process for comparison (same run,
interleaved), Python bots, and the sandbox on (the strongest layer the probe finds,
whatever layers exist here).
"""

from __future__ import annotations

import sys
import time
from typing import Any

import trio
import trio_parallel  # type: ignore[import-untyped]

from bench.common import (
    Report,
    Row,
    Spread,
    c_bot,
    paired_ratios,
    python_rps_bot,
    quiet_logs,
    rps_spec,
)

TARGET_MATCHES_PER_S = 60.0


async def level(
    bots: Any,
    matches: int,
    workers: int,
    per_worker: int,
    layer: str | None,
    turns: int,
    pin: bool = False,
    context: Any = None,
) -> dict[str, Any]:
    """One run of ``matches`` matches. With ``context`` (a worker context kept open) the
    workers are already running: the rate is the steady state, without their start-up."""
    from judge.executors.local import run_matches
    from judge.parallel import ParallelStats

    specs = [rps_spec(bots, turns, seed=i) for i in range(matches)]
    stats = ParallelStats()
    began = time.perf_counter()
    results = await run_matches(
        specs,
        workers=workers,
        per_worker=per_worker,
        sandbox_layer=layer,
        stats=stats,
        pin_cpus=pin,
        worker_context=context,
    )
    wall = time.perf_counter() - began
    bad = [p.outcome for r in results for p in r.players if p.outcome != "ok"]
    played = sum(r.turns for r in results)
    return {
        "matches_per_s": len(results) / wall,
        "judge_cpu_us_per_turn": stats.judge_cpu_s / max(played, 1) * 1e6,
        "bots_cpu_us_per_turn": stats.bots_cpu_s / max(played, 1) * 1e6,
        "failures": len(bad),
        "sandbox": results[0].sandbox if results else "",
    }


def run(quick: bool = False) -> Report:
    from judge.parallel import default_workers
    from judge.sandbox.probe import probe

    quiet_logs()
    report = Report("throughput")
    cores = default_workers()
    repeats, matches, turns = (1, 4, 200) if quick else (3, 48, 1000)
    concurrency = [2] if quick else [1, 2, 4, 8, 16]
    strongest = probe().strongest
    c_pair = [c_bot(label="a"), c_bot(label="b")]
    py_pair = [python_rps_bot("a"), python_rps_bot("b")]
    # (label, bots, workers, per_worker, layer, pinned)
    configs: list[tuple[str, Any, int, int, str | None, bool]] = [
        (f"C bots, {cores} judges x {k}", c_pair, cores, k, "none", False) for k in concurrency
    ]
    best_k = 2 if quick else 8
    configs += [
        (f"C bots, {cores} judges x {best_k}, pinned", c_pair, cores, best_k, "none", True),
        (f"C bots, 1 judge x {best_k * cores}", c_pair, 1, best_k * cores, "none", False),
        (f"Python bots, {cores} judges x {best_k}", py_pair, cores, best_k, "none", False),
        (
            f"C bots, sandbox {strongest}, {cores} judges x {best_k}",
            c_pair,
            cores,
            best_k,
            None,
            False,
        ),
        (
            f"C bots, sandbox {strongest}, {cores} judges x {best_k}, pinned",
            c_pair,
            cores,
            best_k,
            None,
            True,
        ),
    ]
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label, *_ in configs}

    async def main() -> None:
        # One set of worker processes for every level, started and warmed (imports, the
        # sandbox probe) before anything is timed: the rates are steady-state rates.
        async with trio_parallel.open_worker_context() as context:
            for layer in ("none", None):
                await level(c_pair, cores, cores, 1, layer, 10, context=context)
            for _ in range(repeats):
                for label, bots, workers, per_worker, layer, pin in configs:
                    runs[label].append(
                        await level(bots, matches, workers, per_worker, layer, turns, pin, context)
                    )

    trio.run(main)
    report.data = {"runs": runs, "matches": matches, "turns": turns, "cores": cores}
    main_label = f"C bots, {cores} judges x {best_k}"
    pinned_label = f"{main_label}, pinned"
    for label, *_ in configs:
        rates = Spread.of([r["matches_per_s"] for r in runs[label]])
        failures = sum(int(r["failures"]) for r in runs[label])
        is_main = label in (main_label, pinned_label)
        met = rates.median >= TARGET_MATCHES_PER_S if is_main and not quick else None
        report.add(
            Row(
                "3 throughput",
                f"{turns}-turn rps matches/s, {label}",
                rates,
                "/s",
                f">= {TARGET_MATCHES_PER_S:g}" if is_main else "",
                met,
                f"{failures} DQ" if failures else "",
            )
        )
    sandboxed = f"C bots, sandbox {strongest}, {cores} judges x {best_k}"
    for label in (main_label, pinned_label, sandboxed, f"{sandboxed}, pinned"):
        cpu = Spread.of([r["judge_cpu_us_per_turn"] for r in runs[label]])
        report.add(
            Row("3 throughput", f"judge CPU per turn (start/stop incl.), {label}", cpu, "µs")
        )
        bots = Spread.of([r["bots_cpu_us_per_turn"] for r in runs[label]])
        report.add(Row("3 throughput", f"both bots' CPU per turn, {label}", bots, "µs"))
        # What the CPU per match allows when the judge has the machine to itself.
        capacity = Spread.of(
            [
                cores * 1e6 / ((r["judge_cpu_us_per_turn"] + r["bots_cpu_us_per_turn"]) * turns)
                for r in runs[label]
            ]
        )
        report.add(
            Row(
                "3 throughput",
                f"CPU-bound capacity (cores / CPU per match), {label}",
                capacity,
                "/s",
                note="if nothing else ran",
            )
        )
    single = f"C bots, 1 judge x {best_k * cores}"
    report.add(
        Row(
            "3 throughput",
            f"matches/s {cores} judges / 1 judge (same run)",
            paired_ratios(
                [r["matches_per_s"] for r in runs[main_label]],
                [r["matches_per_s"] for r in runs[single]],
            ),
            "x",
            digits=2,
        )
    )
    report.add(
        Row(
            "3 throughput",
            "matches/s pinned / unpinned (same run)",
            paired_ratios(
                [r["matches_per_s"] for r in runs[pinned_label]],
                [r["matches_per_s"] for r in runs[main_label]],
            ),
            "x",
            digits=2,
        )
    )
    report.add(
        Row(
            "3 throughput",
            f"matches/s sandboxed ({strongest}) / plain (same run)",
            paired_ratios(
                [r["matches_per_s"] for r in runs[sandboxed]],
                [r["matches_per_s"] for r in runs[main_label]],
            ),
            "x",
            digits=2,
        )
    )
    return report


def main() -> None:
    from bench.common import print_table

    quick = "--quick" in sys.argv
    report = run(quick)
    report.save(quick)
    print_table(report.rows, "throughput")


if __name__ == "__main__":
    main()
