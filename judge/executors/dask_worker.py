"""What runs on a Dask worker: one match as one task, in one trio judge in the worker process.

Stock ``dask worker`` processes run it; they need the judge installed (they import this
module by name). The sandbox is the strongest layer this worker has (or $BOTJUDGE_SANDBOX),
recorded in the result. Replay lines go back to the caller as events on a topic
(``Worker.log_event``; the client subscribes), in batches every ``PUBLISH_INTERVAL``, and so
does the finished match's payload (it is the task's result as well).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import trio
import zstandard

from judge.executors import artifacts
from judge.models import MatchSpec
from judge.sandbox import Sandbox

PUBLISH_INTERVAL = 0.1
CANCEL_POLL = 0.25

_sandbox: Sandbox | None = None
_copies = artifacts.BoxCopies()
_sandbox_lock = threading.Lock()


def worker_sandbox() -> Sandbox:
    """This worker process's sandbox, probed once."""
    global _sandbox
    with _sandbox_lock:
        if _sandbox is None:
            from judge import logs
            from judge.parallel import raise_fd_limit
            from judge.sandbox.select import default_sandbox

            logs.configure(os.environ.get("BOTJUDGE_LOG_LEVEL", "warning"))
            raise_fd_limit()
            _sandbox = default_sandbox()
        return _sandbox


class Publisher:
    """A line sink that sends lines to the caller as events, batched."""

    def __init__(self, topic: str, match_id: str, attempt: str) -> None:
        from distributed import get_worker

        self.worker = get_worker()
        self.topic = topic
        self.match_id = match_id
        self.attempt = attempt
        self.buffer: list[str] = []
        self.sent = 0
        self.last = 0.0

    def __call__(self, line: str) -> None:
        self.buffer.append(line)
        now = time.monotonic()
        if line.startswith("#") or now - self.last >= PUBLISH_INTERVAL:
            self.flush(now)

    def flush(self, now: float | None = None) -> None:
        if self.buffer:
            self.worker.log_event(
                self.topic,
                {
                    "match": self.match_id,
                    "attempt": self.attempt,
                    "start": self.sent,
                    "lines": self.buffer,
                },
            )
            self.sent += len(self.buffer)
            self.buffer = []
        self.last = time.monotonic() if now is None else now


def _cancelled_by_scheduler(key: str | None) -> bool:
    """Whether the scheduler has let go of this task (its caller cancelled it)."""
    if key is None:
        return False
    from distributed import get_worker

    state = get_worker().state.tasks.get(key)
    return state is None or state.state in ("cancelled", "released", "forgotten")


def play_match(
    spec_json: str,
    boxes: dict[str, bytes],
    topic: str | None,
    want_lines: bool,
    batch: bool,
    min_layer: str | None = None,
) -> bytes:
    """The Dask task: fetch-or-reuse the boxes, play the match, return result and lines
    (pickled, one bytes object).

    A worker whose sandbox is below ``min_layer`` refuses the match (SandboxError).
    """
    from distributed.worker import thread_state  # type: ignore[attr-defined]

    from judge.parallel import batch_scheduled
    from judge.runner import run_match

    key = getattr(thread_state, "key", None)
    sandbox = worker_sandbox()
    if min_layer is not None:
        from judge.sandbox import SandboxError
        from judge.sandbox.base import layer_rank

        if layer_rank(sandbox.layer) < layer_rank(min_layer):
            raise SandboxError(
                f"this worker's sandbox ({sandbox.layer}) is below the minimum {min_layer!r}"
            )
    attempt = uuid.uuid4().hex[:12]
    began = time.perf_counter()
    cached: dict[str, Path] = {}
    hits = 0
    for digest, packed in boxes.items():
        cached[digest], hit = artifacts.unpacked(digest, packed)
        hits += hit
    taken: dict[str, tuple[Path, Any]] = {}
    try:
        for digest, path in cached.items():
            taken[digest] = _copies.take(digest, path)
        copies = {digest: copy[0] for digest, copy in taken.items()}
        fetch_s = time.perf_counter() - began
        spec = MatchSpec.model_validate_json(spec_json)
        spec = spec.model_copy(
            update={"bots": [artifacts.local_bot(bot, copies) for bot in spec.bots]}
        )
        lines: list[str] = []
        sinks: list[Any] = []
        publisher = Publisher(topic, spec.match_id, attempt) if topic and want_lines else None
        if want_lines:
            sinks.append(lines.append)
        if publisher is not None:
            sinks.append(publisher)

        async def watched() -> Any:
            async with trio.open_nursery() as nursery:

                async def watch() -> None:
                    while not _cancelled_by_scheduler(key):  # noqa: ASYNC110 (no event)
                        await trio.sleep(CANCEL_POLL)
                    nursery.cancel_scope.cancel()

                nursery.start_soon(watch)
                outcome = await run_match(
                    spec, sandbox=sandbox, sinks=sinks, batch_scheduled=took, colocate=True
                )
                nursery.cancel_scope.cancel()
                return outcome

        with batch_scheduled() if batch else contextlib.nullcontext(False) as took:
            result = trio.run(watched)
        if result is None:
            raise RuntimeError("the match was cancelled")
        if publisher is not None:
            publisher.flush()
    finally:
        for digest, copy in taken.items():
            _copies.give_back(digest, copy)
    # One bytes object, not a dict: the worker sizes a task's result (dask.sizeof walks a
    # dict item by item, twice per task) and the event and the result both carry it.
    payload = pickle.dumps(
        {
            "result": result.model_dump_json(),
            "lines": zstandard.ZstdCompressor().compress("".join(lines).encode())
            if want_lines
            else b"",
            "attempt": attempt,
            "fetch_s": fetch_s,
            "cached": hits == len(boxes),
            "pid": os.getpid(),
        },
        protocol=pickle.HIGHEST_PROTOCOL,
    )
    if topic and key is not None:
        # The result goes back on the event stream too, ahead of the task's completion
        # (the worker sends both in order on one stream): the caller then need not fetch
        # it from this worker, a round trip through the scheduler less per match.
        from distributed import get_worker

        get_worker().log_event(topic, {"key": key, "payload": payload})
    return payload


def touch_boxes(boxes: dict[str, bytes]) -> dict[str, Any]:
    """A task that only makes sure the boxes are unpacked here (the bench times it)."""
    began = time.perf_counter()
    hits = sum(artifacts.unpacked(digest, packed)[1] for digest, packed in boxes.items())
    return {
        "seconds": time.perf_counter() - began,
        "cached": hits == len(boxes),
        "pid": os.getpid(),
    }


def noop() -> int:
    """A task that does nothing (the bench times dispatch with it)."""
    return os.getpid()
