"""Finds out, once per process, which isolation layers work on this machine and why not.

Every layer above `none` is Linux's (namespaces, seccomp, Landlock, cgroups, the launcher):
elsewhere the probe tries none of them and imports none of their modules."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from judge.sandbox import container
from judge.sandbox.base import LAYERS, SandboxError

if TYPE_CHECKING:
    from judge.sandbox import cgroups as cg

PROBE_TIMEOUT = 10.0


@dataclass
class ProbeReport:
    available: dict[str, bool] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)  # layer -> what was found / why not
    hierarchy: cg.Hierarchy | None = None

    @property
    def strongest(self) -> str:
        return [layer for layer in LAYERS if self.available.get(layer)][-1]


_report: ProbeReport | None = None


def _run(argv: list[str]) -> tuple[bool, str]:
    try:
        proc = subprocess.run(
            argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    output = (proc.stderr or proc.stdout).strip().splitlines()
    return proc.returncode == 0, output[-1] if output else f"exit status {proc.returncode}"


def _probe_namespaces(launcher: Path) -> tuple[bool, str]:
    """Starts a shell the way a bot starts: its own namespaces and file system, the uid."""
    from judge.sandbox.isolated import IsolatedSandbox

    sandbox = IsolatedSandbox("namespaces")
    with tempfile.TemporaryDirectory(prefix="botjudge-probe-") as box:
        os.chmod(box, 0o755)
        argv = [str(launcher)]
        if sandbox.use_slot_uids:
            argv += ["-u", "65534:65534"]
        argv += [
            *sandbox._tree_args([box], Path(box)),
            "-n",
            "-L",
            "-w",
            "/tmp",
            "-S",
            "--",
            "/bin/sh",
            "-c",
            f"test -d {box} && test ! -e /oldroot",
        ]
        try:
            proc = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                timeout=PROBE_TIMEOUT,
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, f"the launcher could not make namespaces: {exc}"
    if proc.returncode != 0:
        why = proc.stderr.strip().splitlines()
        hint = ""
        if any("user namespace" in line or "uid_map" in line for line in why):
            hint = (
                " (unprivileged user namespaces may be off: sysctl "
                "kernel.unprivileged_userns_clone / kernel.apparmor_restrict_unprivileged_userns"
                " / user.max_user_namespaces)"
            )
        detail = why[-1] if why else f"exit status {proc.returncode}"
        if container.in_container():
            hint += "".join(f"; in this container, {found}" for found in container.hints(detail))
        return False, f"the launcher could not make namespaces: {detail}{hint}"
    who = "as an unprivileged uid per slot" if sandbox.use_slot_uids else "as this user"
    return True, (
        f"the launcher's own user, pid, net, mount, ipc, uts and cgroup namespaces work, {who}; "
        "seccomp and Landlock applied inside"
    )


def _probe_clone_into(launcher: Path, v2: Path) -> bool:
    """Whether a process started by clone3(CLONE_INTO_CGROUP) survives here.

    The kernel kills such a child if the cgroup it is born into and the forking
    process's own cgroup differ in how often cgroup.kill was used on them, which
    happens when the judge itself runs in a cgroup that was once killed.
    """
    from judge.sandbox import cgroups as cg

    test = v2 / f"{cg.PREFIX}{os.getpid()}-probe-clone"
    try:
        test.mkdir()
    except OSError:
        return False
    try:
        ok, _ = _run([str(launcher), "-G", str(test), "--", "/bin/sh", "-c", "exit 0"])
    finally:
        with contextlib.suppress(OSError):
            test.rmdir()
    return ok


def probe(refresh: bool = False) -> ProbeReport:
    global _report
    if _report is not None and not refresh:
        return _report
    report = ProbeReport()
    report.available["none"] = True
    report.reasons["none"] = "always available"
    if sys.platform != "linux":
        for layer in LAYERS[1:]:
            report.available[layer] = False
            report.reasons[layer] = f"needs Linux (this is {sys.platform}; docs/portability.md)"
        _report = report
        return report
    from judge.sandbox import cgroups as cg
    from judge.sandbox.launcher import launcher_binary

    try:
        launcher = launcher_binary()
    except SandboxError as exc:
        launcher = None
        report.available["base"] = False
        report.reasons["base"] = str(exc)
    if launcher is not None:
        ok, why = _run([str(launcher), "-n", "-r", "core:0:0", "--", "/bin/sh", "-c", "exit 0"])
        report.available["base"] = ok
        report.reasons["base"] = f"launcher {launcher}" if ok else f"launcher failed: {why}"
    if report.available["base"] and launcher is not None:
        ok, why = _probe_namespaces(launcher)
    else:
        ok, why = False, "needs the base layer"
    report.available["namespaces"] = ok
    report.reasons["namespaces"] = why
    hierarchy = cg.discover()
    report.hierarchy = hierarchy
    if not ok:
        report.available["cgroups"] = False
        report.reasons["cgroups"] = (
            f"needs the namespaces layer; cgroups found: {hierarchy.describe()}"
        )
    elif not hierarchy.usable:
        report.available["cgroups"] = False
        report.reasons["cgroups"] = "; ".join(hierarchy.problems) or "no usable cgroups"
    else:
        cg.remove_stale(hierarchy)
        if launcher is not None and hierarchy.v2 is not None:
            hierarchy.clone_into = _probe_clone_into(launcher, hierarchy.v2)
        report.available["cgroups"] = True
        report.reasons["cgroups"] = hierarchy.describe()
    _report = report
    return report
