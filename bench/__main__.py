"""Run the whole bench and print one table: ``uv run python -m bench [--quick] [ITEM...]``.

Items: floor overhead throughput arena startup deadline scale cluster botcost shortgames cli db
source badclients (default: all, in that order).
Each writes its JSON to bench/results/<item>[-quick].json. ``--quick`` runs tiny sizes in a
few seconds (what the test suite does so the bench cannot rot); its figures mean nothing.
"""

from __future__ import annotations

import importlib
import sys
import time

from bench.common import Row, print_table

ITEMS = (
    "floor",
    "overhead",
    "throughput",
    "arena",
    "startup",
    "deadline",
    "scale",
    "cluster",
    "botcost",
    "shortgames",
    "cli",
    "db",
    "source",
    "badclients",
)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if {"-h", "--help"} & set(args):
        print(__doc__.strip())
        return 0
    options = [a for a in args if a.startswith("-") and a != "--quick"]
    if options:
        print(f"unknown option(s): {', '.join(options)} (see --help)", file=sys.stderr)
        return 2
    quick = "--quick" in args
    wanted = [a for a in args if not a.startswith("-")]
    unknown = [a for a in wanted if a not in ITEMS]
    if unknown:
        print(
            f"unknown bench item(s): {', '.join(unknown)} (items: {', '.join(ITEMS)})",
            file=sys.stderr,
        )
        return 2
    rows: list[Row] = []
    for item in wanted or ITEMS:
        began = time.perf_counter()
        module = importlib.import_module(f"bench.{item}")
        report = module.run(quick)
        path = report.save(quick)
        rows.extend(report.rows)
        print(f"{item}: {time.perf_counter() - began:.1f} s -> {path}", file=sys.stderr)
    print_table(rows, "bench" + (" (quick: sizes too small to mean anything)" if quick else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
