"""Cost of starting a bot at each sandbox layer: start() until /bin/true has exited,
and the full cycle including kill() (tree kill, reaping, cgroup removal).

    uv run python bench/sandbox_start.py [--runs 200] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import trio

from judge.models import BotSpec
from judge.sandbox.base import LAYERS
from judge.sandbox.probe import probe
from judge.sandbox.select import sandbox_for


async def measure(layer: str, runs: int, box: Path) -> tuple[list[float], list[float]]:
    sandbox = sandbox_for(layer)
    bot = BotSpec(name="true", argv=("/bin/true",), cwd=box, box=box)
    started: list[float] = []
    cycle: list[float] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = await sandbox.start(bot, seed=1)
        await proc.process.wait()
        t1 = time.perf_counter()
        await proc.kill()
        t2 = time.perf_counter()
        started.append((t1 - t0) * 1000)
        cycle.append((t2 - t0) * 1000)
    return started, cycle


def bare_bwrap(runs: int) -> float:
    """Median ms of the smallest bwrap run (all namespaces, /usr only), for comparison."""
    import subprocess

    argv = [
        "bwrap",
        "--unshare-all",
        "--ro-bind",
        "/usr",
        "/usr",
        "--symlink",
        "usr/lib64",
        "/lib64",
        "--symlink",
        "usr/lib",
        "/lib",
        "--",
        "/usr/bin/true",
    ]
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


async def main(runs: int) -> None:
    import os
    import tempfile

    report = probe()
    with tempfile.TemporaryDirectory() as tmp:
        box = Path(tmp)
        os.chmod(box, 0o755)
        print(f"{'layer':<11} {'start+exit ms':>14} {'p90':>6} {'with kill ms':>13} {'p90':>6}")
        for layer in LAYERS:
            if not report.available.get(layer):
                print(f"{layer:<11} unavailable: {report.reasons[layer]}")
                continue
            await measure(layer, 5, box)  # warm-up
            started, cycle = await measure(layer, runs, box)
            q = statistics.quantiles
            print(
                f"{layer:<11} {statistics.median(started):>14.2f} {q(started, n=10)[-1]:>6.2f} "
                f"{statistics.median(cycle):>13.2f} {q(cycle, n=10)[-1]:>6.2f}"
            )
        import shutil

        # For comparison only: the judge does not use bubblewrap.
        if shutil.which("bwrap"):
            print(f"bare bwrap (subprocess.run, no judge): {bare_bwrap(runs):.2f} ms")
        print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="20 runs per layer")
    args = parser.parse_args()
    trio.run(main, 20 if args.quick else args.runs)
