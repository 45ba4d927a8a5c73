"""Item: what a bot's Python source costs the judge (issue 28, point 3).

Two parts, each as ratios of runs taken side by side against a small bot
(bots/examples/python/rps_bot.py, 331 bytes):

- **Detection**: the analysis child (judge/analysis.py) run on the worst valid source at the
  size limit (``SourceLimits.source_bytes``, 1 MiB of top-level functions: the shape the
  quadratic walk of before was slowest on), its CPU seconds and peak memory from the
  kernel's accounting of the child; and the worst case of the upload limit (16 MiB of the
  same), which is refused before it is parsed (wall time of ``analyse``).
- **The server while such a bot plays**: a real ``judge serve``; the 1 MiB bot and the small
  one are uploaded and checked, then each plays matches against a built-in in turn while
  this process asks ``/api/health`` back to back; the latency of those answers, for the big
  bot over the small one.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import httpx

from bench.common import ROOT, Report, Row, Spread, paired_ratios

SMALL = (ROOT / "bots" / "examples" / "python" / "rps_bot.py").read_text()
UPLOAD_LIMIT = 16 << 20


def worst_source(size: int) -> str:
    """A valid protocol bot (plays rock) of ``size`` bytes, nearly all top-level functions;
    new content on every call, so no cache of analyses has seen it."""
    head = f"import sys\n# {uuid.uuid4()}\n"
    tail = (
        "for line in sys.stdin:\n"
        "    if line.startswith('END'):\n"
        "        break\n"
        "    if line.strip() == '.':\n"
        "        sys.stdout.write('R\\n.\\n')\n"
        "        sys.stdout.flush()\n"
    )
    parts, used, i = [head], len(head) + len(tail), 0
    while True:
        function = f"def f{i}(a, b):\n    return a + b * {i}\n\n"
        if used + len(function) > size:
            break
        parts.append(function)
        used += len(function)
        i += 1
    return "".join(parts) + tail


def small_source() -> str:
    return f"{SMALL}\n# {uuid.uuid4()}\n"


# The analysis child's own main, then its peak resident memory since its exec (VmHWM: the
# rusage of a child also counts the pages of this process it was forked from).
REPORTING_CHILD = """
import sys
from judge.analysis_child import main
status = main(sys.argv[1:])
sys.stdout.flush()
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        sys.stderr.write(line)
sys.exit(status)
"""


def child_cost(source: str, cache: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, peak MB) of one analysis child on ``source``, as the kernel counts it."""
    from judge.analysis import SourceLimits, child_command

    command = child_command("rps", None, "bot", SourceLimits())
    module = command.index("-m")
    command[module : module + 2] = ["-c", REPORTING_CHILD]
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    began = time.perf_counter()
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(source.encode())
    proc.stdin.close()
    answer = proc.stdout.read()
    report = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - began
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0 or b'"analysis"' not in answer or "VmHWM:" not in report:
        raise RuntimeError(f"the analysis failed ({proc.returncode}): {answer[:200]!r} {report}")
    peak_kb = int(report.split("VmHWM:")[1].split()[0])
    return elapsed, usage.ru_utime + usage.ru_stime, peak_kb / 1024


def refusal_wall(size: int, work: Path) -> float:
    """Wall seconds of ``analyse`` on a file of ``size`` bytes over the limit (refused)."""
    from judge.analysis import SourceRefused, analyse

    path = work / "huge.py"
    path.write_text(worst_source(size))
    began = time.perf_counter()
    try:
        analyse(path, "rps", None)
    except SourceRefused:
        return time.perf_counter() - began
    raise RuntimeError("a source over the limit was analysed")


def detection(report: Report, rounds: int, big: int, work: Path) -> None:
    samples: dict[str, list[float]] = {
        key: [] for key in ("small_wall", "small_cpu", "small_mb", "big_wall", "big_cpu", "big_mb")
    }
    refused = []
    for _ in range(rounds):
        for side, source in (("small", small_source()), ("big", worst_source(big))):
            elapsed, cpu, mb = child_cost(source, work / "cache")
            samples[f"{side}_wall"].append(elapsed)
            samples[f"{side}_cpu"].append(cpu)
            samples[f"{side}_mb"].append(mb)
        refused.append(refusal_wall(UPLOAD_LIMIT, work))
    report.data["detection"] = {**samples, "refused_16mib_s": refused, "big_bytes": big}
    label = f"a {big / (1 << 20):.2g} MiB worst case"
    report.add(
        Row("13 source", "analysis of a small bot: CPU", Spread.of(samples["small_cpu"]), "s")
    )
    report.add(
        Row(
            "13 source",
            "analysis of a small bot: peak memory",
            Spread.of(samples["small_mb"]),
            "MB",
        )
    )
    report.add(Row("13 source", f"analysis of {label}: CPU", Spread.of(samples["big_cpu"]), "s"))
    report.add(
        Row(
            "13 source",
            f"analysis of {label}: CPU / small bot's",
            paired_ratios(samples["big_cpu"], samples["small_cpu"]),
            "x",
        )
    )
    report.add(
        Row("13 source", f"analysis of {label}: peak memory", Spread.of(samples["big_mb"]), "MB")
    )
    report.add(
        Row(
            "13 source",
            f"analysis of {label}: peak memory / small bot's",
            paired_ratios(samples["big_mb"], samples["small_mb"]),
            "x",
        )
    )
    report.add(
        Row(
            "13 source",
            "a 16 MiB source (the upload limit): refused unparsed, wall",
            Spread.of(refused).scaled(1000),
            "ms",
            digits=2,
        )
    )
    report.add(
        Row(
            "13 source",
            "a 16 MiB source refused / a small bot analysed (wall)",
            paired_ratios(refused, samples["small_wall"]),
            "x",
            digits=4,
        )
    )


def health_while_playing(report: Report, rounds: int, big: int, turns: int, work: Path) -> None:
    from tests.server_helpers import running_server, wait_checked

    env_cache = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(work / "cache")  # the server's cache of analyses
    try:
        with running_server(work / "data") as server:
            with server.client(server.admin_token) as admin:
                token = admin.post("/api/users", json={"name": "bench"}).json()["token"]
            with server.client(token) as client:
                for name, source in (("small", small_source()), ("big", worst_source(big))):
                    r = client.post(
                        "/api/bots",
                        data={"name": name, "game": "rps"},
                        files={"file": (f"{name}.py", source.encode())},
                    )
                    r.raise_for_status()
                    checked = wait_checked(client, r.json()["bot"]["id"], 1, timeout=600)
                    if checked["state"] != "ready":
                        raise RuntimeError(f"the {name} bot failed its check: {checked}")
                latencies: dict[str, list[float]] = {"small": [], "big": []}
                medians: dict[str, list[float]] = {"small": [], "big": []}
                worst: dict[str, list[float]] = {"small": [], "big": []}
                for round_ in range(rounds):
                    for name in ("small", "big"):
                        seen = play_and_probe(client, name, turns, round_)
                        latencies[name].extend(seen)
                        medians[name].append(Spread.of(seen).median)
                        worst[name].append(max(seen))
    finally:
        if env_cache is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = env_cache
    report.data["health"] = {"latencies_s": latencies, "medians_s": medians, "max_s": worst}
    for name in ("small", "big"):
        report.add(
            Row(
                "13 source",
                f"/api/health while the {name} bot plays: median",
                Spread.of(medians[name]).scaled(1000),
                "ms",
            )
        )
    report.add(
        Row(
            "13 source",
            "/api/health while the big bot plays / small: median",
            paired_ratios(medians["big"], medians["small"]),
            "x",
            digits=2,
        )
    )
    report.add(
        Row(
            "13 source",
            "/api/health while the big bot plays / small: slowest answer",
            paired_ratios(worst["big"], worst["small"]),
            "x",
            digits=2,
        )
    )


def play_and_probe(client: httpx.Client, name: str, turns: int, seed: int) -> list[float]:
    """Latencies of /api/health asked back to back from a match's request to its end."""
    r = client.post(
        "/api/matches",
        json={
            "game": "rps",
            "bots": [name, "builtin:rock"],
            "options": {"turns": turns},
            "seed": seed,
        },
    )
    r.raise_for_status()
    match_id = r.json()["id"]
    seen: list[float] = []
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        began = time.perf_counter()
        health = client.get("/api/health")
        seen.append(time.perf_counter() - began)
        health.raise_for_status()
        status = client.get(f"/api/matches/{match_id}").json()["status"]
        if status not in ("queued", "running"):
            if status != "finished":
                raise RuntimeError(f"the {name} bot's match ended {status}")
            return seen
    raise RuntimeError(f"the {name} bot's match did not end")


def run(quick: bool = False) -> Report:
    from judge.analysis import SourceLimits

    report = Report("source")
    big = 64 << 10 if quick else SourceLimits().source_bytes
    with tempfile.TemporaryDirectory(prefix="bench-source-") as tmp:
        work = Path(tmp)
        detection(report, 1 if quick else 5, big, work)
        health_while_playing(report, 1 if quick else 3, big, 50 if quick else 3000, work)
    return report
