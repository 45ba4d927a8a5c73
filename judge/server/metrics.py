"""What an operator's Prometheus scrapes from ``GET /metrics`` (prometheus-client, text format).

Each server process has its own registry (tests run several in one process). Counters are
this process's since it started; the ``judge_matches`` gauge is read from the database at
each scrape, so it is the same on every server sharing one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
)
from prometheus_client.core import SummaryMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from judge.server.records import Match, MatchStatus

# The *_created series (when each counter was made) only double the page.
disable_created_metrics()  # type: ignore[no-untyped-call]

DURATION_BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800)
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)


class _TurnLatency(Collector):
    """Every answer's time, as a summary's count and sum: the runner keeps per-bot figures
    (count, mean), not each turn's, so a histogram of single turns is not possible here."""

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0

    def add(self, count: int, mean_ms: float) -> None:
        self.count += count
        self.total += count * mean_ms / 1000

    def collect(self) -> Any:
        family = SummaryMetricFamily(
            "judge_turn_latency_seconds", "time bots took to answer a turn, every turn"
        )
        family.add_metric([], count_value=self.count, sum_value=self.total)
        yield family


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.matches = Gauge(
            "judge_matches", "matches queued or running now", ["status"], registry=r
        )
        self.finished = Counter(
            "judge_matches_finished",
            "matches ended, by outcome: win, draw (played to the end), error, cancelled",
            ["outcome"],
            registry=r,
        )
        self.duration = Histogram(
            "judge_match_duration_seconds",
            "how long a played match took",
            registry=r,
            buckets=DURATION_BUCKETS,
        )
        self.turn_p95 = Histogram(
            "judge_turn_latency_p95_seconds",
            "each bot's 95th percentile answer time in a match",
            registry=r,
            buckets=LATENCY_BUCKETS,
        )
        self.turns = _TurnLatency()
        r.register(self.turns)
        self.sandbox_starts = Counter(
            "judge_sandbox_starts",
            "bots started for matches, by sandbox layer and whether the start worked",
            ["layer", "result"],
            registry=r,
        )
        self.builds = Counter(
            "judge_builds", "bot builds run, by result (ok, failed)", ["result"], registry=r
        )
        self.disqualifications = Counter(
            "judge_disqualifications",
            "bots disqualified, by reason (the outcome codes of docs/protocol.md)",
            ["reason"],
            registry=r,
        )
        self.http = Counter(
            "judge_http_requests", "HTTP requests answered, by status", ["status"], registry=r
        )
        self._http_by_status: dict[int, Any] = {}

    async def match_ended(
        self, match: Match, status: MatchStatus, result: dict[str, Any] | None, error: str
    ) -> None:
        """A scheduler listener: called once per match whose end this process recorded."""
        if status != "finished" or result is None:
            self.finished.labels(outcome=status).inc()
            return
        self.finished.labels(outcome="draw" if result.get("draw") else "win").inc()
        self.duration.observe(float(result.get("duration_s") or 0.0))
        layer = str(result.get("sandbox") or "none")
        for player in result.get("players", []):
            outcome = player.get("outcome", "ok")
            started = "failed" if outcome == "start_failed" else "ok"
            self.sandbox_starts.labels(layer=layer, result=started).inc()
            if outcome != "ok":
                self.disqualifications.labels(reason=outcome).inc()
            response = player.get("response") or {}
            if response.get("count"):
                self.turns.add(int(response["count"]), float(response.get("mean_ms", 0.0)))
                self.turn_p95.observe(float(response.get("p95_ms", 0.0)) / 1000)

    def build_finished(self, ok: bool) -> None:
        self.builds.labels(result="ok" if ok else "failed").inc()

    def http_answered(self, status: int) -> None:
        child = self._http_by_status.get(status)
        if child is None:
            child = self._http_by_status[status] = self.http.labels(status=str(status))
        child.inc()

    def render(self, *, queued: int, running: int) -> bytes:
        self.matches.labels(status="queued").set(queued)
        self.matches.labels(status="running").set(running)
        return bytes(generate_latest(self.registry))


class HttpMetrics:
    """The outermost ASGI layer: counts every answer by status (refusals by the layers
    inside it too) and serves ``GET /metrics``."""

    def __init__(
        self,
        app: ASGIApp,
        metrics: Metrics,
        counts: Callable[[], Awaitable[tuple[int, int]]],
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.counts = counts  # (queued, running) now

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope.get("path") == "/metrics" and scope.get("method") in ("GET", "HEAD"):
            await self._scrape(send)
            return

        async def counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.metrics.http_answered(int(message["status"]))
            await send(message)

        await self.app(scope, receive, counted)

    async def _scrape(self, send: Send) -> None:
        queued, running = await self.counts()
        body = self.metrics.render(queued=queued, running=running)
        self.metrics.http_answered(200)
        headers = [
            (b"content-type", CONTENT_TYPE_LATEST.encode()),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
