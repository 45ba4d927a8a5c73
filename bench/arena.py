"""Item 4: the originals' arenas in process vs our judge, wall time side by side.

Counting: 20 strategies, every pair, ``rounds`` rounds, ``runs`` runs. The reference runner
(bench/arenas) calls ``strategy(last_results)`` in this process, as the original arena.py
does; ours is ``judge tourney counting`` (``run_tourney``) over the same files: arena
matches in which every bot is one sandboxed process (the strongest layer available) running
the counting adapter, which plays all of its games at once. Roshambolo: the original's
tourney (rounds x 3 bots, races to ``race_to``, every bot observes every round), in process
vs one judge match of the roshambolo game through its adapter, co-located as `judge match`
runs it. Reported: ours / theirs, in wall time and (roshambolo) in CPU time, judge and bots
against the reference's, which a loaded machine distorts less.
``python -m bench.arena --roshambolo`` runs the roshambolo tourney alone, three times.
"""

from __future__ import annotations

import random
import resource
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
from games.seeds import game_rng, secret_from_seed

TARGET_COUNTING_RATIO = 1.0
TARGET_ROSHAMBOLO_RATIO = 10.0


def counting_tourney(rounds: int, runs: int, count: int = 20, concurrency: int = 2) -> Any:
    """The arena as a user runs it: ``judge tourney counting`` over the strategy files."""
    from judge.bots import resolve
    from judge.tournament import TourneySpec

    bots = [resolve(str(path), "counting") for path in counting_files()[:count]]
    return TourneySpec(
        game="counting",
        bots=bots,
        options={"rounds": rounds},
        settings={"runs": runs},
        seed=0,
        concurrency=concurrency,
    )


def judge_counting_scores(result: Any) -> tuple[list[float], list[int]]:
    """Total points and pairings won per bot, in the strategy files' order."""
    by_index = {standing.index: standing for standing in result.standings}
    ordered = [by_index[k] for k in range(len(by_index))]
    return [s.score for s in ordered], [int(s.games_won) for s in ordered]


def reference_counting(rounds: int, runs: int, count: int = 20) -> float:
    """Seconds for the whole arena in process; the modules (and their state) live through it."""
    random.seed(1)
    modules = [load(path) for path in counting_files()[:count]]
    began = time.perf_counter()
    counting_arena(modules, rounds, runs)
    return time.perf_counter() - began


async def ours_counting(rounds: int, runs: int, count: int = 20) -> tuple[float, float, Any]:
    """Seconds for the whole arena with our judge, its CPU share in cores, and the result."""
    from judge.sandbox.select import default_sandbox
    from judge.tournament import run_tourney

    spec = counting_tourney(rounds, runs, count)
    began, cpu = time.perf_counter(), _cpu_with_children()
    result = await run_tourney(spec, sandbox=default_sandbox())
    seconds = time.perf_counter() - began
    return seconds, (_cpu_with_children() - cpu) / seconds, result


def _cpu_with_children() -> float:
    """CPU seconds of this process and of every bot it has reaped (it is their subreaper)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def reference_roshambolo_cpu(rounds: int, race_to: int) -> tuple[float, float, list[int]]:
    """Wall seconds, CPU seconds and games won of the original's tourney in process."""
    random.seed(1)
    began, cpu = time.perf_counter(), _cpu_with_children()
    modules = [load(path) for path in roshambolo_files()]
    won = roshambolo_tourney(
        modules, rounds, race_to, game_rng(secret_from_seed(1))
    )  # (ours, seed 1)
    return time.perf_counter() - began, _cpu_with_children() - cpu, won


async def ours_roshambolo(rounds: int, race_to: int) -> tuple[float, Any]:
    seconds, _, result = await ours_roshambolo_cpu(rounds, race_to)
    return seconds, result


async def ours_roshambolo_cpu(rounds: int, race_to: int) -> tuple[float, float, Any]:
    """Wall seconds, CPU seconds (judge and bots) and the result of the tourney as one match."""
    from judge.bots import resolve
    from judge.models import MatchSpec
    from judge.runner import run_match
    from judge.sandbox.select import default_sandbox

    bots = [resolve(str(path), "roshambolo") for path in roshambolo_files()]
    spec = MatchSpec(
        game="roshambolo", bots=bots, options={"rounds": rounds, "race_to": race_to}, seed=1
    )
    began, cpu = time.perf_counter(), _cpu_with_children()
    # As `judge match` and `judge tourney` run a match that plays alone: co-located.
    result = await run_match(spec, sandbox=default_sandbox(), colocate=True)
    return time.perf_counter() - began, _cpu_with_children() - cpu, result


def run(quick: bool = False, counting: bool = True) -> Report:
    from judge.sandbox.probe import probe

    quiet_logs()
    report = Report("arena" if counting else "arena-roshambolo")
    layer = probe().strongest
    repeats = 1 if quick else 2 if counting else 3  # of each arena, interleaved with its reference
    c_rounds, c_runs, c_bots = (20, 2, 4) if quick else (1000, 10, 20)
    r_rounds, r_race = (2, 20) if quick else (100, 1000)
    data: dict[str, list[Any]] = {
        "counting_ref_s": [],
        "counting_ours_s": [],
        "counting_cores": [],
        "rosh_ref_s": [],
        "rosh_ours_s": [],
        "rosh_ref_cpu_s": [],
        "rosh_ours_cpu_s": [],
        "rosh_ours_games": [],
        "rosh_ref_games": [],
        "counting_dq": [],
    }

    async def main() -> None:
        # Interleaved: reference, ours, reference, ours... so drift hits both alike.
        for _ in range(repeats if counting else 0):
            data["counting_ref_s"].append(reference_counting(c_rounds, c_runs, c_bots))
            ours_s, cores, result = await ours_counting(c_rounds, c_runs, c_bots)
            data["counting_ours_s"].append(ours_s)
            data["counting_cores"].append(cores)
            data["counting_dq"].append(sum(s.disqualified for s in result.standings))
        for _ in range(repeats):
            ref_s, ref_cpu, won = reference_roshambolo_cpu(r_rounds, r_race)
            ours_s, ours_cpu, rosh = await ours_roshambolo_cpu(r_rounds, r_race)
            data["rosh_ref_s"].append(ref_s)
            data["rosh_ours_s"].append(ours_s)
            data["rosh_ref_cpu_s"].append(ref_cpu)
            data["rosh_ours_cpu_s"].append(ours_cpu)
            data["rosh_ref_games"].append(won)
            data["rosh_ours_games"].append([p.score for p in rosh.players])

    trio.run(main)
    report.data = data
    if counting:
        what = (
            f"{c_bots} bots, {c_bots * (c_bots - 1) // 2} pairs x {c_rounds} rounds x {c_runs} runs"
        )
        dq = sum(data["counting_dq"])
        report.add(
            Row(
                "4 arenas",
                f"counting arena in process (reference), {what}",
                Spread.of(data["counting_ref_s"]),
                "s",
                digits=2,
            )
        )
        report.add(
            Row(
                "4 arenas",
                f"counting arena, judge tourney, sandbox {layer}, adapters",
                Spread.of(data["counting_ours_s"]),
                "s",
                digits=2,
                note=(f"{dq} DQ; " if dq else "")
                + f"{Spread.of(data['counting_cores']).median:.2f} cores busy",
            )
        )
        ratio = paired_ratios(data["counting_ours_s"], data["counting_ref_s"])
        report.add(
            Row(
                "4 arenas",
                "counting arena: ours / in-process (same run)",
                ratio,
                "x",
                f"<= {TARGET_COUNTING_RATIO:g}",
                None if quick else ratio.median <= TARGET_COUNTING_RATIO,
                digits=2,
            )
        )
    what = f"{r_rounds} rounds x 3 bots, races to {r_race}"
    report.add(
        Row(
            "4 arenas",
            f"roshambolo tourney in process (reference), {what}",
            Spread.of(data["rosh_ref_s"]),
            "s",
            digits=2,
            note=f"games won {data['rosh_ref_games'][-1]}",
        )
    )
    report.add(
        Row(
            "4 arenas",
            f"roshambolo tourney, our judge (one match), sandbox {layer}",
            Spread.of(data["rosh_ours_s"]),
            "s",
            digits=2,
            note=f"games won {data['rosh_ours_games'][-1]}",
        )
    )
    ratio = paired_ratios(data["rosh_ours_s"], data["rosh_ref_s"])
    report.add(
        Row(
            "4 arenas",
            "roshambolo tourney: ours / in-process (same run)",
            ratio,
            "x",
            f"<= {TARGET_ROSHAMBOLO_RATIO:g}",
            None if quick else ratio.median <= TARGET_ROSHAMBOLO_RATIO,
            digits=1,
        )
    )
    cpu_ratio = paired_ratios(data["rosh_ours_cpu_s"], data["rosh_ref_cpu_s"])
    report.add(
        Row(
            "4 arenas",
            "roshambolo tourney CPU: ours (judge + bots) / in-process (same run)",
            cpu_ratio,
            "x",
            digits=1,
            note=f"ours {Spread.of(data['rosh_ours_cpu_s']).text(2)} s of CPU",
        )
    )
    same = data["rosh_ours_games"] == [[float(n) for n in won] for won in data["rosh_ref_games"]]
    report.add(
        Row(
            "4 arenas",
            "roshambolo tourney: games won equal the original's",
            None,
            "",
            "equal",
            None if quick else same,
            note=f"{data['rosh_ours_games'][-1]}",
        )
    )
    return report


def main() -> None:
    from bench.common import print_table

    quick = "--quick" in sys.argv
    # `python -m bench.arena --roshambolo`: the roshambolo tourney alone (three repeats).
    report = run(quick, counting="--roshambolo" not in sys.argv)
    report.save(quick)
    print_table(report.rows, "arenas")


if __name__ == "__main__":
    main()
