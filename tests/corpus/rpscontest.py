"""The rpscontest regression set: public rpscontest.com entries against python2.7 and the judge.

The entries are not ours to publish, so this repository keeps only what they did: for each
entry (by the SHA-256 of its file) whether python2.7 played 1000 rounds against the fixed
opponent (``opponent.py``) in an rpscontest-style harness (``harness27.py``), and, for an
entry that draws no random numbers, a hash of its 1000 moves.

    python tests/corpus/rpscontest.py expect CORPUS --python2 /path/to/python2.7
    python tests/corpus/rpscontest.py check CORPUS [--only NAME ...]

``expect`` writes ``rpscontest_expected.json``; ``check`` plays every entry python2.7 ran to
the end through the judge (the local executor, the rpscontest adapter, the same opponent)
and reports the pass rate and every failure (docs/adapters.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from games.seeds import seat_seed, secret_from_seed

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "rpscontest_expected.json"
ROUNDS = 1000
MATCH_SEED = 1
# The seed the judge gives seat 1 of a match with MATCH_SEED (games/seeds.py), then another:
# an entry that makes the same moves twice under the first seed makes those moves in the
# judge too (its random draws included); one that makes them under both draws nothing.
# (The moves recorded for entries that draw random numbers date from the judge's seeds before
# games/seeds.py, 1_000_003 for seat 1: only the count of those making python2.7's moves
# under the same seed, which `check` prints, waits for the next `expect` run.)
SEAT_SEED = seat_seed(secret_from_seed(MATCH_SEED), 0)
SEEDS = (SEAT_SEED, SEAT_SEED, 7)
RUN_TIMEOUT = 300.0


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def distinct_entries(corpus: Path) -> dict[str, Path]:
    """Each distinct file once (by content), under its first name in sorted order."""
    entries: dict[str, Path] = {}
    for path in sorted(corpus.resolve().glob("*.py")):
        entries.setdefault(digest(path.read_bytes()), path)
    return entries


def run_python2(python2: str, path: Path, seed: int) -> dict[str, object]:
    try:
        proc = subprocess.run(
            [python2, str(HERE / "harness27.py"), str(path), str(seed)],
            capture_output=True,
            timeout=RUN_TIMEOUT,
            cwd=path.parent,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "PYTHONHASHSEED": "0"},  # 2.7's order, not a randomised one
        )
    except subprocess.TimeoutExpired:
        return {"error": f"took over {RUN_TIMEOUT:g} s"}
    lines = proc.stdout.decode("utf-8", "replace").strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["?"]
        return {"error": f"harness exited {proc.returncode}: {tail[0]}"}
    result: dict[str, object] = json.loads(lines[-1])
    return result


def reference_python(path: Path, python2: str) -> str:
    """python2.7, or this Python for an entry marked ``# python3`` (it keeps that meaning)."""
    sys.path.insert(0, str(HERE.parents[1] / "bots" / "adapters"))
    import py2compat

    marked = py2compat.marked_version(py2compat.decode(path.read_bytes()))
    return sys.executable if marked == "3" else python2


def expect(corpus: Path, python2: str, jobs: int, target: Path = EXPECTED) -> None:
    entries = distinct_entries(corpus)
    expected: dict[str, dict[str, object]] = {}

    def one(item: tuple[str, Path]) -> tuple[str, dict[str, object]]:
        sha, path = item
        python = reference_python(path, python2)
        runs = [run_python2(python, path, seed) for seed in SEEDS]
        record: dict[str, object] = {"name": path.name}
        if all("error" not in run for run in runs):
            moves = [str(run["moves"]) for run in runs]
            record["plays"] = True
            reads_clock = any(run.get("clock") for run in runs)
            record["repeatable"] = moves[0] == moves[1] and not reads_clock
            if reads_clock:
                record["reads_clock"] = True
            record["draws_random"] = moves[0] != moves[2]
            if record["repeatable"]:
                record["moves"] = digest(moves[0].encode())[:16]
            record["slowest"] = max(float(str(run.get("slowest", 0))) for run in runs)
        else:
            failed = next(run for run in runs if "error" in run)
            record["plays"] = False
            record["error"] = str(failed["error"])[:200]
            record["round"] = failed.get("round")
        return sha, record

    todo = [(sha, path) for sha, path in entries.items() if sha not in expected]
    started = time.monotonic()
    with ThreadPoolExecutor(jobs) as pool:
        for done, (sha, record) in enumerate(pool.map(one, todo), 1):
            expected[sha] = record
            if done % 50 == 0 or done == len(todo):
                print(f"{done}/{len(todo)} in {time.monotonic() - started:.0f} s", flush=True)
                save(expected, target)
    save(expected, target)


def save(expected: dict[str, dict[str, object]], target: Path) -> None:
    body = {
        "about": "rpscontest entries under python2.7 (tests/corpus/rpscontest.py)",
        "rounds": ROUNDS,
        "entries": dict(sorted(expected.items(), key=lambda item: str(item[1]["name"]))),
    }
    target.write_text(json.dumps(body, indent=1, sort_keys=False) + "\n")


def check(
    corpus: Path, only: list[str], workers: int | None, source: Path = EXPECTED
) -> tuple[int, dict[str, str]]:
    """Play every entry python2.7 played to the end through the judge; 0 when all pass."""
    import tempfile

    import trio

    from judge.bots import resolve
    from judge.executors import MatchJob, open_executor
    from judge.models import MatchResult, MatchSpec

    expected = json.loads(source.read_text())["entries"]
    entries = distinct_entries(corpus)
    chosen = {
        sha: path
        for sha, path in entries.items()
        if expected.get(sha, {}).get("plays") and (not only or path.name in only)
    }
    opponent = resolve(str(HERE / "opponent_bot.py"), "rps")
    failures: dict[str, str] = {}
    passed = 0
    random_same: list[bool] = []  # entries drawing random numbers: same moves as python2.7?
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rpscorpus-") as scratch:
        jobs = []
        for sha, path in chosen.items():
            box = Path(scratch) / sha[:16]
            box.mkdir()
            file = box / (path.name if path.suffix == ".py" else "entry.py")  # ".py" is hidden
            file.write_bytes(path.read_bytes())
            moves: list[str] = []
            spec = MatchSpec(
                game="rps",
                bots=[resolve(str(file), "rps"), opponent],
                seed=MATCH_SEED,
                options={"turns": ROUNDS},
            )
            jobs.append(MatchJob(spec=spec, sinks=[_collect_into(moves)], tag=(sha, path, moves)))

        def done(job: MatchJob, result: MatchResult) -> None:
            nonlocal passed
            sha, path, moves = job.tag  # type: ignore[misc]
            entry = result.players[0]
            record = expected[sha]
            if entry.outcome != "ok":
                last = entry.stderr.strip().splitlines()[-1:] or [""]
                failures[path.name] = f"{entry.outcome}: {entry.reason} | {last[0]}"[:300]
            elif len(moves) != ROUNDS:
                failures[path.name] = f"played {len(moves)} rounds"
            else:
                same = (
                    record.get("repeatable")
                    and digest("".join(moves).encode())[:16] == record["moves"]
                )
                if record.get("draws_random") or not record.get("repeatable"):
                    passed += 1  # it must play to the end; its draws may differ
                    random_same.append(bool(same))
                elif same:
                    passed += 1
                else:
                    failures[path.name] = "moves differ from python2.7's: " + "".join(moves)[:30]
            finished = passed + len(failures)
            if finished % 100 == 0:
                print(f"{finished}/{len(jobs)} in {time.monotonic() - started:.0f} s", flush=True)

        async def run_all() -> None:
            async with open_executor("local", concurrency=workers) as executor:
                await executor.run_many(jobs, done)

        trio.run(run_all)
    total = passed + len(failures)
    print(
        f"{passed} of {total} entries pass ({100 * passed / max(total, 1):.2f} %) "
        f"in {time.monotonic() - started:.0f} s"
    )
    print(
        f"of the {len(random_same)} that draw random numbers, {sum(random_same)} made "
        "python2.7's moves under the same seed"
    )
    for name, why in sorted(failures.items()):
        print(f"FAIL {name}: {why}")
    return passed, failures


def _collect_into(moves: list[str]):  # type: ignore[no-untyped-def]
    def sink(line: str) -> None:
        fields = line.split()
        if len(fields) == 4:
            moves.append(fields[2])

    return sink


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_expect = sub.add_parser("expect", help="record what python2.7 does with each entry")
    p_expect.add_argument("corpus", type=Path)
    p_expect.add_argument("--python2", default="python2.7")
    p_expect.add_argument("--jobs", type=int, default=2)
    p_expect.add_argument("--expected", type=Path, default=EXPECTED)
    p_check = sub.add_parser("check", help="play the entries through the judge")
    p_check.add_argument("corpus", type=Path)
    p_check.add_argument("--only", nargs="*", default=[])
    p_check.add_argument("--workers", type=int, default=None)
    p_check.add_argument("--expected", type=Path, default=EXPECTED)
    args = parser.parse_args()
    if args.command == "expect":
        expect(args.corpus, args.python2, args.jobs, args.expected)
        return 0
    _, failures = check(args.corpus, args.only, args.workers, args.expected)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
