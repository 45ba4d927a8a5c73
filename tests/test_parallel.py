"""judge.parallel: matches spread over worker processes come back whole and in order."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import trio

from judge.executors.local import run_matches
from judge.models import MatchResult
from judge.parallel import ParallelStats
from tests.conftest import builtin, misbehaving, rps_spec


async def test_results_come_back_in_spec_order_from_several_workers(tmp_path: Path) -> None:
    specs = [
        rps_spec(builtin("rps", "rock"), builtin("rps", "paper"), turns=5, seed=i, match_id=f"m{i}")
        for i in range(5)
    ]
    seen: list[int] = []
    stats = ParallelStats()
    results = await run_matches(
        specs,
        workers=2,
        per_worker=2,
        sandbox_layer="none",
        replay_dir=tmp_path,
        on_result=lambda i, _: seen.append(i),
        stats=stats,
    )
    assert [r.match_id for r in results] == [f"m{i}" for i in range(5)]
    assert all(r.winner == 1 and r.summary == "0-5" for r in results)
    assert sorted(seen) == list(range(5))
    assert stats.batches == 3  # batches of per_worker specs
    assert stats.judge_cpu_s > 0 and stats.bots_cpu_s > 0
    assert replay_lines(tmp_path) == {f"m{i}.replay": 7 for i in range(5)}


def replay_lines(directory: Path) -> dict[str, int]:
    """Lines per replay file: a header, five turns and the result."""
    return {p.name: p.read_text().count("\n") for p in directory.iterdir()}


async def test_a_misbehaving_bot_is_a_result_not_an_error() -> None:
    specs = [rps_spec(builtin("rps", "rock"), misbehaving("crash", 2), turns=4)]
    results = await run_matches(specs, workers=1, sandbox_layer="none")
    assert len(results) == 1 and isinstance(results[0], MatchResult)
    assert results[0].players[1].outcome == "crash"
    assert results[0].winner == 0


async def test_bad_arguments_are_refused_before_any_work() -> None:
    with pytest.raises(ValueError, match="per_worker"):
        await run_matches([], per_worker=0)
    assert await run_matches([], workers=1) == []


def reporting_bot(report: str) -> str:
    """A Python rps bot that first writes ``report`` (an expression over os) to stderr."""
    return f"""
import os, sys
sys.stderr.write({report} + "\\n")
sys.stderr.flush()
for line in sys.stdin:
    if line.startswith("END"):
        break
    if line.strip() == ".":
        sys.stdout.write("P\\n.\\n")
        sys.stdout.flush()
"""


AFFINITY_BOT = reporting_bot('"cpus %s" % sorted(os.sched_getaffinity(0))')


async def test_pinned_workers_take_a_cpu_each_and_so_do_their_bots(tmp_path: Path) -> None:
    from judge.models import BotSpec
    from judge.parallel import default_workers

    script = tmp_path / "affinity_bot.py"
    await trio.Path(script).write_text(AFFINITY_BOT)
    bot = BotSpec(name="affinity", argv=(sys.executable, "-S", str(script)))
    specs = [rps_spec(builtin("rps", "rock"), bot, turns=3, seed=i) for i in range(4)]
    everywhere = f"cpus {sorted(os.sched_getaffinity(0))}"

    async def bots_cpus(pin: bool, stats: ParallelStats) -> set[str]:
        results = await run_matches(
            specs, workers=2, per_worker=1, sandbox_layer="none", pin_cpus=pin, stats=stats
        )
        assert [r.summary for r in results] == ["0-3"] * 4
        return {r.players[1].stderr.strip() for r in results}

    # Unpinned first, so the workers exist (with all their threads) before they are pinned.
    assert await bots_cpus(False, ParallelStats()) == {everywhere}
    pinned_stats = ParallelStats()
    pinned_bots = await bots_cpus(True, pinned_stats)
    pinned = [cpus for cpus in pinned_stats.worker_cpus.values() if len(cpus) == 1]
    # Each pinned worker holds a CPU of its own (a CPU claimed by another judge is skipped),
    # and its bots run there too.
    assert len(set(pinned)) == len(pinned)
    assert pinned_bots <= {f"cpus {list(c)}" for c in pinned_stats.worker_cpus.values()}
    if default_workers() > 1:
        assert pinned, "no worker could claim a CPU"
        assert everywhere not in pinned_bots or len(pinned) < 2
    # Unpinned again: the same workers and their bots may use every CPU.
    after = ParallelStats()
    assert await bots_cpus(False, after) == {everywhere}
    assert all(len(cpus) == default_workers() for cpus in after.worker_cpus.values())


POLICY_BOT = reporting_bot(
    '"bot %d judge %d" % (os.sched_getscheduler(0) & ~os.SCHED_RESET_ON_FORK, '
    "os.sched_getscheduler(os.getppid()) & ~os.SCHED_RESET_ON_FORK)"
)


async def test_a_pinned_judge_and_its_bots_are_batch_scheduled(tmp_path: Path) -> None:
    from judge.models import BotSpec

    script = tmp_path / "policy_bot.py"
    await trio.Path(script).write_text(POLICY_BOT)
    bot = BotSpec(name="policy", argv=(sys.executable, "-S", str(script)))
    specs = [rps_spec(builtin("rps", "rock"), bot, turns=3, seed=i) for i in range(2)]
    normal, batch = os.SCHED_OTHER, os.SCHED_BATCH

    async def reports(pin: bool) -> set[str]:
        stats = ParallelStats()
        results = await run_matches(
            specs, workers=1, per_worker=1, sandbox_layer="none", pin_cpus=pin, stats=stats
        )
        assert [r.summary for r in results] == ["0-3"] * 2
        if pin and not any(len(cpus) == 1 for cpus in stats.worker_cpus.values()):
            pytest.skip("another judge holds every CPU")
        return {r.players[1].stderr.strip() for r in results}

    assert await reports(True) == {f"bot {batch} judge {batch}"}
    assert await reports(False) == {f"bot {normal} judge {normal}"}


async def test_a_worker_context_kept_open_serves_several_calls() -> None:
    import trio_parallel  # type: ignore[import-untyped]

    specs = [
        rps_spec(builtin("rps", "rock"), builtin("rps", "paper"), turns=2, seed=i) for i in range(2)
    ]
    first, second = ParallelStats(), ParallelStats()
    async with trio_parallel.open_worker_context() as context:
        for stats in (first, second):
            results = await run_matches(
                specs, workers=1, sandbox_layer="none", stats=stats, worker_context=context
            )
            assert [r.summary for r in results] == ["0-2", "0-2"]
    # The second call found the first call's worker still there.
    assert first.worker_pids == second.worker_pids and len(first.worker_pids) == 1
