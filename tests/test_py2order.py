"""Python 2.7's dict and set order (bots/adapters/py2order.py) against python2.7 itself:
programs of dict and set operations whose orders python2.7 recorded
(tests/py2order/expected.json), and new ones run live where python2.7 is installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent / "py2order"
sys.path[:0] = [str(HERE), str(Path(__file__).parents[1] / "bots" / "adapters")]

import programs  # noqa: E402
import py2order  # noqa: E402

from tests.test_adapters_python2 import real_python2  # noqa: E402


def display(keys: list[Any], kind: str) -> Any:
    made = eval(programs.literal(keys, kind))  # the same display, in Python 3
    if kind == "dict":
        return py2order.dict_display(len(keys), made)
    return py2order.Py2Set(keys)


def orders_here(program: dict[str, Any]) -> list[list[str]]:
    result: list[list[str]] = programs.run(program, py2order.Py2Dict, py2order.Py2Set, display)
    return result


def test_recorded_orders_of_python2_are_kept() -> None:
    recorded = json.loads((HERE / "expected.json").read_text())
    assert recorded["python"].startswith("2.7")
    wrong = []
    for number, case in enumerate(recorded["cases"]):
        orders = orders_here(case["program"])
        if programs.digest(orders) != case["orders"]:
            wrong.append((number, case["last"], orders[-1]))
    assert not wrong, f"{len(wrong)} of {len(recorded['cases'])} differ, first: {wrong[0]}"


PYTHON2 = real_python2()


@pytest.mark.skipif(not PYTHON2, reason="no python2.7 on this machine (CI: the recorded orders)")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_new_programs_against_a_live_python2(seed: int) -> None:
    out = subprocess.run(
        [PYTHON2, str(HERE / "programs.py"), "record", "150", str(seed)],
        capture_output=True,
        check=True,
        text=True,
        # 2.7's own order, without hash randomisation: a Dask LocalCluster started earlier
        # in this process sets PYTHONHASHSEED in its environment
        env={**os.environ, "PYTHONHASHSEED": "0"},
    ).stdout
    for case in json.loads(out)["cases"]:
        orders = orders_here(case["program"])
        assert programs.digest(orders) == case["orders"], (case["program"], case["last"])


def test_hashes_are_python2s() -> None:
    # values python2.7 printed for hash(...) on a 64-bit build
    assert py2order.py2_hash("R") == 10496031571
    assert py2order.py2_hash(("a", 1)) == -3828833845468547008
    assert py2order.py2_hash(1.5) == 1610645504
    assert py2order.py2_hash("") == 0
    assert py2order.py2_hash(-1) == -2
