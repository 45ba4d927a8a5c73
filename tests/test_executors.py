"""The executor seam: inproc, local and Dask (real LocalCluster, real `dask scheduler` and
`dask worker` processes) play the same matches with the same results."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from judge.executors import ExecutorError, MatchJob, artifacts, open_executor
from judge.executors.dask import DaskExecutor
from judge.models import BotSpec, MatchResult
from judge.tournament import TourneySpec, run_tourney
from tests.conftest import builtin, processes_running, rps_spec

pytestmark = pytest.mark.timeout(240)

SLOW_BOT = """
import time, botlib
for n, message in enumerate(botlib.messages()):
    time.sleep({delay})
    botlib.answer("RPS"[n % 3])
"""


def slow_bot(directory: Path, delay: float, name: str = "slow") -> BotSpec:
    """A Python bot in a box of its own (so it travels as an artifact)."""
    from judge.bots import resolve

    directory.mkdir(parents=True, exist_ok=True)
    script = directory / f"{name}.py"
    script.write_text(SLOW_BOT.format(delay=delay))
    return resolve(str(script), "rps")


def body(path: Path) -> list[str]:
    """A replay's turn lines: what the game wrote (the header and result carry times)."""
    return [line for line in path.read_text().splitlines() if not line.startswith("#")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cluster:
    """A real `dask scheduler` and `dask worker` processes on this machine."""

    def __init__(self, root: Path, workers: int = 2, port: int | None = None) -> None:
        self.port = port or free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "inf",
            "DASK_DISTRIBUTED__SCHEDULER__ACTIVE_MEMORY_MANAGER__START": "False",
            "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
        }
        # The commands docs/scaling.md gives (the `dask` of this environment).
        dask = str(Path(sys.executable).parent / "dask")
        self.scheduler = subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", str(self.port), "--no-dashboard"],
            stdout=subprocess.DEVNULL,
            stderr=open(root / "scheduler.log", "w"),  # noqa: SIM115 (the process keeps it)
            env=env,
            start_new_session=True,
        )
        self.workers = subprocess.Popen(
            [
                dask,
                "worker",
                self.address,
                "--nworkers",
                str(workers),
                "--nthreads",
                "1",
                "--resources",
                "match=1",
                "--no-dashboard",
                "--local-directory",
                str(root / "workers"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=open(root / "workers.log", "w"),  # noqa: SIM115 (the process keeps it)
            env=env,
            start_new_session=True,
        )
        self.wait_for(workers)

    def wait_for(self, workers: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=60) as client:
            client.wait_for_workers(workers, timeout=120)

    def worker_pids(self) -> dict[str, int]:
        from distributed import Client

        with Client(self.address, timeout=30) as client:
            return dict(client.run(os.getpid))

    def stop(self) -> None:
        for proc in (self.workers, self.scheduler):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in (self.workers, self.scheduler):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    running = Cluster(tmp_path_factory.mktemp("dask"))
    try:
        yield running
    finally:
        running.stop()


def tourney(bots: list[BotSpec], turns: int, seed: int = 7) -> TourneySpec:
    return TourneySpec(game="rps", bots=bots, seed=seed, options={"turns": turns}, concurrency=2)


def standings(result: object) -> list[tuple[str, int, float, float]]:
    return [(s.name, s.rank, s.points, s.score) for s in result.standings]  # type: ignore[attr-defined]


async def play_both_ways(
    tmp_path: Path, bots: list[BotSpec], executor_name: str, turns: int = 30
) -> None:
    """One tourney in process and on ``executor_name``: same standings, same replay bodies."""
    spec = tourney(bots, turns)
    here = await run_tourney(spec, replays=tmp_path / "inproc")
    # (the test's own `dask scheduler` listens on loopback without TLS)
    async with open_executor(executor_name, insecure_cluster=True) as executor:
        there = await run_tourney(spec, replays=tmp_path / "there", executor=executor)
    assert standings(there) == standings(here)
    assert [(m.number, m.seed, m.scores, m.outcomes) for m in there.matches] == [
        (m.number, m.seed, m.scores, m.outcomes) for m in here.matches
    ]
    names = sorted(p.name for p in (tmp_path / "inproc").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "there").iterdir())
    for name in names:
        assert body(tmp_path / "there" / name) == body(tmp_path / "inproc" / name)
        assert len(body(tmp_path / "there" / name)) == turns
    from replays.verify import verify_file

    for name in names:
        assert verify_file(tmp_path / "there" / name).ok


async def test_a_tourney_on_a_local_dask_cluster_matches_the_inproc_one(tmp_path: Path) -> None:
    bots = [builtin("rps", "rock"), builtin("rps", "random"), slow_bot(tmp_path / "box", 0)]
    await play_both_ways(tmp_path, bots, "dask-local")


async def test_dask_local_workers_run_without_the_profiler() -> None:
    def settings() -> tuple[bool, str]:
        import dask

        return (
            bool(dask.config.get("distributed.worker.profile.enabled")),
            str(dask.config.get("distributed.admin.tick.interval")),
        )

    async with DaskExecutor(None, local_workers=1) as executor:
        assert executor.client is not None
        answers = await trio.to_thread.run_sync(executor.client.run, settings)
        # Its scheduler runs in this process: the client talks to it in-process.
        assert executor.client.scheduler.address.startswith("inproc://")
    assert list(answers.values()) == [(False, "1s")]


async def test_a_tourney_on_the_local_executor_matches_the_inproc_one(tmp_path: Path) -> None:
    bots = [builtin("rps", "rock"), builtin("rps", "random"), builtin("rps", "paper")]
    await play_both_ways(tmp_path, bots, "local")


async def test_a_tourney_on_dask_worker_processes_matches_the_inproc_one(
    tmp_path: Path, cluster: Cluster
) -> None:
    bots = [builtin("rps", "paper"), builtin("rps", "random"), slow_bot(tmp_path / "box", 0)]
    await play_both_ways(tmp_path, bots, f"dask://127.0.0.1:{cluster.port}")


async def test_lines_stream_back_while_a_remote_match_runs(
    tmp_path: Path, cluster: Cluster
) -> None:
    bot = slow_bot(tmp_path / "box", 0.03)
    replay = tmp_path / "live.replay"
    seen_before_the_end: list[int] = []
    finished = trio.Event()
    lines: list[str] = []
    job = MatchJob(
        rps_spec(builtin("rps", "rock"), bot, turns=60, match_id="live-1"),
        replay_path=replay,
        sinks=[lines.append],
    )

    async def watch() -> None:
        # The replay file here grows while the match runs on a worker.
        while not finished.is_set():
            if replay.exists() and body(replay):
                seen_before_the_end.append(len(body(replay)))
            await trio.sleep(0.05)

    async with (
        DaskExecutor(cluster.address, insecure=True) as executor,
        trio.open_nursery() as nursery,
    ):
        nursery.start_soon(watch)
        result = await executor.run(job)
        finished.set()
    assert result.turns == 60 and result.replay == str(replay)
    assert seen_before_the_end and min(seen_before_the_end) < 60
    assert lines[0].startswith("#judge-replay ") and lines[-1].startswith("#result ")
    assert len([line for line in lines if not line.startswith("#")]) == 60
    assert body(replay) == [line.rstrip("\n") for line in lines if not line.startswith("#")]


async def test_the_local_executor_streams_lines_to_sinks(tmp_path: Path) -> None:
    lines: list[str] = []
    job = MatchJob(
        rps_spec(builtin("rps", "rock"), builtin("rps", "paper"), turns=25),
        replay_path=tmp_path / "m.replay",
        sinks=[lines.append],
    )
    async with open_executor("local", concurrency=1) as executor:
        result = await executor.run(job)
    assert result.summary == "0-25"
    assert lines[0].startswith("#judge-replay") and lines[-1].startswith("#result")
    assert len(lines) == 27
    assert body(tmp_path / "m.replay") == [line.rstrip("\n") for line in lines[1:-1]]


async def test_the_local_executor_opens_files_only_for_the_batches_it_runs(
    tmp_path: Path,
) -> None:
    """Queued batches hold no replay file and no stream: a tourney queues all its batches
    at once, and one open file per queued match would run the judge out of descriptors."""
    from judge.executors.local import LocalExecutor

    def open_here() -> int:
        found = 0
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):  # (the listing's own, closed since)
                found += str(tmp_path) in os.readlink(f"/proc/self/fd/{fd}")
        return found

    jobs = [
        MatchJob(
            rps_spec(builtin("rps", "rock"), builtin("rps", "paper"), turns=3),
            replay_path=tmp_path / f"{n}.replay",
            sinks=[lambda line: None],
        )
        for n in range(12)
    ]
    seen: list[int] = []
    async with LocalExecutor(workers=1, per_worker=2) as executor:
        await executor.run_many(jobs, lambda job, result: seen.append(open_here()))
    assert len(seen) == 12
    assert max(seen) <= 2, seen  # the batch running now, not the ten queued behind it
    assert all(len(body(tmp_path / f"{n}.replay")) == 3 for n in range(12))


def test_a_box_is_named_by_its_content(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for box in (one, two):
        (box / "lib").mkdir(parents=True)
        (box / "bot.py").write_text("print('R')\n")
        (box / "lib" / "data.txt").write_text("x\n")
    os.utime(two / "bot.py", (1, 1))  # times and places do not matter
    packed = artifacts.pack_box(one)
    assert artifacts.box_hash(packed) == artifacts.box_hash(artifacts.pack_box(two))
    (two / "bot.py").write_text("print('P')\n")
    assert artifacts.box_hash(packed) != artifacts.box_hash(artifacts.pack_box(two))
    bot = BotSpec(
        name="b",
        argv=(sys.executable, str(one / "bot.py")),
        cwd=one,
        box=one,
        env={"PYTHONPATH": str(artifacts.JUDGE_ROOT / "bots")},
    )
    digest = artifacts.box_hash(packed)
    portable = artifacts.portable_bot(bot, digest)
    assert str(one) not in portable.model_dump_json()
    elsewhere = tmp_path / "elsewhere"
    assert artifacts.local_bot(portable, {digest: elsewhere}) == bot.model_copy(
        update={
            "argv": (sys.executable, str(elsewhere / "bot.py")),
            "cwd": elsewhere,
            "box": elsewhere,
        }
    )


async def test_each_worker_fetches_a_box_once(tmp_path: Path, cluster: Cluster) -> None:
    bot = slow_bot(tmp_path / f"box-{time.time_ns()}", 0)  # a box no worker has yet
    jobs = [MatchJob(rps_spec(bot, builtin("rps", "rock"), turns=5, seed=i)) for i in range(8)]
    results: list[MatchResult] = []
    async with DaskExecutor(cluster.address, insecure=True) as executor:
        await executor.run_many(jobs, lambda _, result: results.append(result))
        fetches = executor.fetches
    assert len(results) == 8 and all(r.players[0].outcome == "ok" for r in results)
    # Unpacked at most once per machine (the workers share its cache), reused after.
    assert sum(not f["cached"] for f in fetches) <= 1
    assert sum(f["cached"] for f in fetches) >= 7


@pytest.mark.parametrize("where", ["dask-local", "remote"])
async def test_every_worker_keeps_every_box_after_an_idle_spell(
    tmp_path: Path, cluster: Cluster, where: str
) -> None:
    """Dask's Active Memory Manager drops, every 2 s, the extra copies of data that no queued
    task waits for; a box left on one worker would draw every match with it there (the
    scheduler prefers workers holding a task's inputs) while the others idle. The executor
    keeps it off, on its LocalCluster and on a scheduler started without the docs' setting."""
    from distributed import Client

    if where == "remote":
        with Client(cluster.address, timeout=30) as other:
            other.amm.start()
    bot = slow_bot(tmp_path / f"box-{time.time_ns()}", 0)
    address = cluster.address if where == "remote" else None
    async with DaskExecutor(address, local_workers=2, insecure=True) as executor:
        client = executor.client
        assert client is not None
        await executor.run(MatchJob(rps_spec(bot, builtin("rps", "rock"), turns=3)))
        await trio.sleep(3.0)  # an idle spell longer than the manager's 2 s cycle
        assert not await trio.to_thread.run_sync(client.amm.running)
        holders = await trio.to_thread.run_sync(client.who_has)
        workers = await trio.to_thread.run_sync(lambda: client.scheduler_info()["workers"])
    boxes = {key: held for key, held in holders.items() if key.startswith("botbox-")}
    assert boxes and all(len(held) == len(workers) == 2 for held in boxes.values()), boxes


async def test_a_result_comes_back_as_an_event_or_else_is_fetched() -> None:
    """A worker sends the finished match on the event stream ahead of its task's end, so the
    caller need not fetch it; a caller that missed the event fetches the task's result."""
    spec = rps_spec(builtin("rps", "rock"), builtin("rps", "paper"), turns=5)
    async with DaskExecutor(None, local_workers=1) as executor:
        client = executor.client
        assert client is not None
        first = await executor.run(MatchJob(spec.model_copy(update={"match_id": "ev1"})))
        assert executor.results_fetched == 0
        await trio.to_thread.run_sync(client.unsubscribe_topic, executor.topic)
        second = await executor.run(MatchJob(spec.model_copy(update={"match_id": "ev2"})))
        assert executor.results_fetched == 1
    assert first.summary == second.summary == "0-5"


BOX_WRITER = """
import os, botlib
seen = os.path.exists("mark")  # left by an earlier match?
if {write}:
    with open("mark", "w") as mark:
        mark.write("x")
with open({log!r}, "a") as log:
    log.write(os.getcwd() + "\\n")
for message in botlib.messages():
    botlib.answer("S" if seen else "P")
"""


def box_writer(directory: Path, log: Path, write: bool) -> BotSpec:
    """A bot that notes its working directory (its box's copy) and may write in it; it plays
    paper, or scissors if it finds what an earlier match wrote."""
    from judge.bots import resolve

    directory.mkdir(parents=True)
    script = directory / "writer.py"
    script.write_text(BOX_WRITER.format(write=write, log=str(log)))
    return resolve(str(script), "rps")


@pytest.mark.parametrize("write", [True, False])
async def test_what_a_bot_writes_in_its_box_never_reaches_its_next_match(
    tmp_path: Path, write: bool
) -> None:
    """A worker keeps a match's copy of a box for the next match of that box only if the
    match left it exactly as it was made; a bot that wrote in it gets a fresh one."""
    log = tmp_path / "cwds.txt"
    bot = box_writer(tmp_path / "box", log, write)
    async with DaskExecutor(None, local_workers=1, sandbox_layer="none") as executor:
        for n in range(3):
            spec = rps_spec(bot, builtin("rps", "rock"), turns=5)
            result = await executor.run(MatchJob(spec.model_copy(update={"match_id": f"w{n}"})))
            assert result.summary == "5-0"  # paper each time: no mark from an earlier match
    first, *later = log.read_text().splitlines()
    if write:
        assert len({first, *later}) == 3  # a fresh copy for every match
    else:
        assert later == [first, first]  # the same copy, unchanged, serves every match


async def test_a_box_reaches_the_live_workers_when_one_died_meanwhile(tmp_path: Path) -> None:
    """Dask's broadcast scatter retries a worker that died during it forever (the run hung);
    the executor hands a box to one worker at a time and passes over a dead one."""
    from judge.executors import artifacts

    own = Cluster(tmp_path / "cluster")
    try:
        async with DaskExecutor(own.address, insecure=True) as executor:
            client = executor.client
            assert client is not None
            before = await trio.to_thread.run_sync(own.worker_pids)
            victim, survivor = sorted(before, key=lambda address: before[address])
            os.kill(before[victim], signal.SIGKILL)
            (tmp_path / "box").mkdir()
            (tmp_path / "box" / "bot.txt").write_text("a box")
            packed = artifacts.pack_box(tmp_path / "box")
            digest = artifacts.box_hash(packed)
            future = await trio.to_thread.run_sync(
                executor._scatter, digest, packed, [victim, survivor]
            )
            holders = await trio.to_thread.run_sync(client.who_has, future)
    finally:
        own.stop()
    assert list(holders[future.key]) == [survivor]


async def test_a_restarted_worker_gets_the_boxes_and_plays_again(tmp_path: Path) -> None:
    """The scheduler sends a match only to workers holding its box: a worker restarted after
    kill -9 gets its own copy of the boxes in use, so it plays matches again."""
    from judge.executors.dask import WORKERS_CHECK

    bot = slow_bot(tmp_path / "box", 0)
    spec = rps_spec(bot, builtin("rps", "rock"), turns=3)
    async with DaskExecutor(None, local_workers=2) as executor:
        client = executor.client
        assert client is not None
        await executor.run(MatchJob(spec.model_copy(update={"match_id": "before"})))
        pids = await trio.to_thread.run_sync(client.run, os.getpid)
        victim = sorted(pids, key=lambda address: pids[address])[0]
        os.kill(pids[victim], signal.SIGKILL)
        for _ in range(600):  # its nanny starts a new worker process
            now = await trio.to_thread.run_sync(lambda: client.scheduler_info()["workers"])
            if len(now) == 2 and victim not in now:
                break
            await trio.sleep(0.1)
        (newcomer,) = set(now) - set(pids)
        await trio.sleep(WORKERS_CHECK)  # (the executor looks for new workers this often)
        await executor.run(MatchJob(spec.model_copy(update={"match_id": "after"})))
        holders = await trio.to_thread.run_sync(client.who_has)
    boxes = [held for key, held in holders.items() if key.startswith("botbox-")]
    assert boxes and all(newcomer in held for held in boxes), (newcomer, boxes)


async def test_a_worker_killed_mid_tourney_reruns_its_matches_elsewhere(
    tmp_path: Path,
) -> None:
    bots = [
        slow_bot(tmp_path / "box", 0.02),
        builtin("rps", "rock"),
        builtin("rps", "paper"),
        slow_bot(tmp_path / "box2", 0.02, "slower"),
    ]
    spec = tourney(bots, 40)
    here = await run_tourney(spec)
    own = Cluster(tmp_path / "cluster")
    try:
        pids = own.worker_pids()
        victim = sorted(pids.values())[0]
        recorded: list[int] = []
        killed = False

        def progress(p: object) -> None:
            nonlocal killed
            if not killed and p.done >= 1:  # type: ignore[attr-defined]
                # A match is done and others are running: kill a worker in the middle.
                os.kill(victim, signal.SIGKILL)
                killed = True

        async with DaskExecutor(own.address, insecure=True) as executor:
            there = await run_tourney(
                spec, replays=tmp_path / "replays", executor=executor, progress=progress
            )
        recorded = [m.number for m in there.matches]
    finally:
        own.stop()
    assert killed
    assert standings(there) == standings(here)
    assert sorted(recorded) == list(range(1, 7)) and len(set(recorded)) == 6
    for match in there.matches:
        assert len(body(Path(match.replay or ""))) == 40


async def test_a_match_the_cluster_drops_is_submitted_again(
    tmp_path: Path, cluster: Cluster
) -> None:
    """The scheduler may drop a task we still wait for (its client reconnected, a box's
    copies died with a worker): the match is played again, not lost."""
    from distributed import Client, Future

    bot = slow_bot(tmp_path / "box", 0.02)
    spec = rps_spec(bot, builtin("rps", "rock"), turns=60).model_copy(
        update={"match_id": f"dropped{time.time_ns()}"}
    )
    dropped = False

    def drop_when_running() -> None:
        nonlocal dropped
        with Client(cluster.address, timeout=30) as other:
            key = f"match-{spec.match_id}"
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                processing = other.processing()
                if any(key in keys for keys in processing.values()):
                    Future(key, other).cancel(force=True)
                    dropped = True
                    return
                time.sleep(0.05)

    async with (
        DaskExecutor(cluster.address, insecure=True) as executor,
        trio.open_nursery() as nursery,
    ):
        nursery.start_soon(trio.to_thread.run_sync, drop_when_running)
        result = await executor.run(MatchJob(spec, replay_path=tmp_path / "r.jsonl"))
    assert dropped
    assert result.turns == 60 and result.players[0].outcome == "ok"
    assert len(body(tmp_path / "r.jsonl")) == 60


async def test_a_lost_scheduler_is_a_clear_error_and_a_new_one_is_used(tmp_path: Path) -> None:
    own = Cluster(tmp_path / "cluster", workers=1)
    bot = slow_bot(tmp_path / "box", 0.05)
    try:
        async with DaskExecutor(own.address, insecure=True) as executor:
            with pytest.raises(ExceptionGroup) as caught:
                async with trio.open_nursery() as nursery:

                    async def kill_soon() -> None:
                        await trio.sleep(1.5)
                        os.killpg(own.scheduler.pid, signal.SIGKILL)
                        os.killpg(own.workers.pid, signal.SIGKILL)

                    nursery.start_soon(kill_soon)
                    await executor.run(MatchJob(rps_spec(bot, builtin("rps", "rock"), turns=400)))
            [error] = caught.value.exceptions
            assert isinstance(error, ExecutorError) and "lost the Dask scheduler" in str(error)
            # The cluster comes back at the same address: the same executor carries on.
            own.stop()
            own = Cluster(tmp_path / "cluster-again", workers=1, port=own.port)
            again = await executor.run(MatchJob(rps_spec(bot, builtin("rps", "rock"), turns=5)))
            assert again.turns == 5 and again.players[0].outcome == "ok"
    finally:
        own.stop()


async def test_an_unreachable_scheduler_is_a_clear_error() -> None:
    with pytest.raises(ExecutorError, match="cannot reach the Dask scheduler"):
        async with open_executor(f"dask://127.0.0.1:{free_port()}", insecure_cluster=True):
            pass


def test_the_tourney_command_takes_an_executor(tmp_path: Path) -> None:
    args = [
        sys.executable,
        "-m",
        "judge.cli",
        "tourney",
        "rps",
        "rock",
        "paper",
        "--turns",
        "5",
        "--seed",
        "3",
        "--json",
        "--replays",
        str(tmp_path / "r"),
    ]
    runs = {}
    for name in ("inproc", "local"):
        proc = subprocess.run(
            [*args, "--executor", name], capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 0, proc.stderr
        runs[name] = json.loads(proc.stdout)["standings"]
    assert runs["inproc"] == runs["local"]
    bad = subprocess.run(
        [*args, "--executor", "cluster"], capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2 and "unknown executor 'cluster'" in bad.stderr
    gone = subprocess.run(
        [*args, "--executor", f"dask://127.0.0.1:{free_port()}", "--insecure-cluster"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert gone.returncode == 1 and "cannot reach the Dask scheduler" in gone.stderr
    assert "Traceback" not in gone.stderr


async def test_cancelling_a_remote_match_stops_it_and_its_bots(
    tmp_path: Path, cluster: Cluster
) -> None:
    name = f"cancelled{time.time_ns()}"  # its copy on the worker runs under this file name
    bot = slow_bot(tmp_path / "box", 0.05, name)
    replay = tmp_path / "cancelled.replay"
    job = MatchJob(rps_spec(bot, builtin("rps", "rock"), turns=2000), replay_path=replay)
    async with DaskExecutor(cluster.address, insecure=True) as executor:
        with trio.move_on_after(60) as scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(executor.run, job)
                while not (replay.exists() and body(replay)):  # noqa: ASYNC110 (a file)
                    await trio.sleep(0.1)
                assert processes_running(f"/{name}.py")  # the bot plays on a worker
                nursery.cancel_scope.cancel()
        assert not scope.cancelled_caught
        # The worker notices, ends the match and kills its bots; then it plays the next one.
        for _ in range(300):
            if not processes_running(f"/{name}.py"):
                break
            await trio.sleep(0.1)
        assert not processes_running(f"/{name}.py")
        after = await executor.run(
            MatchJob(rps_spec(builtin("rps", "paper"), builtin("rps", "rock"), turns=5))
        )
        assert after.summary == "5-0"


async def test_a_match_on_a_dask_worker_plays_colocated(tmp_path: Path) -> None:
    """A worker plays one match at a time, so its judge thread and bots share one core once
    both bots have answered (run_match's colocate), as judge match does."""
    from judge.bots import resolve
    from tests.conftest import TEST_BOTS
    from tests.test_runner import _cpus_by_turn

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("co-location needs two CPUs")
    # tests/bots/affinity.py (never slow) in a box of its own: it travels to the worker
    source = (TEST_BOTS / "affinity.py").read_text()
    source = source.replace("slow = int(sys.argv[1])", "slow = 0")
    bots = []
    for name in ("first", "second"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "affinity.py").write_text(source)
        bots.append(resolve(str(tmp_path / name / "affinity.py"), "rps"))
    spec = rps_spec(*bots, turns=12)
    async with DaskExecutor(None, local_workers=1) as executor:
        result = await executor.run(MatchJob(spec))
    assert [p.outcome for p in result.players] == ["ok", "ok"], result.players[0].stderr
    for player in result.players:
        cpus = _cpus_by_turn(player.stderr)
        assert cpus[1] > 1  # (bots start spread)
        # Gathered on one core after turn 1 (a loaded machine may spread them again later).
        assert 1 in [cpus[t] for t in range(2, 13)], cpus


def test_a_dask_executor_keeps_a_bounded_record_of_artifact_fetches() -> None:
    """One entry per match, for the bench: a server runs for days, so only the latest."""
    from judge.executors.dask import FETCHES_KEPT

    executor = DaskExecutor("tcp://127.0.0.1:1", insecure=True)  # (not opened: nothing to reach)
    for _ in range(FETCHES_KEPT + 5):
        executor.fetches.append({"seconds": 0.0, "cached": True})
    assert len(executor.fetches) == FETCHES_KEPT
