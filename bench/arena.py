"""Item 4: the originals' arenas in process vs our judge, wall time side by side.

Counting: 20 strategies, every pair, ``rounds`` rounds, ``runs`` runs. The reference runner
(bench/arenas) calls ``strategy(last_results)`` in this process, as the original arena.py
does; our judge plays the same 190 x runs matches as processes through the counting
adapter, sandboxed (the strongest layer available), spread over one judge process per core
(``judge.parallel``). Roshambolo: the original's tourney (rounds x 3 bots, races to
``race_to``, every bot observes every round), in process vs one judge match of the
roshambolo game through its adapter. Reported: our wall time / the reference's.
"""

from __future__ import annotations

import random
import sys
import time
from typing import Any

import trio

from bench.arenas import (
    counting_arena,
    counting_files,
    load,
    roshambolo_files,
    roshambolo_tourney,
)
from bench.common import Report, Row, Spread, paired_ratios, quiet_logs

TARGET_COUNTING_RATIO = 1.0


def counting_specs(rounds: int, runs: int, count: int = 20, seed: int = 0) -> list[Any]:
    """The arena's matches in its order: for each run, for i, for j < i: (i, j)."""
    from judge.bots import resolve
    from judge.models import MatchSpec

    bots = [resolve(str(path), "counting") for path in counting_files()[:count]]
    specs = []
    for run in range(runs):
        for i in range(len(bots)):
            for j in range(i):
                specs.append(MatchSpec(game="counting", bots=[bots[i], bots[j]],
                                       options={"rounds": rounds},
                                       seed=seed + run * 10_000 + i * 100 + j))
    return specs


def judge_counting_scores(results: list[Any], bots: int) -> tuple[list[float], list[int]]:
    """Total points and match wins per bot from the judge's match results."""
    names = [path.stem for path in counting_files()][:bots]
    index = {name: k for k, name in enumerate(names)}
    scores = [0.0] * bots
    wins = [0] * bots
    for result in results:
        first, second = result.players
        scores[index[first.name]] += first.score
        scores[index[second.name]] += second.score
        if first.score > second.score:
            wins[index[first.name]] += 1
        elif second.score > first.score:
            wins[index[second.name]] += 1
    return scores, wins


def reference_counting(rounds: int, runs: int, count: int = 20) -> list[float]:
    """Seconds per arena run, in process; the modules (and their state) live across runs."""
    random.seed(1)
    modules = [load(path) for path in counting_files()[:count]]
    seconds = []
    for _ in range(runs):
        began = time.perf_counter()
        counting_arena(modules, rounds, 1)
        seconds.append(time.perf_counter() - began)
    return seconds


async def ours_counting(
    rounds: int, runs: int, per_worker: int, count: int = 20
) -> tuple[list[float], list[Any]]:
    """Seconds per arena run with our judge (all of a run's matches at once), and results."""
    from judge.parallel import run_matches

    specs = counting_specs(rounds, runs, count)
    per_run = len(specs) // runs
    seconds: list[float] = []
    results: list[Any] = []
    for run in range(runs):
        began = time.perf_counter()
        results += await run_matches(specs[run * per_run : (run + 1) * per_run],
                                     per_worker=per_worker, sandbox_layer=None)
        seconds.append(time.perf_counter() - began)
    return seconds, results


def reference_roshambolo(rounds: int, race_to: int) -> tuple[float, list[int]]:
    random.seed(1)
    began = time.perf_counter()
    modules = [load(path) for path in roshambolo_files()]
    won = roshambolo_tourney(modules, rounds, race_to, random.Random(1))
    return time.perf_counter() - began, won


async def ours_roshambolo(rounds: int, race_to: int) -> tuple[float, Any]:
    from judge.bots import resolve
    from judge.models import MatchSpec
    from judge.runner import run_match
    from judge.sandbox.select import default_sandbox

    bots = [resolve(str(path), "roshambolo") for path in roshambolo_files()]
    spec = MatchSpec(game="roshambolo", bots=bots, options={"rounds": rounds, "race_to": race_to},
                     seed=1)
    began = time.perf_counter()
    result = await run_match(spec, sandbox=default_sandbox())
    return time.perf_counter() - began, result


def run(quick: bool = False) -> Report:
    from judge.sandbox.probe import probe

    quiet_logs()
    report = Report("arena")
    layer = probe().strongest
    repeats = 1 if quick else 2  # of the roshambolo tourney; the counting arena's runs repeat
    # Full mode times 3 of the arena's 10 runs: every run is the same work, so the ratio per
    # run is the arena's ratio (all 10 take ~15 min on a busy 2-core machine).
    c_rounds, c_runs, c_bots = (20, 2, 4) if quick else (1000, 3, 20)
    r_rounds, r_race = (2, 20) if quick else (100, 1000)
    data: dict[str, list[Any]] = {"counting_ref_s": [], "counting_ours_s": [],
                                  "rosh_ref_s": [], "rosh_ours_s": [], "rosh_ours_games": [],
                                  "rosh_ref_games": [], "counting_dq": []}

    async def main() -> None:
        await ours_counting(2, 1, 8, 3)  # warm up the worker processes
        # Interleaved by run: reference run 1, our run 1, ... so drift hits both alike.
        for _ in range(c_runs):
            data["counting_ref_s"] += reference_counting(c_rounds, 1, c_bots)
            ours_s, results = await ours_counting(c_rounds, 1, 8, c_bots)
            data["counting_ours_s"] += ours_s
            data["counting_dq"].append(
                sum(1 for r in results for p in r.players if p.outcome != "ok"))
        for _ in range(repeats):
            ref_s, won = reference_roshambolo(r_rounds, r_race)
            ours_s, result = await ours_roshambolo(r_rounds, r_race)
            data["rosh_ref_s"].append(ref_s)
            data["rosh_ours_s"].append(ours_s)
            data["rosh_ref_games"].append(won)
            data["rosh_ours_games"].append([p.score for p in result.players])

    trio.run(main)
    report.data = data
    what = f"{c_bots} bots, {c_bots * (c_bots - 1) // 2} pairs x {c_rounds} rounds"
    dq = sum(data["counting_dq"])
    report.add(Row("4 arenas", f"counting arena, one run in process (reference), {what}",
                   Spread.of(data["counting_ref_s"]), "s", digits=2,
                   note=f"x {c_runs} runs, interleaved"))
    report.add(Row("4 arenas", f"counting arena, one run, our judge, sandbox {layer}, adapters",
                   Spread.of(data["counting_ours_s"]), "s", digits=2,
                   note=f"{dq} DQ" if dq else ""))
    ratio = paired_ratios(data["counting_ours_s"], data["counting_ref_s"])
    report.add(Row("4 arenas", "counting arena: ours / in-process (same run)", ratio, "x",
                   f"<= {TARGET_COUNTING_RATIO:g}",
                   None if quick else ratio.median <= TARGET_COUNTING_RATIO, digits=2))
    what = f"{r_rounds} rounds x 3 bots, races to {r_race}"
    report.add(Row("4 arenas", f"roshambolo tourney in process (reference), {what}",
                   Spread.of(data["rosh_ref_s"]), "s", digits=2,
                   note=f"games won {data['rosh_ref_games'][-1]}"))
    report.add(Row("4 arenas", f"roshambolo tourney, our judge (one match), sandbox {layer}",
                   Spread.of(data["rosh_ours_s"]), "s", digits=2,
                   note=f"games won {data['rosh_ours_games'][-1]}"))
    report.add(Row("4 arenas", "roshambolo tourney: ours / in-process (same run)",
                   paired_ratios(data["rosh_ours_s"], data["rosh_ref_s"]), "x", digits=1))
    return report


def main() -> None:
    from bench.common import print_table

    quick = "--quick" in sys.argv
    report = run(quick)
    report.save(quick)
    print_table(report.rows, "arenas")


if __name__ == "__main__":
    main()
