"""Why the namespaces layer fails inside a container, in the container engine's own words.

A default container (podman, docker, Kubernetes) stops the launcher in one of a few ways; each
has one option that lifts it without --privileged (docs/deploy.md, "The sandbox in a
container"). The probe adds these hints to its reason when the layer is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

SECCOMP_HINT = (
    "the container's seccomp profile refuses what the launcher needs (unshare, mount, "
    "sethostname): run it with deploy/botjudge-seccomp.json (podman/docker: --security-opt "
    "seccomp=deploy/botjudge-seccomp.json; Kubernetes: seccompProfile Localhost)"
)
PROC_HINT = (
    "the container's /proc has masked paths, so no new /proc may be mounted for a bot: "
    "unmask it (podman: --security-opt unmask=/proc/*; docker: --security-opt "
    "systempaths=unconfined; Kubernetes: securityContext.procMount: Unmasked)"
)
ROOT_HINT = (
    "a root judge makes no user namespace (it gives each bot a uid instead), so it needs "
    "CAP_SYS_ADMIN for the others: add it (podman/docker: --cap-add SYS_ADMIN; Kubernetes: "
    "capabilities add SYS_ADMIN), or run the judge as a non-root user (the image's default) "
    "with deploy/botjudge-seccomp.json and an unmasked /proc"
)
USERNS_HINT = (
    "user namespaces are off (user.max_user_namespaces is 0 here): the host must allow them, "
    "or the judge must run as root in the container"
)


def in_container() -> bool:
    """Whether this process runs in a container (podman, docker, Kubernetes, systemd-nspawn)."""
    return (
        Path("/run/.containerenv").exists()
        or Path("/.dockerenv").exists()
        or "KUBERNETES_SERVICE_HOST" in os.environ
        or bool(os.environ.get("container"))  # noqa: SIM112 (systemd's name for it)
        or _pid1_env_says_container()
    )


def _pid1_env_says_container() -> bool:
    try:
        return b"container=" in Path("/proc/1/environ").read_bytes()
    except OSError:
        return False


def masked_proc() -> bool:
    """Whether something is mounted over a path below /proc (a container's masked paths)."""
    try:
        mounts = Path("/proc/self/mountinfo").read_text()
    except OSError:
        return False
    return any(line.split()[4].startswith("/proc/") for line in mounts.splitlines())


def _has_sys_admin() -> bool:
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return True
    for line in status.splitlines():
        if line.startswith("CapEff:"):
            return bool(int(line.split()[1], 16) & (1 << 21))  # CAP_SYS_ADMIN
    return True


def seccomp_filtered() -> bool:
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return False
    return any(line.split() == ["Seccomp:", "2"] for line in status.splitlines())


def hints(launcher_error: str) -> list[str]:
    """What to change, for a launcher that failed with ``launcher_error`` in a container."""
    found: list[str] = []
    error = launcher_error.lower()
    try:
        userns = int(Path("/proc/sys/user/max_user_namespaces").read_text())
    except (OSError, ValueError):
        userns = -1
    if userns == 0 and os.geteuid() != 0:
        found.append(USERNS_HINT)
    if os.geteuid() == 0 and "namespaces" in error and not _has_sys_admin():
        found.append(ROOT_HINT)
    proc_refused = "/proc" in error and masked_proc()
    refused = any(call in error for call in ("sethostname", "unshare", "mount"))
    if seccomp_filtered() and refused and not proc_refused:
        found.append(SECCOMP_HINT)
    if masked_proc() and (proc_refused or not found):
        found.append(PROC_HINT)
    return found
