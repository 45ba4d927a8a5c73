"""Item 12, matches of short games per second (issue 15 §1): the pool (warm sandboxes and
the fork server) on and off, the pool without the fork server, and the code before warm
sandboxes, alternating in the same minutes. The target row is pool on / pool off.

* ``judge tourney liarsdice computer robot computer --games N`` (the CLI as a user runs it,
  its own "N matches, S s" figure, so the judge's own start drops out);
* N single roshambolo races to 10 between built-ins (rock, random), two at a time, through
  ``run_match`` in one process.

Each runs in a fresh process on a tree: this one with BOTJUDGE_SANDBOX_POOL=0 ("pool off"),
with BOTJUDGE_FORK_SERVER=0 ("fork server off": warm sandboxes only), with the default ("pool
on"), and a copy of the tree at BEFORE (``git archive``, built into bench/build/), the commit
before warm sandboxes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import BUILD_DIR, ROOT, Report, Row, Spread, paired_ratios

BEFORE = "09df5df"
TARGET_RATIO = 3.0

RACES = """
import sys, time, trio
from judge.bots import builtin_spec
from judge.logs import configure
from judge.models import MatchSpec
from judge.runner import run_match
from judge.sandbox.select import default_sandbox

configure("warning")
count = int(sys.argv[1])

async def main():
    sandbox = default_sandbox()
    limiter = trio.CapacityLimiter(2)
    bots = [builtin_spec("roshambolo", "rock"), builtin_spec("roshambolo", "random")]

    async def one(seed):
        async with limiter:
            spec = MatchSpec(game="roshambolo", bots=bots, seed=seed, options={"race_to": 10})
            result = await run_match(spec, sandbox=sandbox)
            assert [p.outcome for p in result.players] == ["ok", "ok"], result.players

    began = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for seed in range(count):
            nursery.start_soon(one, seed)
    print(f"RATE {count / (time.perf_counter() - began)}")

trio.run(main)
"""

TOURNEY = "from judge.cli import main; main()"


def before_tree() -> Path:
    """The tree at BEFORE, unpacked once into bench/build/."""
    tree = BUILD_DIR / f"before-{BEFORE}"
    if not (tree / "judge").is_dir():
        tree.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", BEFORE], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def rate(tree: Path, settings: dict[str, str], item: str, count: int) -> float:
    """Matches per second of one run of ``item`` on ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("BOTJUDGE_SANDBOX_POOL", None)
    env.pop("BOTJUDGE_FORK_SERVER", None)
    env.update(settings)
    with tempfile.TemporaryDirectory() as work:
        if item == "liarsdice":
            argv = [sys.executable, "-c", TOURNEY, "tourney", "liarsdice", "computer", "robot"]
            argv += ["computer", "--games", str(count), "--replays", f"{work}/replays"]
        else:
            argv = [sys.executable, "-c", RACES, str(count)]
        proc = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"{item} on {tree} failed:\n{proc.stdout}\n{proc.stderr}")
    if item == "liarsdice":
        found = re.search(r"\((\d+) matches, ([\d.]+) s\)", proc.stdout)
        assert found, proc.stdout
        return int(found[1]) / float(found[2])
    found = re.search(r"RATE ([\d.]+)", proc.stdout)
    assert found, proc.stdout
    return float(found[1])


def run(quick: bool = False) -> Report:
    report = Report("shortgames")
    count, repeats = (20, 1) if quick else (int(os.environ.get("BENCH_SHORT_GAMES", 300)), 3)
    variants: dict[str, tuple[Path, dict[str, str]]] = {
        "before": (before_tree(), {}),
        "pool off": (ROOT, {"BOTJUDGE_SANDBOX_POOL": "0"}),
        "fork server off": (ROOT, {"BOTJUDGE_FORK_SERVER": "0"}),
        "pool on": (ROOT, {}),
    }
    rates: dict[str, dict[str, list[float]]] = {}
    for item in ("liarsdice", "roshambolo"):
        rates[item] = {name: [] for name in variants}
        for _ in range(repeats):
            for name, (tree, settings) in variants.items():
                rates[item][name].append(rate(tree, settings, item, count))
    report.data = {"count": count, "rates": rates, "before": BEFORE}
    for item, by_variant in rates.items():
        what = "liarsdice tourney" if item == "liarsdice" else "roshambolo races to 10"
        for name, figures in by_variant.items():
            report.add(Row("12 short games", f"{what}, {name}", Spread.of(figures), "matches/s"))
        for base in ("pool off", "fork server off", "before"):
            ratio = paired_ratios(by_variant["pool on"], by_variant[base])
            target = base == "pool off"  # issue 15: "same run against the pool switched off"
            report.add(
                Row(
                    "12 short games",
                    f"{what}: pool on / {base} (same run)",
                    ratio,
                    "x",
                    f">= {TARGET_RATIO:g}" if target else "",
                    None if quick or not target else ratio.median >= TARGET_RATIO,
                    digits=2,
                )
            )
    return report


def main() -> None:
    from bench.common import print_table

    quick = "--quick" in sys.argv
    report = run(quick)
    report.save(quick)
    print_table(report.rows, "short games")


if __name__ == "__main__":
    main()
