"""Imports go one way: no module imports itself back, no package depends on itself back.

Read from the source with ``ast`` (every import statement, also those inside functions), so
a lazy import that only hides a cycle is found too; imports under ``if TYPE_CHECKING:`` are
left out, as they never run (annotations only). Components are the top-level packages,
with the games core (``games/*.py``) and each game folder (``games/<name>/``) apart: a game
is a plug-in on top, which the core only finds through the registry, never by an import.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("protocol", "games", "replays", "judge", "bots")
SKIPPED = ("bots/examples",)
# Bot-side scripts import these by path (their directory or PYTHONPATH), not as packages.
SCRIPT_PATHS = ("bots", "bots/adapters")
# Where scripts live (bots, and the games' bots and adapters): only they import siblings bare.
SCRIPT_PACKAGES = ("bots", "games")


def source_files() -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if not any(path.relative_to(ROOT).as_posix().startswith(s) for s in SKIPPED):
                yield path


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path, modules: set[str]) -> set[str]:
    """The project modules ``path`` imports (anywhere in it), resolved to known modules."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def resolve(target: str) -> str | None:
        while target:
            if target in modules:
                return target
            target = target.rpartition(".")[0]
        return None

    def bare(target: str) -> str | None:
        """A script's import of a sibling or PYTHONPATH module: ``import botlib``."""
        head = target.split(".")[0]
        for where in (path.parent.relative_to(ROOT).as_posix(), *SCRIPT_PATHS):
            candidate = f"{where.replace('/', '.')}.{head}"
            if candidate in modules:
                return candidate
        return None

    tree = ast.parse(path.read_text(), str(path))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                stem = ".".join([*base, node.module] if node.module else base)
            else:
                stem = node.module or ""
            # ``from package import submodule`` imports the submodule
            targets = [f"{stem}.{alias.name}" for alias in node.names]
            targets = [t if t in modules else stem for t in targets]
        for target in targets:
            if target.split(".")[0] in PACKAGES:
                resolved = resolve(target)
            elif name.split(".")[0] in SCRIPT_PACKAGES:
                resolved = bare(target)
            else:  # (a module of a package: its bare import is a top-level one, ``select``)
                resolved = None
            if resolved is not None and resolved != name:
                found.add(resolved)
    return found


def import_graph() -> dict[str, set[str]]:
    files = list(source_files())
    modules = {module_name(path) for path in files}
    return {module_name(path): imported(path, modules) for path in files}


def component(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "games" and len(parts) > 1 and (ROOT / "games" / parts[1]).is_dir():
        return f"games.{parts[1]}"
    return parts[0]


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path that returns to its start, or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


def test_the_checker_sees_imports_and_cycles() -> None:
    graph = import_graph()
    assert "judge.runner" in graph["judge.cli"] or any("judge.runner" in v for v in graph.values())
    assert "bots.adapters.hosting" in graph["games.rps.adapter"]  # a script's bare import
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_module_imports_itself_back() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_packages_depend_one_way() -> None:
    graph: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        graph.setdefault(component(module), set()).update(
            component(t) for t in targets if component(t) != component(module)
        )
    cycle = find_cycle(graph)
    assert cycle is None, "package cycle: " + " -> ".join(cycle or [])


# The layers of docs/architecture.md, top first. A module imports its own layer or those
# below it, never one above. Each top-level package is one layer but ``judge``, whose modules
# are placed one by one (a submodule's package places it: ``judge.server.app``); a game's
# folder is the top layer. Listed ahead of their branches' merge: contests, crashes,
# analysis, analysis_child.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("games.<game>",),
    ("judge.cli", "judge.commands"),
    ("judge.server",),
    ("judge.tournament", "judge.evaluate", "judge.contests", "judge.kits", "judge.packing"),
    ("judge.executors", "judge.parallel"),
    ("judge.runner", "judge.cpus"),
    ("judge.bots", "judge.adapters", "judge.analysis", "judge.analysis_child"),
    ("judge.sandbox",),
    ("judge", "judge.models", "judge.logs", "judge.botfiles", "judge.bytecode", "judge.crashes"),
    ("replays",),
    ("games",),
    ("protocol", "bots"),
)
SPLIT_PACKAGES = ("judge",)


def layer_of(module: str) -> int | None:
    """The index in LAYERS of ``module`` (0 is the top), or None where it has no place."""
    if component(module).startswith("games."):
        return 0
    best: tuple[int, int] | None = None  # (length of the matching name, layer)
    for index, names in enumerate(LAYERS):
        for name in names:
            covers = module == name or (
                module.startswith(f"{name}.") and name not in SPLIT_PACKAGES
            )
            if covers and (best is None or len(name) > best[0]):
                best = (len(name), index)
    return None if best is None else best[1]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    found = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            here, there = layer_of(module), layer_of(target)
            if here is not None and there is not None and there < here:
                found.append(f"{module} (layer {here}) imports {target} (layer {there})")
    return found


def test_the_layer_rule_sees_an_upward_import() -> None:
    assert layer_of("judge.server.app") == layer_of("judge.server")
    assert layer_of("games.rps.rules") == 0 and layer_of("games.base") == layer_of("games")
    assert layer_of("judge.nothing_like_it") is None
    upward = {"judge.evaluate": {"judge.commands.timing"}, "judge.commands.timing": set()}
    assert upward_imports(upward) == [
        "judge.evaluate (layer 3) imports judge.commands.timing (layer 1)"
    ]
    assert upward_imports({"judge.commands.timing": {"judge.evaluate"}}) == []


def test_every_module_has_a_layer() -> None:
    unplaced = sorted(m for m in import_graph() if layer_of(m) is None)
    assert unplaced == [], "add these to LAYERS in tests/test_imports.py: " + ", ".join(unplaced)


def test_imports_go_down_the_layers() -> None:
    assert upward_imports(import_graph()) == []


def test_nothing_outside_a_game_imports_it() -> None:
    """The core finds games through the registry; only a game's own folder imports it."""
    offenders = [
        f"{module} imports {target}"
        for module, targets in import_graph().items()
        for target in targets
        if component(target).startswith("games.") and component(module) != component(target)
    ]
    assert offenders == []


def test_the_core_names_no_game() -> None:
    """No string in the code above the games (docstrings aside) is a game's name: the core
    asks the registry, it never branches on a game."""
    from games import all_plugins

    names = set(all_plugins())
    found = []
    for path in source_files():
        if component(module_name(path)).startswith("games."):
            continue
        tree = ast.parse(path.read_text(), str(path))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
            ):
                words = set(re.findall(r"[a-z]+", node.value))
                if words & names:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:60]!r}")
    assert found == []


# -- What a command imports when it runs (issue 14, "quick to start") ---------------------------
# Asserted on module names, never on time: each name here is a module that a run would import
# again if the laziness regressed, at a measured cost (docs/performance.md).


RECORDING = """
import atexit, sys
def record(path=sys.argv[1]):
    with open(path, "w") as out:
        out.write("\\n".join(sorted(sys.modules)))
atexit.register(record)
kind, target, sys.argv = sys.argv[2], sys.argv[3], [sys.argv[3], *sys.argv[4:]]
if kind == "script":
    code = compile(open(target).read(), target, "exec")
    exec(code, {"__name__": "__main__", "__file__": target})
else:
    from judge.cli import main
    main()
"""


def imported_by(
    target: str, *args: str, flags: tuple[str, ...] = (), stdin: str = ""
) -> tuple[set[str], str, str]:
    """Every module in ``sys.modules`` when a real process of ``target`` (``judge`` or a
    script's path) exits, however it was imported; then its stdout and stderr."""
    import subprocess
    import sys
    import tempfile

    kind = "judge" if target == "judge" else "script"
    with tempfile.NamedTemporaryFile("r") as record:
        proc = subprocess.run(
            [sys.executable, *flags, "-c", RECORDING, record.name, kind, target, *args],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        return set(record.read().split()), proc.stdout, proc.stderr


def game_folders() -> list[str]:
    return sorted(p.parent.name for p in (ROOT / "games").glob("*/game.py"))


def test_a_match_imports_only_what_it_needs() -> None:
    match = ["match", "rps", "rock", "paper", "--turns", "1", "--sandbox", "none"]
    modules, out, _ = imported_by("judge", *match)
    assert "paper" in out
    # What it does need, so the test cannot pass by importing nothing.
    for needed in ("trio", "pydantic", "judge.runner", "games.rps.rules", "rich.table"):
        assert needed in modules, needed
    unneeded = {
        # every other game (a match builds its own game's models only)
        *(f"games.{name}" for name in game_folders() if name != "rps"),
        "games.rps.render",
        "games.rps.human",
        # logging: nothing is logged at the default level
        "structlog",
        # the Python 2 translator (for .py bot files), tournaments, executors, the server
        "bots.adapters.py2compat",
        "judge.tournament",
        "judge.executors",
        "judge.parallel",
        "judge.evaluate",
        "judge.server",
        "httpx",
        "starlette",
        "dask",
        "distributed",
        "psycopg",
        # rich's pieces a result table does not use
        "rich.traceback",
        "rich.pretty",
    }
    commands = {m for m in modules if m.startswith("judge.commands.")}
    # Its own command, and what the commands share (their options, written once).
    shared = {"judge.commands.common", "judge.commands.options", "judge.commands.cluster_options"}
    assert commands == {"judge.commands.match", *shared}
    assert sorted(modules & unneeded) == []


def test_a_game_is_found_without_importing_the_others() -> None:
    import subprocess
    import sys

    for game in game_folders():
        code = f"import games, sys; games.get_plugin({game!r}); print(*sys.modules)"
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
        )
        modules = set(proc.stdout.split())
        assert f"games.{game}.rules" in modules, proc.stderr
        others = tuple(f"games.{name}." for name in game_folders() if name != game)
        assert sorted(m for m in modules if f"{m}.".startswith(others)) == [], game


def test_a_built_in_bot_starts_without_the_judge_side() -> None:
    """Built-ins run as ``python -S``; the registry they pass through stays this small."""
    modules, out, _ = imported_by(
        "bots/play.py", "rps", "rock", flags=("-S", "-s"), stdin="Y 1\n.\nEND 1 0 1\n.\n"
    )
    assert out == "R\n.\n"
    assert "bots.botlib" in modules and "games.rps.bots" in modules
    heavy = {"pydantic", "games.base", "games.plugin", "pathlib", "pkgutil", "typing"}
    assert sorted(modules & heavy) == []


def test_a_logged_match_imports_structlog_without_rich_tracebacks() -> None:
    """At --log-level info a match logs, structlog comes in then, with rich hidden from it:
    structlog would import rich's traceback and pretty-printer (~0.3 s) to colour exceptions.
    Every line of the match carries its id; the result table is still rich's."""
    import json

    match = ["match", "rps", "rock", "paper", "--turns", "1", "--sandbox", "none"]
    modules, out, err = imported_by("judge", "--log-level", "info", *match)
    assert "structlog" in modules and "rich.table" in modules
    assert sorted(modules & {"rich.traceback", "rich.pretty"}) == []
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    events = [line["event"] for line in lines]
    assert events == ["match starting", "match finished"], err
    assert lines[0]["match_id"] and lines[0]["match_id"] == lines[1]["match_id"]
    assert lines[1]["winner"] == 1 and "paper" in out
