"""The Dask executor: matches as tasks on the workers of a Dask distributed cluster.

``tls://HOST:PORT`` connects to a running scheduler (``tcp://`` only when the caller says the
network is trusted: :mod:`judge.executors.cluster`); ``dask-local`` starts a LocalCluster of
one worker process per core, whose members prove themselves to each other with certificates
made for the run. A match is one task (``judge.executors.dask_worker.play_match``)
that runs one trio judge in the worker process. Every task asks for one unit of the worker
resource ``match``, and a worker offers one per process (``--nworkers N --nthreads 1
--resources match=1``), so a worker process plays one match at a time: one per core.

Bot boxes travel content-addressed: each is scattered once per executor under the key
``botbox-<sha256>`` to every worker, which unpacks it once into its cache. Replay lines come
back while the match runs as events on a topic of this executor (``log_event`` on the
worker, ``subscribe_topic`` here), and the complete lines again with the result, so the
replay file written here is whole even if an event was late. Task keys are
``match-<match id>``: a match submitted twice is one task, and its result arrives once.
If a worker dies, the scheduler runs its matches again elsewhere; a match the cluster drops
(cancelled, not by us: the client lost and regained its scheduler, or a box lost every copy)
is submitted again, up to three times. The lines of the
abandoned attempt are dropped (``MatchJob.on_restart``).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import pickle
import threading
import uuid
from collections import Counter, OrderedDict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
import zstandard

from judge import logs
from judge.cpus import allowed_cpus
from judge.executors import artifacts
from judge.executors.base import Executor, ExecutorError, LineRelay, MatchJob
from judge.models import MatchResult

log = logs.get_logger("judge.executors.dask")

RESOURCE = "match"
# How often (s, at most) shipping a match looks for workers that joined since (a restarted one).
WORKERS_CHECK = 1.0
# Boxes kept scattered on the workers after their matches, most recently used first.
BOXES_KEPT = 256
CONNECT_TIMEOUT = 10.0
WORKERS_TIMEOUT = 60.0
# Dask's statistical profiler samples every task thread each 10 ms: a measurable share of a
# match's judge CPU (docs/scaling.md), for a profile nobody reads. Off in the workers we
# start; the docs' worker line sets it too. The event-loop watchdog ticks every 20 ms by
# default, waking every worker's event loop (and the caller's, with a LocalCluster's
# scheduler in it) 50 times a second to warn of a loop blocked for 3 s: once a second warns
# as well, and cuts the processes' CPU when idle (docs/scaling.md, "Why these flags").
WORKER_SETTINGS = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
}
# A box whose last walk found at most this many entries is walked again in the trio thread:
# lstat-ing a few files costs far less than a round trip to a worker thread.
INLINE_WALK = 64
FETCHES_KEPT = 10_000
# How many times a match the cluster dropped (not failed) is submitted before giving up.
SUBMISSIONS = 3
WORKER_HELP = (
    "start workers with: judge worker tls://HOST:8786 --tls-ca CA --tls-cert CERT --tls-key KEY"
    f" (one process per core, --resources {RESOURCE}=1)"
)


@dataclass
class _Live:
    relay: LineRelay
    attempt: str | None = None
    dropped: set[str] = field(default_factory=set)

    def event(self, message: dict[str, Any]) -> None:
        attempt = message["attempt"]
        if attempt in self.dropped:
            return
        if self.attempt is None:
            self.attempt = attempt
        elif attempt != self.attempt:
            # Another attempt of the match (its first worker died): start over with it.
            self.dropped.add(self.attempt)
            self.attempt = attempt
            self.relay.restart()
        if message["start"] <= self.relay.delivered:
            self.relay.deliver(message["start"], message["lines"])

    def finish(self, attempt: str, lines: list[str]) -> None:
        if self.attempt is not None and attempt != self.attempt:
            self.relay.restart()
        self.attempt = attempt
        self.relay.deliver(0, lines)
        self.relay.close()


@dataclass
class _Waiting:
    """A submitted match. Its task is submitted and watched on the client's event-loop thread
    (``_submit_on_loop``), which wakes the trio side once: when the task ended, with the
    payload that came ahead of it as an event (the future then released there too)."""

    done: trio.Event = field(default_factory=trio.Event)
    payload: bytes | None = None  # set on the loop thread
    future: Any = None  # set on the loop thread
    error: BaseException | None = None  # submitting failed (on the loop thread)
    submitted: threading.Event = field(default_factory=threading.Event)
    watch: Any = None  # the loop's task waiting for the future


class _Dropped(Exception):
    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


def _files_of(box: Path) -> tuple[Any, ...]:
    """What a box is made of, cheaply: every entry's path, size and modification time."""
    found = []
    for root, dirs, files in os.walk(box):
        dirs.sort()
        for name in sorted(files) + dirs:
            path = os.path.join(root, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            found.append((path, info.st_size, info.st_mtime_ns, info.st_mode))
    return tuple(found)


class DaskExecutor(Executor):
    """Matches on a Dask cluster: ``address`` is a scheduler (``tls://host:8786``, with
    ``security`` a ``distributed.Security`` holding this client's certificate; ``tcp://`` only
    with ``insecure``) or None for a LocalCluster of ``local_workers`` processes (default: one
    per core, using ``sandbox_layer`` if given) that speaks TLS with certificates of its own.
    A worker whose sandbox is below ``min_layer`` refuses its matches (an ExecutorError here)."""

    name = "dask"

    def __init__(
        self,
        address: str | None = None,
        *,
        local_workers: int | None = None,
        sandbox_layer: str | None = None,
        min_layer: str | None = None,
        security: Any = None,
        insecure: bool = False,
    ) -> None:
        if address is not None and address.startswith("tls://") and security is None:
            raise ValueError(f"{address}: a TLS cluster needs this client's certificate")
        if address is not None and not address.startswith("tls://") and not insecure:
            raise ValueError(f"{address}: refusing an unauthenticated Dask cluster")
        self.address = address
        self.security = security
        self.min_layer = min_layer
        self.local_workers = local_workers
        self.sandbox_layer = sandbox_layer
        self.client: Any = None
        self.cluster: Any = None
        self.topic = f"botjudge-lines-{uuid.uuid4().hex[:12]}"
        self._token: trio.lowlevel.TrioToken | None = None
        self._live: dict[str, _Live] = {}
        self._results: dict[str, _Waiting] = {}  # task key -> its match, while it runs
        self.results_fetched = 0  # payloads fetched from a worker (not come as events)
        # hash -> scattered future, least recently used first; boxes of running matches stay.
        self._boxes: OrderedDict[str, Any] = OrderedDict()
        self._scheduler_id: str | None = None  # the scheduler our boxes and subscription live on
        self._in_use: Counter[str] = Counter()
        self._packed: dict[tuple[Path, tuple[Any, ...]], str] = {}  # (box, its files) -> hash
        self._walked: dict[Path, int] = {}  # box -> entries its last walk found
        self._ship_lock = trio.Lock()
        self._box_dirs: dict[str, Path] = {}  # hash -> the box it was packed from
        self._workers: set[str] = set()  # the workers our boxes were sent to
        self._workers_checked = -math.inf
        self._slots = 1
        self._gather = trio.CapacityLimiter(8)
        # The latest matches' artifact seconds, cached or not (bounded: a server runs for days).
        self.fetches: deque[dict[str, Any]] = deque(maxlen=FETCHES_KEPT)

    # -- lifecycle -----------------------------------------------------------
    def describe(self) -> str:
        where = self.address or f"LocalCluster {self.cluster.scheduler_address}"
        return f"dask {where} ({self._slots} match slots)"

    @property
    def slots(self) -> int:
        return self._slots

    @property
    def in_flight(self) -> int:
        # Twice the slots: the scheduler has the next match at hand when one ends.
        return 2 * self._slots

    async def open(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        await trio.to_thread.run_sync(self._connect)

    def _connect(self) -> None:
        import dask
        from distributed import Client, LocalCluster, Security

        if self.address is None:
            # A CA and certificates made for this cluster alone, in memory: its scheduler and
            # workers let in no one else (whoever reaches them could run code as our user).
            self.security = Security.temporary()  # type: ignore[no-untyped-call]
            workers = self.local_workers or len(allowed_cpus())
            env = {"BOTJUDGE_SANDBOX": self.sandbox_layer} if self.sandbox_layer else {}
            # Tasks go to the workers at once (no scheduler-side queue): a worker starts its
            # next match the moment one ends, without a round trip to the scheduler.
            settings = {
                "distributed.scheduler.worker-saturation": float("inf"),
                "distributed.scheduler.active-memory-manager.start": False,
                "distributed.worker.daemon": False,
                **WORKER_SETTINGS,
            }
            with dask.config.set(settings):
                self.cluster = LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    resources={RESOURCE: 1},
                    dashboard_address=None,
                    scheduler_port=0,
                    silence_logs=40,
                    env=env,
                    security=self.security,
                    # The scheduler runs in this process: it listens in-process as well as
                    # on TLS (for the workers), and our client talks to it in-process, so
                    # the messages of every match (submit, its events, its end, release)
                    # skip serializing and the loopback socket on both sides.
                    scheduler_kwargs={
                        "protocol": ["tls://", "inproc://"],
                        "host": ["127.0.0.1", None],
                        "port": [0, None],
                    },
                )
            here = [
                listener.contact_address
                for listener in self.cluster.scheduler.listeners
                if listener.contact_address.startswith("inproc://")
            ]
            # (on the cluster's event loop, as Client(cluster) would be: one loop thread)
            self.client = Client(  # type: ignore[no-untyped-call]
                here[0], loop=self.cluster.loop, security=self.security
            )
        else:
            try:
                self.client = Client(  # type: ignore[no-untyped-call]
                    self.address, timeout=CONNECT_TIMEOUT, security=self.security
                )
            except (OSError, TimeoutError) as exc:
                raise ExecutorError(
                    f"cannot reach the Dask scheduler at {self.address}: {exc}"
                ) from None
            try:
                self.client.wait_for_workers(1, timeout=WORKERS_TIMEOUT)
            except TimeoutError:
                self._close_sync()
                raise ExecutorError(
                    f"the Dask scheduler at {self.address} has no workers after "
                    f"{WORKERS_TIMEOUT:g} s; {WORKER_HELP}"
                ) from None
        self._refresh_slots()
        if self._slots == 0:
            self._close_sync()
            raise ExecutorError(
                f"no worker of {self.address} offers the resource {RESOURCE!r} "
                f"(one match per worker process); {WORKER_HELP}"
            )
        self._keep_boxes_everywhere()
        self.client.subscribe_topic(self.topic, self._on_event)
        self._scheduler_id = self.client.scheduler_info().get("id")

    def _keep_boxes_everywhere(self) -> None:
        """Stop the scheduler's Active Memory Manager: every 2 s it drops the extra copies of
        data no queued task waits for, so after an idle spell a box stays on one worker only,
        and the scheduler then sends every match with that box there (it prefers workers that
        hold a task's inputs) while the others sit idle (measured: one of two workers played
        all 200 matches of a run, at half the rate)."""
        if self.client.amm.running():
            log.warning(
                "stopping the Dask scheduler's active memory manager (it would leave bot "
                "boxes on one worker); start the scheduler with "
                "DASK_DISTRIBUTED__SCHEDULER__ACTIVE_MEMORY_MANAGER__START=False",
                address=self.address,
            )
            self.client.amm.stop()

    def _refresh_slots(self) -> None:
        workers = self.client.scheduler_info(n_workers=-1)["workers"]
        self._slots = sum(int(w.get("resources", {}).get(RESOURCE, 0)) for w in workers.values())
        self._workers = set(workers)

    async def _boxes_to_new_workers(self) -> None:
        """Send the boxes we hold to workers that joined since (a worker restarted after a
        crash, one added to the cluster): the scheduler sends a match only to workers that
        hold its box, so without its own copy a new worker would never get one (measured: a
        restarted worker of two played none of the next 200 matches)."""
        now = trio.current_time()
        if now - self._workers_checked < WORKERS_CHECK:
            return
        self._workers_checked = now
        client = self.client
        workers = set(
            await trio.to_thread.run_sync(lambda: client.scheduler_info(n_workers=-1)["workers"])
        )
        joined, self._workers = sorted(workers - self._workers), workers
        if joined and self._boxes:
            await trio.to_thread.run_sync(self._send_boxes, joined)

    def _send_boxes(self, workers: list[str]) -> None:
        for digest in list(self._boxes):
            box = self._box_dirs.get(digest)
            if box is None or not box.is_dir():
                continue
            packed = artifacts.pack_box(box)
            if artifacts.box_hash(packed) != digest:
                continue  # changed since: its new version is sent when a match needs it
            try:
                self._scatter(digest, packed, workers)  # (the key's first future keeps it)
            except ExecutorError:
                log.warning("new workers took no copy of a bot box", box=str(box))

    async def aclose(self) -> None:
        await trio.to_thread.run_sync(self._close_sync)

    def _close_sync(self) -> None:
        client, self.client = self.client, None
        cluster, self.cluster = self.cluster, None
        self._boxes.clear()
        if client is not None:
            try:
                client.close(timeout=5)
            except Exception:  # a scheduler already gone: nothing to close
                log.debug("closing the Dask client failed", exc_info=True)
        if cluster is not None:
            cluster.close(timeout=10)

    async def _scheduler_changed(self) -> bool:
        """Whether the scheduler was lost since we connected. The client then either gives
        up (closed) or reconnects by itself to a new scheduler at the same address, which
        holds none of our scattered boxes nor our event subscription: both need a new start."""
        deadline = trio.current_time() + CONNECT_TIMEOUT
        while self.client.status not in ("running", "closing", "closed"):
            if trio.current_time() > deadline:
                return True
            await trio.sleep(0.1)
        if self.client.status != "running":
            return True
        # Asked of the scheduler itself: the client's cached identity can still be the old one
        # for a moment after it reconnected.
        client = self.client
        try:
            identity = await trio.to_thread.run_sync(
                lambda: client.sync(client.scheduler.identity, callback_timeout=CONNECT_TIMEOUT)
            )
        except Exception:
            return True
        return bool(identity.get("id") != self._scheduler_id)

    async def _reconnect(self, force: bool = False) -> None:
        """The scheduler was lost: connect afresh (a server resumes its queue once the
        cluster is back). Boxes are scattered again; caches stay on disk."""
        async with self._ship_lock:
            if self.client is None:
                return
            if not force and self.client.status not in ("closing", "closed"):
                return
            log.warning("reconnecting to the Dask scheduler", address=self.address)
            self._boxes.clear()
            self._in_use.clear()
            self._packed.clear()
            old, self.client = self.client, None
            await trio.to_thread.run_sync(old.close)
            try:
                await trio.to_thread.run_sync(self._connect)
            except BaseException:
                self.client = old  # still closed: the next match tries again
                raise

    # -- lines from the workers ------------------------------------------
    def _on_event(self, event: tuple[float, dict[str, Any]]) -> None:
        # On the client's event-loop thread. A result is kept for the task's end (which comes
        # next on the same stream, see ``_submit_on_loop``); lines go to the trio thread.
        message = event[1]
        if "payload" in message:
            waiting = self._results.get(message["key"])
            if waiting is not None and waiting.payload is None:
                waiting.payload = message["payload"]
            return
        token = self._token
        if token is None:
            return
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(self._deliver, message)

    def _deliver(self, message: dict[str, Any]) -> None:
        live = self._live.get(message.get("match", ""))
        if live is not None:
            live.event(message)

    # -- artifacts -----------------------------------------------------------
    async def _ship(self, job: MatchJob) -> tuple[str, dict[str, Any]]:
        """The portable spec and the scattered boxes it needs (packed and sent once each;
        the caller ``_unship`` s them when the match is over)."""
        digests: dict[Path, str] = {}
        async with self._ship_lock:
            await self._boxes_to_new_workers()
            for bot in job.spec.bots:
                if bot.box is None or bot.box in digests:
                    continue
                # A box is packed again only when one of its files changed (or was added).
                signature = (bot.box, await self._walk(bot.box))
                digest = self._packed.get(signature)
                if digest is None or digest not in self._boxes:
                    packed = await trio.to_thread.run_sync(artifacts.pack_box, bot.box)
                    digest = artifacts.box_hash(packed)
                    self._box_dirs[digest] = bot.box
                    if digest not in self._boxes:
                        self._boxes[digest] = await trio.to_thread.run_sync(
                            self._scatter, digest, packed
                        )
                    self._packed[signature] = digest
                digests[bot.box] = digest
            for digest in digests.values():
                self._boxes.move_to_end(digest)
                self._in_use[digest] += 1
        spec_json = artifacts.portable_match(job.spec, digests)
        return spec_json, {d: self._boxes[d] for d in digests.values()}

    async def _walk(self, box: Path) -> tuple[Any, ...]:
        if self._walked.get(box, INLINE_WALK + 1) <= INLINE_WALK:
            files = _files_of(box)
        else:
            files = await trio.to_thread.run_sync(_files_of, box)
        self._walked[box] = len(files)
        return files

    def _unship(self, boxes: dict[str, Any]) -> None:
        for digest in boxes:
            self._in_use[digest] -= 1
        idle = [d for d in self._boxes if self._in_use[d] <= 0]
        for digest in idle[: max(0, len(self._boxes) - BOXES_KEPT)]:
            del self._boxes[digest]  # the workers drop it; its unpacked copy stays on disk
            del self._in_use[digest]
            self._box_dirs.pop(digest, None)

    def _scatter(self, digest: str, packed: bytes, workers: list[str] | None = None) -> Any:
        """The box onto every worker (``workers``: these), one worker at a time: Dask's own
        broadcast (``scatter(broadcast=True)``) retries a worker that died meanwhile forever
        (its replicate loop keeps the dead worker in its list), and the run hangs with it.
        A worker that fails to take it is passed over: it fetches the box from another when
        a match there needs it."""
        key = f"botbox-{digest}"
        if workers is None:
            workers = list(self.client.scheduler_info(n_workers=-1)["workers"])
        future = None
        for address in workers:
            try:
                future = self.client.scatter({key: packed}, workers=[address], hash=False)[key]
            except Exception as exc:  # gone since we listed it
                log.warning("a worker did not take a bot box", worker=address, error=str(exc))
        if future is None:
            raise ExecutorError(f"no worker of the cluster took bot box {digest[:12]}")
        return future

    # -- matches -------------------------------------------------------------
    async def run(self, job: MatchJob) -> MatchResult:
        if self.client is None:
            raise ExecutorError("the Dask executor is not open (use it in `async with`)")
        if self.address is not None and await self._scheduler_changed():
            await self._reconnect(force=True)
        if not job.spec.match_id:
            job.spec = job.spec.model_copy(update={"match_id": uuid.uuid4().hex[:12]})
        match_id = job.spec.match_id
        wants_lines = bool(job.sinks) or job.replay_path is not None
        relay = LineRelay(job) if wants_lines else None
        try:
            spec_json, boxes = await self._ship(job)
        except BaseException:
            if relay is not None:
                relay.close()
            raise
        if relay is not None:
            self._live[match_id] = _Live(relay)
        try:
            for submission in range(1, SUBMISSIONS + 1):
                try:
                    result = await self._play(job, match_id, spec_json, boxes, submission)
                    break
                except _Dropped as dropped:
                    # The cluster dropped the task although we still want it (the client lost
                    # and regained its scheduler, or a box's every copy died with a worker).
                    if submission == SUBMISSIONS or await self._scheduler_changed():
                        address = self.address or "the LocalCluster"
                        raise ExecutorError(
                            f"lost the Dask scheduler at {address}: match {match_id} could "
                            f"not finish ({dropped.status})"
                        ) from None
                    log.warning(
                        "the cluster dropped a match: submitting it again",
                        match=match_id,
                        status=dropped.status,
                    )
                    self._unship(boxes)
                    self._forget(boxes)
                    boxes = {}  # nothing shipped, should shipping again fail
                    spec_json, boxes = await self._ship(job)
        except BaseException:
            if relay is not None:
                relay.close()
            raise
        finally:
            self._live.pop(match_id, None)
            self._unship(boxes)
        if job.replay_path is not None:
            result = result.model_copy(update={"replay": str(job.replay_path)})
        return result

    def _forget(self, boxes: dict[str, Any]) -> None:
        """Scatter these boxes afresh next time (their copies on the cluster may be gone)."""
        for digest in boxes:
            self._boxes.pop(digest, None)
        self._packed = {sig: d for sig, d in self._packed.items() if d not in boxes}

    async def _play(
        self, job: MatchJob, match_id: str, spec_json: str, boxes: dict[str, Any], submission: int
    ) -> MatchResult:
        wants_lines = match_id in self._live
        token = trio.lowlevel.current_trio_token()
        # A resubmitted match gets a key of its own: the dropped one may linger a moment.
        key = f"match-{match_id}" if submission == 1 else f"match-{match_id}-{submission}"
        waiting = self._results[key] = _Waiting()
        args = (spec_json, boxes, self.topic, wants_lines, job.batch_scheduling, self.min_layer)
        client = self.client
        if client.status in ("failed", "closed"):
            raise ExecutorError(f"match {match_id}: the Dask client is {client.status}")
        client.loop.add_callback(self._submit_on_loop, client, token, waiting, key, args)
        try:
            await waiting.done.wait()
            if waiting.error is not None:
                raise ExecutorError(f"match {match_id}: submitting it failed: {waiting.error}")
            if waiting.payload is not None:
                # Came as an event, just ahead of the task's end: nothing to fetch (and the
                # future was released on the loop).
                raw = waiting.payload
            else:
                raw = await self._outcome(waiting.future, match_id)
                self.results_fetched += 1
        except BaseException:
            # The caller gave up (cancelled) or the cluster failed: let the task go.
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(self._cancel, waiting)
            raise
        finally:
            del self._results[key]
        # (pickled by our own task on a worker, as Dask pickles results anyway)
        payload = pickle.loads(raw)
        result = MatchResult.model_validate_json(payload["result"])
        self.fetches.append({"seconds": payload["fetch_s"], "cached": payload["cached"]})
        live = self._live.get(match_id)
        if live is not None:
            text = zstandard.ZstdDecompressor().decompress(payload["lines"]).decode()
            live.finish(payload["attempt"], text.splitlines(keepends=True))
        return result

    @staticmethod
    def _submit_on_loop(
        client: Any,
        token: trio.lowlevel.TrioToken,
        waiting: _Waiting,
        key: str,
        args: tuple[Any, ...],
    ) -> None:
        """On the client's event-loop thread: submit the task and watch it there. One wake
        of the loop per match (not one for the submission, one for a done callback and one
        for the release), and no trip through Dask's callback thread."""
        from distributed.client import done_callback

        from judge.executors.dask_worker import play_match

        def finished(future: Any) -> None:
            if waiting.payload is not None:
                future.release()
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(waiting.done.set)

        try:
            waiting.future = client.submit(
                play_match, *args, key=key, resources={RESOURCE: 1}, pure=False
            )
        except Exception as exc:  # a client closing meanwhile
            waiting.error = exc
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(waiting.done.set)
            return
        finally:
            waiting.submitted.set()
        waiting.watch = asyncio.ensure_future(
            done_callback(waiting.future, finished)  # type: ignore[no-untyped-call]
        )

    @staticmethod
    def _cancel(waiting: _Waiting) -> None:
        """Cancel a match's task (in a worker thread: it waits for the loop)."""
        waiting.submitted.wait(CONNECT_TIMEOUT)
        if waiting.future is not None:
            with contextlib.suppress(Exception):  # a client already closed
                waiting.future.cancel()

    async def _outcome(self, future: Any, match_id: str) -> bytes:
        status = future.status
        if status == "finished":
            async with self._gather:
                try:
                    payload: bytes = await trio.to_thread.run_sync(future.result)
                except Exception as exc:
                    raise ExecutorError(
                        f"match {match_id}: fetching its result failed: {exc}"
                    ) from exc
            future.release()
            return payload
        if status == "error":
            error = await trio.to_thread.run_sync(future.exception)
            from distributed import KilledWorker

            if isinstance(error, KilledWorker):
                raise ExecutorError(
                    f"match {match_id} was lost with every worker that ran it ({error})"
                )
            raise ExecutorError(
                f"match {match_id} failed on its worker: {type(error).__name__}: {error}"
            )
        # Cancelled, and not by us (we would be cancelled too, and not be here).
        raise _Dropped(status)
