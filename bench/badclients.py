"""Item 13, bad HTTP clients against the ladder: what they cost the matches.

A real `judge serve` plays its built-in bots' ladder (every game) on this machine's cores.
Windows with and without a mix of bad clients alternate; the ladder's throughput (matches
ended per minute, from the server's own ``/metrics``) in a window with the mix over the
window before it without is the figure, per executor, side by side: ``inproc`` (the matches in
the HTTP server's process, the old default) and ``local`` (judge processes beside it, the
default now). The mix, from a process of its own: clients sending invalid JSON, 1 MB bodies,
bodies trickled a few bytes a second, and headers trickled likewise, half of them with a bad
token (401, 400) and half without one (then the rate limit's 429). Target: the mix costs at
most 20 % of the throughput with the server's default executor.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, Report, Row, Spread, paired_ratios

CLIENTS = 50
KINDS = ("invalid-json", "1mb-body", "slow-body", "slow-headers")
TARGET_COST = 0.20


def mix(url: str, clients: int, seconds: float) -> None:
    """Run the bad clients for ``seconds`` (in this process: ``-m bench.badclients``)."""
    import trio

    host, port = url.split("//")[1].rsplit(":", 1)
    big = b'{"game": "rps", "bots": ["' + b"x" * 1_000_000 + b'"]}'
    requests = {
        "invalid-json": b"POST /api/matches HTTP/1.1\r\nHost: b\r\nContent-Type: application/json"
        b"\r\nContent-Length: 9\r\n%s\r\n{not json",
        "1mb-body": b"POST /api/matches HTTP/1.1\r\nHost: b\r\nContent-Type: application/json"
        + f"\r\nContent-Length: {len(big)}\r\n".encode()
        + b"%s\r\n"
        + big,
    }
    answers: dict[str, int] = {}

    async def fast(kind: str, token: bytes) -> None:
        request = requests[kind].replace(b"%s", token)
        while True:
            try:
                stream = await trio.open_tcp_stream(host, int(port))
            except OSError:
                await trio.sleep(0.1)
                continue
            async with stream:
                try:
                    await stream.send_all(request)
                    head = await stream.receive_some(4096)
                except (OSError, trio.BrokenResourceError):
                    continue
                status = head.split(b" ", 2)[1].decode() if head.count(b" ") >= 2 else "?"
                answers[status] = answers.get(status, 0) + 1

    async def slow(kind: str) -> None:
        if kind == "slow-body":
            first = (
                b"POST /api/matches HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100000\r\n\r\n{"
            )
        else:
            first = b"GET /api/health HTTP/1.1\r\nHost: b\r\nX-Slow: "
        while True:
            try:
                stream = await trio.open_tcp_stream(host, int(port))
            except OSError:
                await trio.sleep(0.1)
                continue
            async with stream:
                try:
                    await stream.send_all(first)
                    while True:
                        await trio.sleep(1)
                        await stream.send_all(b"x")
                except (OSError, trio.BrokenResourceError):
                    pass

    async def main() -> None:
        with trio.move_on_after(seconds):
            async with trio.open_nursery() as nursery:
                for i in range(clients):
                    kind = KINDS[i % len(KINDS)]
                    token = b"Authorization: Bearer jt_not-a-token\r\n" if i % 8 < 4 else b""
                    if kind in requests:
                        nursery.start_soon(fast, kind, token)
                    else:
                        nursery.start_soon(slow, kind)
        print(" ".join(f"{k}={v}" for k, v in sorted(answers.items())), flush=True)

    trio.run(main)


def finished(url: str) -> float:
    import httpx

    text = httpx.get(url + "/metrics", timeout=30).text
    return sum(
        float(value)
        for value in re.findall(r"^judge_matches_finished_total\{[^}]*\} (\S+)$", text, re.M)
    )


def start(data: Path, executor: str) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "judge.cli", "serve", "--port", "0", "--data", str(data)]
    proc = subprocess.Popen(
        [*command, "--executor", executor],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("listening on"):
            return proc, line.split()[-1]
    raise RuntimeError("judge serve did not start")


def cpu_seconds(pid: int) -> float:
    """CPU time of one process so far (not its children: the judge processes, the bots)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu() -> float:
    """CPU time of this process's ended children (the mix's process, once run)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(executor: str, rounds: int, window: float, clients: int) -> dict[str, Any]:
    """Matches a minute in alternating windows without and with the mix."""
    with tempfile.TemporaryDirectory(prefix="bench-badclients-") as tmp:
        proc, url = start(Path(tmp) / "data", executor)
        try:
            time.sleep(window)  # the ladder fills its backlog, the bots' first starts
            calm: list[float] = []
            mixed: list[float] = []
            answers = []
            server_cpu: list[float] = []
            mix_cpu: list[float] = []
            for _ in range(rounds):
                before = finished(url)
                time.sleep(window)
                calm.append((finished(url) - before) * 60 / window)
                before = finished(url)
                cpu_before = cpu_seconds(proc.pid)
                mix_before = children_cpu()
                out = subprocess.run(
                    [sys.executable, "-m", "bench.badclients", url, str(clients), str(window)],
                    capture_output=True,
                    text=True,
                    cwd=ROOT,
                    check=True,
                )
                mixed.append((finished(url) - before) * 60 / window)
                server_cpu.append(cpu_seconds(proc.pid) - cpu_before)
                mix_cpu.append(children_cpu() - mix_before)
                answers.append(out.stdout.strip())
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return {
        "calm": calm,
        "mixed": mixed,
        "answers": answers,
        "server_cpu_s": server_cpu,
        "mix_cpu_s": mix_cpu,
    }


def run(quick: bool = False) -> Report:
    report = Report("badclients")
    rounds, window, clients = (1, 1.0, 4) if quick else (4, 20.0, CLIENTS)
    results = {}
    # Side by side: the executors alternate round by round would need two servers at once
    # (they would share the cores); each server's ratio is taken within its own run instead.
    for executor in ("inproc", "local"):
        results[executor] = measure(executor, rounds, window, clients)
    report.data = {"rounds": rounds, "window_s": window, "clients": clients, **results}
    for executor, figures in results.items():
        played = [(m, c) for m, c in zip(figures["mixed"], figures["calm"], strict=True) if c]
        ratio = paired_ratios([m for m, _ in played], [c for _, c in played]) if played else None
        default = executor == "local"
        report.add(
            Row(
                "badclients",
                f"ladder with / without the bad-client mix, {executor}"
                + (" (the default)" if default else ""),
                ratio,
                "x",
                target=f">= {1 - TARGET_COST:.2f}" if default else "",
                met=(ratio.median >= 1 - TARGET_COST) if ratio and default and not quick else None,
                note=f"{sum(figures['calm']) / len(figures['calm']):.0f} matches/min calm",
                digits=2,
            )
        )
        report.add(
            Row(
                "badclients",
                f"server process CPU in a {window:g} s window with the mix, {executor}",
                Spread.of(figures["server_cpu_s"]),
                "s",
                note="the HTTP process (with inproc, the judges too)",
            )
        )
        report.add(
            Row(
                "badclients",
                f"the bad clients' own CPU in that window, {executor}",
                Spread.of(figures["mix_cpu_s"]),
                "s",
                note="taken from the same cores as the matches",
            )
        )
    return report


if __name__ == "__main__":
    mix(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
    os._exit(0)
