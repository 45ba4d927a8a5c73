"""Item 6, deadline accuracy under load: answers at 900 ms must pass, at 1,100 ms must not.

One judge process runs, at the same time: 2 x cores busy rps matches between C bots (the
load), matches where a bot answers after 900 ms on a few turns, and matches where a bot
answers after 1,100 ms once. The turn deadline is 1 s. A false disqualification is a
900 ms bot disqualified; a missed one is a 1,100 ms bot that was not.
"""

from __future__ import annotations

import sys

import trio

from bench.common import BUILD_DIR, Report, Row, Spread, build, c_bot, quiet_logs, rps_spec

DEADLINE_S = 1.0


def slow_bot(delay_ms: int, first_turn: int, turns: int, label: str) -> object:
    from judge.models import BotSpec

    path = build("slow_bot")
    return BotSpec(
        name=label,
        argv=(str(path), str(delay_ms), str(first_turn), str(turns)),
        readonly_paths=(BUILD_DIR,),
    )


def run(quick: bool = False) -> Report:
    from judge.parallel import default_workers, raise_fd_limit
    from judge.runner import run_match

    quiet_logs()
    raise_fd_limit()
    report = Report("deadline")
    cores = default_workers()
    background = 2 * cores
    slow_matches, slow_turns = (2, 1) if quick else (6, 3)
    late_matches = 2 if quick else 6
    outcomes: dict[str, list[dict[str, object]]] = {"900": [], "1100": [], "load": []}

    async def main() -> None:
        done = trio.Event()

        async def load(i: int) -> None:
            # Busy matches that keep the judge loop and both cores working until the end.
            while not done.is_set():
                pair = [c_bot(label="a"), c_bot(label="b")]
                result = await run_match(rps_spec(pair, 2000, seed=i))
                outcomes["load"].append(
                    {"turns": result.turns, "ok": all(p.outcome == "ok" for p in result.players)}
                )

        async def slow(delay: int, i: int, turns: int) -> None:
            bot = slow_bot(delay, 2, turns, f"slow{delay}")
            spec = rps_spec([c_bot(label="fast"), bot], 2 + turns, seed=i, turn_deadline=DEADLINE_S)
            result = await run_match(spec)
            player = result.players[1]
            outcomes[str(delay)].append(
                {
                    "outcome": player.outcome,
                    "reason": player.reason,
                    "max_ms": player.response.max_ms,
                    "turns": result.turns,
                }
            )

        async with trio.open_nursery() as nursery:
            for i in range(background):
                nursery.start_soon(load, i)
            await trio.sleep(0.3)  # the load is running before the timed bots start
            async with trio.open_nursery() as timed:
                for i in range(slow_matches):
                    timed.start_soon(slow, 900, i, slow_turns)
                for i in range(late_matches):
                    timed.start_soon(slow, 1100, i, 1)
            done.set()

    trio.run(main)
    false_dq = sum(1 for o in outcomes["900"] if o["outcome"] != "ok")
    missed = sum(1 for o in outcomes["1100"] if o["outcome"] != "timeout")
    report.data = {"outcomes": outcomes, "background_matches": background}
    seen_900 = [float(str(o["max_ms"])) for o in outcomes["900"] if o["outcome"] == "ok"]
    report.add(
        Row(
            "6 deadline",
            f"false DQs of 900 ms answers ({slow_matches} bots x {slow_turns} "
            f"turns, {background} busy matches)",
            Spread.of([false_dq]),
            "count",
            "0",
            false_dq == 0,
            digits=0,
        )
    )
    report.add(
        Row(
            "6 deadline",
            f"missed DQs of 1,100 ms answers ({late_matches} bots)",
            Spread.of([missed]),
            "count",
            "0",
            missed == 0,
            digits=0,
        )
    )
    if seen_900:
        report.add(
            Row(
                "6 deadline",
                "900 ms answers as the judge measured them (max per bot)",
                Spread.of(seen_900),
                "ms",
            )
        )
    load_ok = all(o["ok"] for o in outcomes["load"])
    report.add(
        Row(
            "6 deadline",
            "busy matches played alongside",
            Spread.of([len(outcomes["load"])]),
            "matches",
            note="all ok" if load_ok else "some DQ",
            digits=0,
        )
    )
    return report


def main() -> None:
    from bench.common import print_table

    quick = "--quick" in sys.argv
    report = run(quick)
    report.save(quick)
    print_table(report.rows, "deadline accuracy")


if __name__ == "__main__":
    main()
