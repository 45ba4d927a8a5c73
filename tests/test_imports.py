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
            resolved = resolve(target) if target.split(".")[0] in PACKAGES else bare(target)
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
