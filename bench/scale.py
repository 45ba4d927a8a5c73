"""Item 7, scale: how many live bot processes (concurrent matches) one judge process sustains.

Each level runs in a fresh judge process (``python -m bench.scale --level K``), so its peak
RSS is its own: K rps matches between C bots start at once; a sampler records the live bot
processes, the judge's RSS and open fds while they play. Per level: peak live bots, RSS and
fds per match at that peak, time per match, and whether every match ended without a DQ.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import trio

from bench.common import ROOT, Report, Row, Spread, c_bot, quiet_logs, rps_spec

TARGET_BOTS = 1000
TARGET_RSS_MB = 200.0


def live_children() -> int:
    total = 0
    for task in Path("/proc/self/task").iterdir():
        try:
            total += len((task / "children").read_text().split())
        except OSError:
            continue
    return total


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def run_level(matches: int, turns: int) -> dict[str, object]:
    """Runs inside the level's own process."""
    from judge.parallel import raise_fd_limit
    from judge.runner import run_match

    quiet_logs()
    limit = raise_fd_limit()
    idle_rss, idle_fds = rss_mb(), open_fds()
    peak: dict[str, float] = {"bots": 0, "rss_mb": idle_rss, "fds": idle_fds}
    durations: list[float] = []
    failures: list[str] = []

    async def main() -> None:
        finished = trio.Event()

        async def sample() -> None:
            while not finished.is_set():
                bots = live_children()
                if bots >= peak["bots"]:
                    peak.update(bots=bots, rss_mb=rss_mb(), fds=open_fds())
                await trio.sleep(0.1)

        async def play(i: int) -> None:
            result = await run_match(rps_spec([c_bot(label="a"), c_bot(label="b")], turns, seed=i))
            durations.append(result.duration_s)
            failures.extend(f"{p.outcome}: {p.reason}" for p in result.players if p.outcome != "ok")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(sample)
            async with trio.open_nursery() as games:
                for i in range(matches):
                    games.start_soon(play, i)
            finished.set()

    began = time.perf_counter()
    trio.run(main)
    wall = time.perf_counter() - began
    return {
        "matches": matches,
        "turns": turns,
        "fd_limit": limit,
        "wall_s": wall,
        "peak_bots": peak["bots"],
        "peak_rss_mb": peak["rss_mb"],
        "peak_fds": peak["fds"],
        "idle_rss_mb": idle_rss,
        "idle_fds": idle_fds,
        "max_rss_mb": _max_rss_mb(),
        "match_s_median": sorted(durations)[len(durations) // 2] if durations else None,
        "failures": failures[:10],
        "failed": len(failures),
    }


def _max_rss_mb() -> float:
    """Peak RSS of this process image (VmHWM; ru_maxrss would carry the parent's over exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run(quick: bool = False) -> Report:
    report = Report("scale")
    levels = [10] if quick else [50, 250, 600]
    turns = 50 if quick else 300
    data = []
    for matches in levels:
        out = subprocess.run(
            [sys.executable, "-m", "bench.scale", "--level", str(matches), "--turns", str(turns)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
            check=True,
        )
        data.append(json.loads(out.stdout.strip().splitlines()[-1]))
    report.data = {"levels": data}
    for level in data:
        matches = int(level["matches"])
        bots = float(level["peak_bots"])
        grown = float(level["peak_rss_mb"]) - float(level["idle_rss_mb"])
        per_match_rss = grown / max(matches, 1)
        per_match_fds = (float(level["peak_fds"]) - float(level["idle_fds"])) / max(matches, 1)
        top = level is data[-1] and not quick
        report.add(
            Row(
                "7 scale",
                f"{matches} concurrent matches: peak live bot processes",
                Spread.of([bots]),
                "bots",
                f">= {TARGET_BOTS}" if top else "",
                bots >= TARGET_BOTS and level["failed"] == 0 if top else None,
                f"{level['failed']} DQ" if level["failed"] else "all ok",
                digits=0,
            )
        )
        rss = float(level["max_rss_mb"])
        report.add(
            Row(
                "7 scale",
                f"{matches} matches: judge peak RSS",
                Spread.of([rss]),
                "MB",
                f"<= {TARGET_RSS_MB:g}" if top else "",
                rss <= TARGET_RSS_MB if top else None,
                f"{per_match_rss * 1024:.0f} KB and {per_match_fds:.1f} fds per match",
            )
        )
        report.add(
            Row(
                "7 scale",
                f"{matches} matches of {level['turns']} turns: time per match",
                Spread.of([float(level["match_s_median"] or 0)]),
                "s",
                digits=2,
                note=f"all done in {float(level['wall_s']):.1f} s",
            )
        )
    return report


def main() -> None:
    from bench.common import print_table

    if "--level" in sys.argv:
        matches = int(sys.argv[sys.argv.index("--level") + 1])
        turns = int(sys.argv[sys.argv.index("--turns") + 1])
        print(json.dumps(run_level(matches, turns)))
        return
    quick = "--quick" in sys.argv
    report = run(quick)
    report.save(quick)
    print_table(report.rows, "scale")


if __name__ == "__main__":
    main()
