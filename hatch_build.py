"""Builds the sandbox launcher (judge/sandbox/launcher.c) when the package is built or
installed, editable (`uv sync`) or as a wheel, so that bots are isolated without a C
compiler at run time. Without a compiler the install still succeeds: the judge then
tries to compile on first use, and says so if it cannot (see docs/security.md). Where it
cannot build (no compiler, not Linux) the wheel is pure Python, for layer `none`
(docs/portability.md).

An editable install also writes the bytecode of the judge's own modules (a wheel's is the
installer's job), for interpreters that do not write it themselves (PYTHONDONTWRITEBYTECODE,
or built-in bots reading the tree as another user): see docs/performance.md."""

from __future__ import annotations

import importlib.util
import sys
import sysconfig
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _by_path(name: str, *parts: str) -> Any:
    # By path: importing the judge package would need its dependencies at build time.
    path = Path(__file__).parent.joinpath(*parts)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _launcher_build() -> Any:
    return _by_path("_botjudge_launcher_build", "judge", "sandbox", "launcher_build.py")


def _platform_tag() -> str:
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


class LauncherBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        if version == "editable":
            _by_path("_botjudge_bytecode", "judge", "bytecode.py").compile_sources(Path(self.root))
        lb = _launcher_build()
        target = lb.PACKAGED_DIR / lb.binary_name()
        problem = None if target.is_file() else lb.build(target)
        if problem is not None:
            print(f"botjudge: {problem}; the judge will try again on first use", file=sys.stderr)
            return
        library = lb.PACKAGED_DIR / lb.library_name()
        problem = None if library.is_file() else lb.build_library(library)
        if problem is not None:  # the fork server is an optimisation: bots start without it
            print(f"botjudge: {problem}", file=sys.stderr)
        for old in [*lb.PACKAGED_DIR.glob("launcher-*"), *lb.PACKAGED_DIR.glob("liblauncher-*")]:
            if old not in (target, library):
                old.unlink(missing_ok=True)
        if version != "editable":  # an editable install runs it where it was built
            build_data["force_include"][str(target)] = f"judge/sandbox/bin/{target.name}"
            if library.is_file():
                build_data["force_include"][str(library)] = f"judge/sandbox/bin/{library.name}"
            # The launcher is a program, not an extension: one wheel serves every Python 3
            # of this system and machine (py3-none-linux_x86_64, ...-linux_aarch64).
            build_data["pure_python"] = False
            build_data["tag"] = f"py3-none-{_platform_tag()}"
