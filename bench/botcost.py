"""Item 9, per-turn CPU of a bot: Python through botlib and the adapters, against C.

The bench process plays the judge's part over pipes (writes a turn's message, reads the
answer up to its ``.`` line) for N turns and takes the bot's CPU from ``wait4``; a 1-turn
run of the same bot is subtracted, so start-up and exit drop out. Every bot sees the same
rps message (the roshambolo adapter its own). Reported: bot CPU per turn, and the ratio of
each to the bare Python loop (for the target) and to the C bot, from runs taken side by side.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from bench.common import BUILD_DIR, ROOT, Report, Row, Spread, build, paired_ratios

TARGET_BOTLIB_RATIO = 2.0
RPS_FIRST = b"Y 1\nE 2\n.\n"  # (turn 1 has no L line)
RPS_MESSAGE = b"Y 1\nE 2\nL R P\n.\n"
ROSHAMBOLO_MESSAGE = b"O 1 1 2 1 3 0\nP 1 1 2\n.\n"
# What a bare Python bot must do per turn: read lines up to ".", write an answer, flush.
BARE_LOOP = textwrap.dedent("""\
    import sys
    read, out = sys.stdin.buffer.readline, sys.stdout.buffer
    while True:
        line = read()
        if not line or line.startswith(b"END"):
            break
        if line == b".\\n":
            out.write(b"R\\n.\\n")
            out.flush()
""")


def bots() -> dict[str, tuple[list[str], bytes]]:
    """Name -> (argv, the message it is sent every turn)."""
    from judge.adapters import argv_for
    from judge.bots import builtin_spec

    bare = BUILD_DIR / "bare_loop.py"
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    bare.write_text(BARE_LOOP)
    rock = list(builtin_spec("rps", "rock").argv)
    arenas = ROOT / "bench" / "arenas" / "roshambolo"
    freq = ROOT / "tests" / "bots" / "original" / "rpscontest" / "freq.py"
    return {
        "C (bots/examples/c/rps_bot.c)": ([str(build("rps_bot"))], RPS_MESSAGE),
        "bare Python loop": ([sys.executable, "-s", str(bare)], RPS_MESSAGE),
        "Python through botlib (built-in rock)": (rock, RPS_MESSAGE),
        "Python example bot (botlib, fields)": (
            [sys.executable, "-s", str(ROOT / "bots" / "examples" / "python" / "rps_bot.py")],
            RPS_MESSAGE,
        ),
        "rpscontest adapter (freq.py)": (argv_for(freq, "rps", None), RPS_MESSAGE),
        "roshambolo adapter (counter.py, one O line)": (
            argv_for(arenas / "counter.py", "roshambolo", None),
            ROSHAMBOLO_MESSAGE,
        ),
    }


def bot_cpu(argv: list[str], message: bytes, turns: int) -> float:
    """CPU seconds (user + system) of the bot over ``turns`` turns, start-up included."""
    path = os.pathsep.join(str(ROOT / "bots" / sub) for sub in ("", "adapters"))
    env = {**os.environ, "PYTHONPATH": path, "JUDGE_SEED": "1"}  # (as judge.bots sets it)
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    to_bot, from_bot = proc.stdin.fileno(), proc.stdout.fileno()
    for turn in range(turns):
        os.write(to_bot, RPS_FIRST if turn == 0 and message == RPS_MESSAGE else message)
        answer = b""
        while not answer.endswith(b"\n.\n"):
            chunk = os.read(from_bot, 4096)
            if not chunk:
                raise RuntimeError(f"{argv} closed its stdout")
            answer += chunk
    os.write(to_bot, b"END 1 0 0\n.\n")
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stdout.close()
    return usage.ru_utime + usage.ru_stime


def measure(quick: bool = False) -> dict[str, list[float]]:
    """Per bot: CPU µs per turn, one figure per repeat (the repeats interleave the bots)."""
    # Quick runs still need turns enough to outweigh the jitter of a Python start-up, which
    # the 1-turn run subtracts (300 turns of the bare loop measured 0 in one CI run).
    repeats, turns = (1, 3_000) if quick else (3, 10_000)
    table = bots()
    per_turn: dict[str, list[float]] = {name: [] for name in table}
    for _ in range(repeats):
        for name, (argv, message) in table.items():
            whole = bot_cpu(argv, message, turns)
            start = bot_cpu(argv, message, 1)
            per_turn[name].append(max(whole - start, 0.0) / (turns - 1) * 1e6)
    return per_turn


def run(quick: bool = False) -> Report:
    report = Report("botcost")
    per_turn = measure(quick)
    report.data = per_turn
    for row in rows(per_turn, quick):
        report.add(row)
    return report


def rows(per_turn: dict[str, list[float]], quick: bool) -> list[Row]:
    """The table's rows; a ratio over a base that measured no CPU is shown as no figure."""
    bare = per_turn["bare Python loop"]
    c_bot = per_turn["C (bots/examples/c/rps_bot.c)"]
    table = [
        Row("9 bot CPU", f"{name}: CPU per turn", Spread.of(figures), "µs", digits=2)
        for name, figures in per_turn.items()
    ]
    for name, figures in per_turn.items():
        if name.startswith(("C ", "bare")):
            continue
        target = name.startswith("Python through botlib")
        ratio = _ratio(figures, bare)
        over_c = _ratio(figures, c_bot)
        met = None if quick or not target or ratio is None else ratio.median <= TARGET_BOTLIB_RATIO
        table.append(
            Row(
                "9 bot CPU",
                f"{name} / bare Python loop (same run)",
                ratio,
                "x",
                f"<= {TARGET_BOTLIB_RATIO:g}" if target else "",
                met,
                digits=2,
                note=f"{over_c.median:.1f}x the C bot" if over_c else "C bot: no CPU measured",
            )
        )
    return table


def _ratio(numerators: list[float], denominators: list[float]) -> Spread | None:
    if not any(d > 0 for d in denominators):
        return None  # (the base's turns cost less than its start-up's jitter)
    return paired_ratios(numerators, denominators)


def main() -> None:
    from bench.common import print_table

    quick = "--quick" in sys.argv
    report = run(quick)
    report.save(quick)
    print_table(report.rows, "bot CPU per turn")


if __name__ == "__main__":
    main()
