"""Item 5, start-up: the cost of one bot start at each sandbox layer, over a plain spawn.

For every layer the probe finds available, in interleaved rounds: start the minimal C bot
through ``Sandbox.start``, wait for its answer to one message (so the bot really runs),
then kill and reap it. The "over plain" figure is the per-round difference to layer
"none" (a plain spawn in its own session), so both sides see the same machine load.
"""

from __future__ import annotations

import os
import resource
import sys
import time

import trio

from bench.common import Report, Row, Spread, c_bot, paired_ratios, quiet_logs

TARGET_OVER_PLAIN_MS = 8.0
TARGET_WARM_OVER_PLAIN_MS = 1.0  # issue 15 §1: a warm sandbox
TARGET_WARM_PYTHON_MS = 10.0  # issue 15 §1: a Python bot, match start to first answer
PY = "python built-in"


async def start_once(sandbox: object, bot: object) -> tuple[float, float]:
    """(ms from start to the first answer, ms for start + answer + kill)."""
    from judge.sandbox import Sandbox

    assert isinstance(sandbox, Sandbox)
    began = time.perf_counter()
    proc = await sandbox.start(bot, seed=1)  # type: ignore[arg-type]
    stdin, stdout = proc.process.stdin, proc.process.stdout
    assert stdin is not None and stdout is not None
    await stdin.send_all(b"Y 1\n.\n")
    received = b""
    with trio.fail_after(10):
        while not received.endswith(b".\n"):
            chunk = await stdout.receive_some(4096)
            if not chunk:
                raise RuntimeError(f"the bot died at start ({sandbox.layer})")
            received += chunk
    answered = time.perf_counter()
    await proc.kill()
    for stream in (proc.process.stdin, proc.process.stdout, proc.process.stderr):
        if stream is not None:
            await stream.aclose()
    return (answered - began) * 1e3, (time.perf_counter() - began) * 1e3


def run(quick: bool = False) -> Report:
    from judge.sandbox.base import LAYERS
    from judge.sandbox.isolated import WARM_AFTER
    from judge.sandbox.probe import probe

    quiet_logs()
    report = Report("startup")
    available = [layer for layer in LAYERS if probe().available.get(layer)]
    # The isolating layers with warm sandboxes ("+pool") and without, side by side.
    warm = [f"{layer}+pool" for layer in available if layer in ("namespaces", "cgroups")]
    available += warm
    # A built-in Python bot (rps rock, botlib) without a sandbox, at the strongest layer, and
    # there warm: the time from start to its first answer (the target: docs/performance.md).
    strongest = [layer for layer in available if "+" not in layer][-1]
    available += [f"none {PY}", f"{strongest} {PY}", f"{strongest}+pool {PY}"]
    rounds = 5 if quick else 60
    from judge.bots import builtin_spec

    c_floor = c_bot("floor_bot")
    python_bot = builtin_spec("rps", "rock")

    def bot_for(name: str) -> object:
        return python_bot if name.endswith(PY) else c_floor

    samples: dict[str, list[tuple[float, float]]] = {layer: [] for layer in available}
    cpu_ms: dict[str, float] = dict.fromkeys(available, 0.0)
    # The sandbox's own processes (launcher, bwrap) and the bot, all reaped by the judge.
    child_cpu_ms: dict[str, float] = dict.fromkeys(available, 0.0)

    async def main() -> None:
        sandboxes = {layer: _sandbox(layer) for layer in available}
        for layer in available:  # warm-up: launcher build, first cgroup, imports, the pools
            for _ in range(WARM_AFTER + 1):
                await start_once(sandboxes[layer], bot_for(layer))
        for _ in range(rounds):
            for layer in available:
                cpu = time.process_time()
                children = _children_cpu()
                samples[layer].append(await start_once(sandboxes[layer], bot_for(layer)))
                cpu_ms[layer] += (time.process_time() - cpu) * 1e3
                child_cpu_ms[layer] += (_children_cpu() - children) * 1e3

    trio.run(main)
    report.data = {
        "samples": samples,
        "judge_cpu_ms_total": cpu_ms,
        "children_cpu_ms_total": child_cpu_ms,
        "rounds": rounds,
        "unavailable": {k: v for k, v in probe().reasons.items() if k not in available},
    }
    plain = [s[0] for s in samples["none"]]
    for layer in available:
        first = [s[0] for s in samples[layer]]
        full = [s[1] for s in samples[layer]]
        note = (
            f"judge CPU {cpu_ms[layer] / rounds:.2f}, sandbox+bot CPU "
            f"{child_cpu_ms[layer] / rounds:.2f} ms/start"
        )
        report.add(
            Row(
                "5 start-up",
                f"start to first answer, layer {layer}",
                Spread.of(first),
                "ms",
                digits=2,
                note=note,
            )
        )
        report.add(
            Row(
                "5 start-up",
                f"start + answer + kill, layer {layer}",
                Spread.of(full),
                "ms",
                digits=2,
            )
        )
        if layer.endswith(PY) and "+pool" in layer:
            report.add(
                Row(
                    "5 start-up",
                    f"{layer}: start to first answer",
                    Spread.of(first),
                    "ms",
                    f"<= {TARGET_WARM_PYTHON_MS:g}",
                    Spread.of(first).median <= TARGET_WARM_PYTHON_MS,
                    digits=2,
                )
            )
        if layer != "none" and not layer.endswith(PY):
            target = TARGET_WARM_OVER_PLAIN_MS if layer.endswith("+pool") else TARGET_OVER_PLAIN_MS
            over = Spread.of([a - b for a, b in zip(first, plain, strict=True)])
            report.add(
                Row(
                    "5 start-up",
                    f"layer {layer} over plain spawn (same round)",
                    over,
                    "ms",
                    f"<= {target:g}",
                    over.median <= target,
                    digits=2,
                )
            )
    for layer in ("namespaces", "cgroups", f"{strongest} {PY}"):
        pooled = layer.replace(" ", "+pool ", 1) if layer.endswith(PY) else f"{layer}+pool"
        if pooled in available and layer in available:
            ratio = paired_ratios([s[0] for s in samples[pooled]], [s[0] for s in samples[layer]])
            report.add(
                Row(
                    "5 start-up",
                    f"layer {layer}: warm / cold, start to first answer (same round)",
                    ratio,
                    "x",
                    digits=2,
                )
            )
    for layer in LAYERS:
        if layer not in available:
            report.add(Row("5 start-up", f"layer {layer}", None, "", note="not available here"))
    return report


def _sandbox(name: str) -> object:
    """A layer by name; "LAYER+pool" with warm sandboxes, plain "LAYER" without."""
    from judge.sandbox.isolated import IsolatedSandbox
    from judge.sandbox.probe import probe
    from judge.sandbox.select import sandbox_for

    layer, _, pool = name.removesuffix(f" {PY}").partition("+")
    sandbox = sandbox_for(layer)
    if isinstance(sandbox, IsolatedSandbox):
        return IsolatedSandbox(layer, sandbox.limits, probe().hierarchy, pool=4 if pool else 0)
    return sandbox


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    from bench.common import print_table

    quick = "--quick" in sys.argv
    report = run(quick)
    report.save(quick)
    print_table(report.rows, "start-up")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
