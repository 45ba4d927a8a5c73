"""Item 11, the server's database: SQLite against PostgreSQL for what a match costs there.

Through the ``Storage`` interface, as the server's scheduler calls it: per match, one claim
(``claim_next_match``, the dispatch) and one record (``finish_match`` with the result of a
real 1000-turn rps match and its TrueSkill rating update, one transaction). Each round
queues a batch of rated ladder matches on each backend, then claims and records them one
after another (a single dispatcher, as one server process), and again with four recording at
once (as four server processes, or one server's concurrent slots, would). The backends
alternate round by round, so the ratio is taken side by side. PostgreSQL is a throwaway
server started for the run (``tests.postgres_helpers``, Debian's ``postgresql``) with its
default durability (fsync, synchronous commit); SQLite a file in a temporary directory with
the server's own settings (WAL, ``synchronous=FULL``). Both commit to the same disk.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from bench.common import Report, Row, Spread, paired_ratios, quiet_logs

# The peak of the worked 10,000-bot contest (docs/scaling.md): 1,000,000 matches a day × 3.
PEAK_RESULTS_PER_S = 35.0
CONCURRENT = 4


def real_result() -> dict[str, Any]:
    """The stored result of a real match: what the server records for each one."""
    from judge.bots import builtin_spec
    from judge.models import MatchSpec
    from judge.runner import run_match

    spec = MatchSpec(
        game="rps",
        bots=[builtin_spec("rps", "rock"), builtin_spec("rps", "paper")],
        options={"turns": 1000},
        seed=1,
    )
    result: dict[str, Any] = trio.run(run_match, spec).model_dump(mode="json")
    result["replay"] = "/api/matches/x/replay"
    return result


async def ladder(storage: Any, bots: int) -> list[Any]:
    """A user's ``bots`` rated bot versions (as a ladder holds them): their seats."""
    from judge.server.records import Launch, Seat

    user = await storage.create_user(f"bench{time.time_ns()}")
    seats = []
    for i in range(bots):
        bot = await storage.create_bot(f"b{i}-{time.time_ns()}", user.id, "rps")
        version = await storage.add_version(
            bot.id, filename="bot", size=3, sha256="ab", launch=Launch(kind="command", run="./b")
        )
        await storage.set_version_state(
            bot.id, version.version, "ready", message="ok", initial_rating=(25.0, 8.0)
        )
        seats.append(Seat(bot_id=bot.id, version=version.version, name=f"b{i}@1"))
    return seats


async def one_round(
    storage: Any, seats: list[Any], result: dict[str, Any], matches: int, at_once: int
) -> dict[str, float]:
    """Queue ``matches`` rated matches, then claim and record each, ``at_once`` at a time.
    Per-match milliseconds of the claims and of the records, and records per second."""
    from judge.server import ladder as rating
    from judge.server.records import Match

    owner = f"bench-{time.time_ns()}"
    for n in range(matches):
        pair = [seats[n % len(seats)], seats[(n + 1) % len(seats)]]
        await storage.create_match(
            Match(
                id=f"{owner}-{n}",
                game="rps",
                kind="ladder",
                status="queued",
                seats=pair,
                options={"turns": 1000},
                seed=n,
                created=time.time(),
                rated=True,
            )
        )
    claims: list[float] = []
    records: list[float] = []

    def update(ratings: list[Any]) -> list[Any]:
        return rating.rate(ratings, result)

    async def worker(todo: list[int]) -> None:
        while todo:
            todo.pop()
            began = time.perf_counter()
            match = await storage.claim_next_match(time.time(), owner)
            claimed = time.perf_counter()
            assert match is not None
            done = await storage.finish_match(
                match.id,
                "finished",
                now=time.time(),
                result=result,
                rating_update=update,
                owner=owner,
            )
            assert done is not None and done.status == "finished"
            records.append(time.perf_counter() - claimed)
            claims.append(claimed - began)

    todo = list(range(matches))
    began = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for _ in range(at_once):
            nursery.start_soon(worker, todo)
    elapsed = time.perf_counter() - began
    return {
        "claim_ms": 1000 * sorted(claims)[len(claims) // 2],
        "record_ms": 1000 * sorted(records)[len(records) // 2],
        "matches_per_s": matches / elapsed,
    }


async def measure(urls: dict[str, str], rounds: int, matches: int) -> dict[str, Any]:
    from judge.server.db import storage_for

    result = await trio.to_thread.run_sync(real_result)
    stores = {name: storage_for(url) for name, url in urls.items()}
    samples: dict[str, dict[str, list[dict[str, float]]]] = {
        name: {"single": [], "concurrent": []} for name in urls
    }
    try:
        seats = {}
        for name, store in stores.items():
            await store.open()
            seats[name] = await ladder(store, 20)
        for _ in range(rounds):
            for mode, at_once in (("single", 1), ("concurrent", CONCURRENT)):
                for name, store in stores.items():  # side by side, round by round
                    samples[name][mode].append(
                        await one_round(store, seats[name], result, matches, at_once)
                    )
    finally:
        for store in stores.values():
            await store.close()
    return samples


def run(quick: bool = False) -> Report:
    from tests.postgres_helpers import missing_reason, postgres_server

    quiet_logs()
    report = Report("db")
    rounds, matches = (1, 5) if quick else (7, 200)
    reason = missing_reason()
    with tempfile.TemporaryDirectory() as tmp:
        urls = {"SQLite": f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"}
        if reason is None:
            with postgres_server(durable=True) as server:
                urls["PostgreSQL"] = server.new_database()
                samples = trio.run(measure, urls, rounds, matches)
        else:
            samples = trio.run(measure, urls, rounds, matches)
    report.data = {"samples": samples, "matches_per_round": matches, "postgres": reason or "ok"}
    for name in urls:
        for mode, label in (("single", "one at a time"), ("concurrent", f"{CONCURRENT} at once")):
            runs = samples[name][mode]
            rate = Spread.of([r["matches_per_s"] for r in runs])
            report.add(
                Row(
                    "11 database",
                    f"{name}: results recorded per second, {label} (claim + record)",
                    rate,
                    "/s",
                    target=f">= {PEAK_RESULTS_PER_S:g}",
                    met=rate.median >= PEAK_RESULTS_PER_S,
                    note="the 1M-matches-a-day peak (docs/scaling.md)",
                    digits=0,
                )
            )
        single = samples[name]["single"]
        for key, what in (("claim_ms", "dispatch (claim)"), ("record_ms", "recording a result")):
            report.add(
                Row(
                    "11 database",
                    f"{name}: per match, {what}",
                    Spread.of([r[key] for r in single]),
                    "ms",
                    digits=2,
                )
            )
    if "PostgreSQL" in urls:
        for mode in ("single", "concurrent"):
            ratio = paired_ratios(
                [r["matches_per_s"] for r in samples["PostgreSQL"][mode]],
                [r["matches_per_s"] for r in samples["SQLite"][mode]],
            )
            report.add(
                Row(
                    "11 database",
                    f"PostgreSQL / SQLite results per second, {mode} (same run)",
                    ratio,
                    "x",
                    digits=2,
                )
            )
    else:
        report.add(Row("11 database", "PostgreSQL", None, "", note=f"skipped: {reason}"))
    return report
