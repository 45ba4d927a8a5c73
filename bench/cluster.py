"""Item 8, cluster: the Dask executor against the local one, and what a match costs on Dask.

Same run, executors kept open (steady state), levels interleaved:
- throughput of 1000-turn rps matches between two C bots (each in a box of its own, so it
  travels as an artifact) through a Dask LocalCluster (one worker process per core, one match
  each) against the local executor (one judge process per core, 8 matches each, and 1 each);
  the ratio is the engine's overhead (target >= 0.8); and the CPU per match of the caller
  (with a LocalCluster, its scheduler too), the judge processes and the bots, from /proc;
- dispatch: one task's round trip through the scheduler (submit to result), one at a time and
  as many at once as the cluster has slots;
- artifact fetch: a box new to the cluster (scatter to every worker, unpack once per machine)
  and one already cached, for a 16 KB box (a C bot) and a 1 MB one; and the copy of a cached
  box each match gets (an earlier match's, while it is as made).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from typing import Any

import trio

from bench.common import BUILD_DIR, Report, Row, Spread, build, paired_ratios, quiet_logs

TARGET_RATIO = 0.8


def boxed_c_bot(label: str) -> Any:
    """The C rps bot in a box of its own (what an upload is): it travels content-addressed."""
    from judge.models import BotSpec

    binary = build("rps_bot")
    box = BUILD_DIR / "boxes" / "rps_bot"
    box.mkdir(parents=True, exist_ok=True)
    if not (box / "rps_bot").exists() or (box / "rps_bot").stat().st_mtime < binary.stat().st_mtime:
        shutil.copy2(binary, box / "rps_bot")
    return BotSpec(name=label, argv=(str(box / "rps_bot"),), cwd=box, box=box)


def jobs(bots: list[Any], matches: int, turns: int, tag: str) -> list[Any]:
    from judge.executors import MatchJob
    from judge.models import MatchSpec

    return [
        MatchJob(
            MatchSpec(
                game="rps",
                bots=bots,
                seed=i,
                options={"turns": turns},
                match_id=f"bench-{tag}-{i}-{time.time_ns()}",
            )
        )
        for i in range(matches)
    ]


def processes_cpu() -> dict[int, tuple[float, float]]:
    """This process and every process under it: (own CPU s, CPU s of its reaped children)."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[int, tuple[int, float, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                text = stat.read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        own = (int(fields[11]) + int(fields[12])) / tick
        reaped = (int(fields[13]) + int(fields[14])) / tick
        found[int(entry)] = (int(fields[1]), own, reaped)
    mine = {os.getpid()}
    grew = True
    while grew:
        grew = False
        for pid, (parent, _, _) in found.items():
            if parent in mine and pid not in mine:
                mine.add(pid)
                grew = True
    return {pid: found[pid][1:] for pid in mine}


def cpu_per_match(
    before: dict[int, tuple[float, float]], after: dict[int, tuple[float, float]], matches: int
) -> dict[str, float]:
    """ms of CPU per match: this process (the caller: with a LocalCluster, its scheduler
    too), the judge processes under it (Dask workers, local judges) and the bots they reaped."""
    me = os.getpid()
    caller = judges = bots = 0.0
    for pid, (own, reaped) in after.items():
        own_then, reaped_then = before.get(pid, (0.0, 0.0))
        if pid == me:
            caller += own - own_then
        else:
            judges += own - own_then
            bots += reaped - reaped_then
    totals = {"caller": caller, "judges": judges, "bots": bots}
    return {role: 1000 * seconds / matches for role, seconds in totals.items()}


async def rate(
    executor: Any, bots: list[Any], matches: int, turns: int, tag: str
) -> dict[str, Any]:
    results: list[Any] = []
    cpu_before = processes_cpu()
    began = time.perf_counter()
    await executor.run_many(jobs(bots, matches, turns, tag), lambda _, r: results.append(r))
    wall = time.perf_counter() - began
    cpu = cpu_per_match(cpu_before, processes_cpu(), len(results))
    bad = sum(p.outcome != "ok" for r in results for p in r.players)
    return {"matches_per_s": len(results) / wall, "failures": bad, "cpu_ms": cpu}


def timed_sync(fn: Any, *args: Any) -> float:
    began = time.perf_counter()
    fn(*args)
    return time.perf_counter() - began


def dispatch_costs(client: Any, slots: int, count: int) -> tuple[float, float]:
    """Seconds per task: one at a time (round trip), and many at once (throughput)."""
    from judge.executors.dask import RESOURCE
    from judge.executors.dask_worker import noop

    def one_by_one() -> None:
        for _ in range(count):
            client.submit(noop, pure=False, resources={RESOURCE: 1}).result()

    def all_at_once() -> None:
        futures = [
            client.submit(noop, pure=False, resources={RESOURCE: 1}) for _ in range(count * slots)
        ]
        client.gather(futures)

    sequential = timed_sync(one_by_one) / count
    pipelined = timed_sync(all_at_once) / (count * slots)
    return sequential, pipelined


def fetch_costs(executor: Any, size: int, workers: int) -> tuple[float, float]:
    """Seconds to get a new box of ``size`` bytes unpacked on every worker, then a cached one."""
    from judge.executors import artifacts
    from judge.executors.dask import RESOURCE
    from judge.executors.dask_worker import touch_boxes

    box = BUILD_DIR / "boxes" / f"fetch-{size}-{time.time_ns()}"
    box.mkdir(parents=True)
    (box / "payload.bin").write_bytes(os.urandom(size))
    try:
        packed = artifacts.pack_box(box)
        digest = artifacts.box_hash(packed)

        client = executor.client
        addresses = list(client.scheduler_info(n_workers=-1)["workers"])
        held: list[Any] = []

        def touch(future: Any) -> None:
            client.gather(
                [
                    client.submit(
                        touch_boxes,
                        {digest: future},
                        pure=False,
                        resources={RESOURCE: 1},
                        workers=[address],
                    )
                    for address in addresses
                ]
            )

        def cold_fetch() -> None:
            # What a match with a new bot pays: onto every worker (as the executor ships a
            # box), unpacked once there.
            held.append(executor._scatter(digest, packed))
            touch(held[0])

        cold = timed_sync(cold_fetch)
        warm = timed_sync(touch, held[0])  # the same box again: on every worker, unpacked
        held.clear()
        shutil.rmtree(artifacts.cache_root() / digest, ignore_errors=True)
        return cold, warm
    finally:
        shutil.rmtree(box, ignore_errors=True)


def run(quick: bool = False) -> Report:
    from judge.executors.dask import DaskExecutor
    from judge.executors.local import LocalExecutor
    from judge.parallel import default_workers

    quiet_logs()
    report = Report("cluster")
    cores = default_workers()
    repeats, matches, turns, dispatch_n = (1, 4, 100, 5) if quick else (5, 100, 1000, 100)
    bots = [boxed_c_bot("a"), boxed_c_bot("b")]
    runs: dict[str, list[dict[str, Any]]] = {"dask": [], "local x8": [], "local x1": []}
    costs: dict[str, list[float]] = {
        k: []
        for k in (
            "dispatch one",
            "dispatch many",
            "match copy",
            "fetch 16K cold",
            "fetch 16K cached",
            "fetch 1M cold",
            "fetch 1M cached",
        )
    }

    async def main() -> None:
        dask = DaskExecutor(None, local_workers=cores, sandbox_layer="none")
        local8 = LocalExecutor(workers=cores, per_worker=8, sandbox_layer="none")
        local1 = LocalExecutor(workers=cores, per_worker=1, sandbox_layer="none")
        async with dask, local8, local1:
            for name, executor in (("dask", dask), ("local x8", local8), ("local x1", local1)):
                await rate(executor, bots, cores * 2, 10, f"warm-{name}")  # imports, caches
            for repeat in range(repeats):
                for name, executor in (("dask", dask), ("local x8", local8), ("local x1", local1)):
                    runs[name].append(
                        await rate(executor, bots, matches, turns, f"{name}-{repeat}")
                    )
                one, many = await trio.to_thread.run_sync(
                    dispatch_costs, dask.client, dask.slots, dispatch_n
                )
                costs["dispatch one"].append(one)
                costs["dispatch many"].append(many)
                for size, label in ((16 * 1024, "16K"), (1024 * 1024, "1M")):
                    cold, warm = await trio.to_thread.run_sync(fetch_costs, dask, size, cores)
                    costs[f"fetch {label} cold"].append(cold)
                    costs[f"fetch {label} cached"].append(warm)
            costs["match copy"] = [f["seconds"] for f in dask.fetches if f["cached"]]

    trio.run(main)
    report.data = {"runs": runs, "costs": costs, "matches": matches, "turns": turns, "cores": cores}
    item = "8 cluster"
    for name, label in (
        ("dask", f"Dask LocalCluster, {cores} workers x 1 match"),
        ("local x8", f"local executor, {cores} judges x 8"),
        ("local x1", f"local executor, {cores} judges x 1"),
    ):
        rates = Spread.of([r["matches_per_s"] for r in runs[name]])
        failures = sum(int(r["failures"]) for r in runs[name])
        report.add(
            Row(
                item,
                f"{turns}-turn rps matches/s (C bots), {label}",
                rates,
                "/s",
                note=f"{failures} DQ" if failures else "",
            )
        )
    for name, label in (("dask", "Dask"), ("local x8", "local x 8"), ("local x1", "local x 1")):
        parts = {
            role: Spread.of([r["cpu_ms"][role] for r in runs[name]]).median
            for role in ("caller", "judges", "bots")
        }
        total = Spread.of([sum(r["cpu_ms"].values()) for r in runs[name]])
        report.add(
            Row(
                item,
                f"CPU per match, {label}: caller + judge processes + bots",
                total,
                "ms",
                note=" + ".join(f"{parts[role]:.1f}" for role in ("caller", "judges", "bots")),
                digits=1,
            )
        )
    dask_rates = [r["matches_per_s"] for r in runs["dask"]]
    for name in ("local x8", "local x1"):
        ratio = paired_ratios(dask_rates, [r["matches_per_s"] for r in runs[name]])
        main_row = name == "local x8"
        report.add(
            Row(
                item,
                f"matches/s Dask / {name} (same run)",
                ratio,
                "x",
                f">= {TARGET_RATIO:g}" if main_row else "",
                (ratio.median >= TARGET_RATIO) if main_row and not quick else None,
                digits=2,
            )
        )
    for name, values in costs.items():
        if values:
            report.add(
                Row(
                    item,
                    f"{name} (per task/match; fetch: every worker)",
                    Spread.of(values).scaled(1000),
                    "ms",
                    digits=2,
                )
            )
    return report


def main() -> None:
    from bench.common import print_table

    quick = "--quick" in sys.argv
    report = run(quick)
    report.save(quick)
    print_table(report.rows, "cluster")


if __name__ == "__main__":
    main()
