"""Programs of dict and set operations, run the same way by python2.7 (real dicts and sets)
and by Python 3 (py2order's Py2Dict and Py2Set): the orders they iterate in must agree.

    python2.7 tests/py2order/programs.py record > tests/py2order/expected.json

Runs under both Pythons: no f-strings here.
"""

import hashlib
import json
import random
import sys

KEYS = (
    ["R", "P", "S", "RP", "PS", "SR", "RRS", "PPR", "win", "lose", "tie", "", "abc", "zz"]
    + list(range(-3, 40))
    + [2**40, -(2**35), 2**70, 0.5, 1.0, -2.25, 3.75, 1e20]
    + [("R", 1), ("P", "S"), (1, 2, 3), (), ("a",), (0.5, "x")]
)


def make_programs(count, seed):
    rng = random.Random(seed)
    programs = []
    for _ in range(count):
        kind = rng.choice(["dict", "set"])
        pool = rng.sample(KEYS, rng.randint(3, len(KEYS)))

        def some(pool=pool):
            return [rng.choice(pool) for _ in range(rng.randint(0, 12))]

        ops = [["display", some()] if rng.random() < 0.3 else ["new", some()]]
        for _ in range(rng.randint(1, 60)):
            roll = rng.random()
            if roll < 0.5:
                ops.append(["add", rng.choice(pool)])
            elif roll < 0.7:
                ops.append(["remove", rng.choice(pool)])
            elif roll < 0.75:
                ops.append(["pop"])
            elif roll < 0.8:
                ops.append(["copy"])
            elif roll < 0.85:
                ops.append(["update", some()])
            elif roll < 0.88:
                ops.append(["clear"])
            elif roll < 0.94 and kind == "set":
                ops.append([rng.choice(["union", "inter", "diff", "symdiff"]), some()])
            elif kind == "dict":
                ops.append([rng.choice(["fromkeys", "setdefault", "comprehension"]), some()])
        programs.append({"kind": kind, "ops": ops})
    return programs


def literal(keys, kind):
    if kind == "dict":
        return "{" + ", ".join("%r: %d" % (k, i) for i, k in enumerate(keys)) + "}"
    return "{" + ", ".join(repr(k) for k in keys) + "}" if keys else "set()"


def run(program, new_dict, new_set, display):
    """The iteration order after every operation."""
    kind = program["kind"]
    orders = []
    made = None
    for op in program["ops"]:
        name = op[0]
        arg = op[1] if len(op) > 1 else None
        if name in ("add", "remove") and isinstance(arg, list):
            arg = tuple(arg)  # a tuple key, after JSON
        elif isinstance(arg, list):
            arg = [tuple(k) if isinstance(k, list) else k for k in arg]
        if name == "new":
            made = new_dict((k, 0) for k in arg) if kind == "dict" else new_set(arg)
        elif name == "display":
            made = display(arg, kind)
        elif name == "add":
            if kind == "dict":
                made[arg] = 1
            else:
                made.add(arg)
        elif name == "remove":
            if kind == "dict":
                made.pop(arg, None)
            else:
                made.discard(arg)
        elif name == "pop":
            if made:
                if kind == "dict":
                    made.popitem()
                else:
                    made.pop()
        elif name == "copy":
            made = made.copy()
        elif name == "update":
            if kind == "dict":
                made.update(new_dict((k, 2) for k in arg))
            else:
                made.update(new_set(arg))
        elif name == "clear":
            made.clear()
        elif name == "union":
            made = made | new_set(arg)
        elif name == "inter":
            made = made & new_set(arg)
        elif name == "diff":
            made = made - new_set(arg)
        elif name == "symdiff":
            made = made ^ new_set(arg)
        elif name == "fromkeys":
            made = new_dict.fromkeys(arg, 3)
        elif name == "setdefault":
            for k in arg:
                made.setdefault(k, 4)
        elif name == "comprehension":
            made = new_dict((k, 5) for k in arg)
        orders.append([show(k) for k in made])
    return orders


def show(key):
    if isinstance(key, bool) or not isinstance(key, (int, type(2**70))):
        return repr(key)
    return str(key)  # no L after a Python 2 long


def python2_display(keys, kind):
    return eval(literal(keys, kind))


def digest(orders):
    return hashlib.sha256(json.dumps(orders).encode("ascii")).hexdigest()[:16]


def record(count, seed):
    programs = make_programs(count, seed)
    cases = []
    for program in programs:
        orders = run(program, dict, set, python2_display)
        cases.append({"program": program, "orders": digest(orders), "last": orders[-1]})
    return {"python": sys.version.split()[0], "seed": seed, "cases": cases}


if __name__ == "__main__":
    # record [COUNT SEED]: what python2.7 does with the programs, as JSON on stdout
    count, seed = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (300, 2027)
    print(json.dumps(record(count, seed), indent=0, sort_keys=True))
