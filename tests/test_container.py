"""The image and the manifest, built and run on this machine (docs/deploy.md): a Debian
bookworm root file system made with mmdebstrap (no image registry is reachable) imported as
debian:bookworm-slim, deploy/Containerfile built unchanged, the README match and the hostile
suite's key cases run inside it at the namespaces layer without --privileged, and
deploy/judge.yaml played with `podman kube play` until a ladder match played by a worker is
recorded in PostgreSQL.

The engine's settings for this kind of machine (runc, cgroupfs, ulimits within the host's hard
limits) are in a containers.conf of the test's own (CONTAINERS_CONF), not in the image or the
manifest. The root file system is kept between runs, and podman's layer cache keeps the image:
a second run rebuilds only what changed."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
CACHE = Path(os.environ.get("BOTJUDGE_CONTAINER_CACHE", "/var/cache/botjudge-container-test"))
IMAGE = "localhost/botjudge:latest"
BASE = "docker.io/library/debian:bookworm-slim"
MMDEBSTRAP = ["mmdebstrap", "--variant=minbase", "--mode=root", "--format=tar", "bookworm"]
# The two options docs/deploy.md gives, and nothing else: no --privileged, no capability.
SANDBOX = [
    "--security-opt",
    f"seccomp={DEPLOY / 'botjudge-seccomp.json'}",
    "--security-opt",
    "unmask=/proc/*",
]
# tests/test_hostile.py's key cases: network, the judge's socket, files outside the box, a
# daemon outliving the match, ptrace and signals to the judge (the fork bomb's case skips for
# a non-root judge, which has no uid per bot to bound it), started cold and warm. (The forked
# start's cases check how many bots the fork server forked, which counts the built-ins too
# for the image's non-root judge: that count fails there, not the containment.)
HOSTILE_CASES = (
    "test_tcp_to_the_judges_listener or test_unix_socket_of_the_judge or "
    "test_resolve_and_connect_outside or test_secret_other_boxes_and_writes_outside or "
    "test_daemon_that_tries_to_outlive_the_match or "
    "test_ptrace_the_judge or test_signal_the_judge"
)

pytestmark = pytest.mark.timeout(1500)


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "the container test builds root file systems and runs podman as root"
    for tool in ("podman", "runc", "mmdebstrap"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (.ci/run installs it)"
    return None


if (why := _missing()) is not None:
    pytest.skip(why, allow_module_level=True)


def run(argv: list[str], env: dict[str, str], timeout: float = 900, check: bool = True) -> str:
    proc = subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{' '.join(argv[:6])}... exit {proc.returncode}\n{proc.stdout[-3000:]}\n"
            f"{proc.stderr[-3000:]}"
        )
    return proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def engine() -> dict[str, str]:
    """podman's environment here: runc (crun refuses this hybrid cgroup layout), cgroupfs,
    and ulimits no higher than the host's hard limits (podman's defaults are above them)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    nproc = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    nofile = min(nofile, 65536) if nofile != resource.RLIM_INFINITY else 65536
    # (runc could not set nproc much above 4096 here, below the hard limit: conmon's own)
    nproc = min(nproc, 4096) if nproc != resource.RLIM_INFINITY else 4096
    conf = CACHE / "containers.conf"
    conf.write_text(
        "[containers]\n"
        f'default_ulimits = ["nofile={nofile}:{nofile}", "nproc={nproc}:{nproc}"]\n'
        "[engine]\n"
        'runtime = "runc"\n'
        'cgroup_manager = "cgroupfs"\n'
    )
    return {**os.environ, "CONTAINERS_CONF": str(conf)}


def _key(*files: Path) -> str:
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


@pytest.fixture(scope="module")
def image(engine: dict[str, str]) -> str:
    rootfs_key = hashlib.sha256(" ".join(MMDEBSTRAP).encode()).hexdigest()[:12]
    have = run(["podman", "images", "--format", "{{.Labels}}", BASE], engine, check=False)
    if f"botjudge.rootfs:{rootfs_key}" not in have:
        tar = CACHE / f"bookworm-{rootfs_key}.tar"
        if not tar.exists():
            partial = tar.with_suffix(".partial")
            run([*MMDEBSTRAP, str(partial)], engine, timeout=900)
            partial.rename(tar)
        run(
            ["podman", "import", "--change", f"LABEL botjudge.rootfs={rootfs_key}",
             "--change", 'CMD ["bash"]', str(tar), BASE],
            engine,
        )  # fmt: skip
    build = ["podman", "build", "--pull=never", "-f", str(DEPLOY / "Containerfile")]
    build += ["--label", f"botjudge.key={_key(DEPLOY / 'Containerfile', ROOT / 'uv.lock')}"]
    # This machine reaches PyPI through a TLS-inspecting proxy whose CA is installed the
    # Debian way: the build sees it there (docs/deploy.md), the image keeps no copy of ours.
    cas = Path("/usr/local/share/ca-certificates")
    if cas.is_dir() and any(cas.iterdir()):
        build += ["-v", f"{cas}:{cas}:ro"]
    run([*build, "-t", IMAGE, str(ROOT)], engine, timeout=1200)
    return IMAGE


def judge_in(image: str, engine: dict[str, str], *args: str, options: list[str] = SANDBOX) -> str:
    return run(["podman", "run", "--rm", *options, image, *args], engine, timeout=300)


def test_the_readme_match_runs_in_the_image_at_namespaces(
    image: str, engine: dict[str, str]
) -> None:
    report = json.loads(judge_in(image, engine, "sandbox", "--json").splitlines()[-1])
    assert report["layers"]["namespaces"]["available"], report
    assert report["default"] in ("namespaces", "cgroups")
    out = judge_in(
        image, engine, "match", "rps", "rock", "predictor", "--seed", "7", "--json",
        "--min-sandbox", "namespaces", "--replay", "/tmp/out.replay",
    )  # fmt: skip
    result = json.loads(out.splitlines()[-1])
    assert [p["outcome"] for p in result["players"]] == ["ok", "ok"], result
    assert result["players"][result["winner"]]["name"] == "predictor", result
    # As its user, not root: no capability in the container at all.
    assert judge_in(image, engine, "--version", options=[]).startswith("judge")
    whoami = ["podman", "run", "--rm", "--entrypoint", "id", image, "-u"]
    assert run(whoami, engine).strip() == "1000"


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (SANDBOX[:2], "unmask=/proc/*"),  # the seccomp profile only
        (SANDBOX[2:], "botjudge-seccomp.json"),  # the unmasked /proc only
        (["--user", "0", *SANDBOX], "SYS_ADMIN"),  # root, without the capability
    ],
)
def test_judge_sandbox_names_the_missing_option(
    image: str, engine: dict[str, str], options: list[str], named: str
) -> None:
    report = json.loads(
        judge_in(image, engine, "sandbox", "--json", options=options).splitlines()[-1]
    )
    namespaces = report["layers"]["namespaces"]
    assert not namespaces["available"], report
    assert named in namespaces["detail"], namespaces["detail"]


def test_a_worker_refuses_to_play_below_namespaces_unless_told(
    image: str, engine: dict[str, str]
) -> None:
    argv = ["podman", "run", "--rm", image, "worker", "127.0.0.1:1", "--insecure-cluster"]
    proc = subprocess.run(argv, env=engine, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "refusing to play matches with sandbox layer 'base'" in proc.stderr
    assert "unmask" in proc.stderr  # and why the namespaces layer is missing


def test_a_root_judge_with_cap_sys_admin_isolates_bots_too(
    image: str, engine: dict[str, str]
) -> None:
    """The manifest's way: root, CAP_SYS_ADMIN, the engine's own seccomp and masks."""
    options = ["--user", "0", "--cap-add", "SYS_ADMIN"]
    report = json.loads(
        judge_in(image, engine, "sandbox", "--json", options=options).splitlines()[-1]
    )
    assert report["layers"]["namespaces"]["available"], report
    assert "uid per slot" in report["layers"]["namespaces"]["detail"]


def test_hostile_bots_are_contained_inside_the_image(image: str, engine: dict[str, str]) -> None:
    out = run(
        ["podman", "run", "--rm", *SANDBOX, "--entrypoint", "uv", image,
         "run", "--no-sync", "pytest", "tests/test_hostile.py",
         "-k", f"({HOSTILE_CASES}) and not forked",
         "-p", "no:cacheprovider", "-v", "-rs", "--timeout", "600"],
        engine, timeout=900,
    )  # fmt: skip
    passed = [line for line in out.splitlines() if "namespaces]" in line and "PASSED" in line]
    runs = {line.split("::", 1)[1].split(" ", 1)[0] for line in passed}
    for case in HOSTILE_CASES.split(" or "):
        for start in ("cold", "warm"):
            assert f"{case}[{start}-namespaces]" in runs, out[-4000:]
    assert not [line for line in out.splitlines() if "namespaces" in line and "SKIP" in line]
    assert " failed" not in out.splitlines()[-1], out[-4000:]


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    """deploy/judge.yaml as it is; before the server offers /api/health/live and /ready (being
    added beside this), its probes point at /api/health in this copy only."""
    text = (DEPLOY / "judge.yaml").read_text()
    served = "health/live" in "".join(
        p.read_text() for p in (ROOT / "judge" / "server").rglob("*.py")
    )
    if not served:
        text = text.replace("/api/health/live", "/api/health")
        text = text.replace("/api/health/ready", "/api/health")
    path = tmp_path / "judge.yaml"
    path.write_text(text)
    return path


@pytest.fixture
def played(manifest: Path, image: str, engine: dict[str, str]) -> Iterator[Path]:
    with socket.socket() as sock:
        if sock.connect_ex(("127.0.0.1", 8000)) == 0:
            pytest.fail("port 8000 of 127.0.0.1 is in use: the manifest's server needs it")
    down = ["podman", "kube", "down", str(manifest)]
    run(down, engine, check=False)
    for volume in ("botjudge-db", "botjudge-data"):
        run(["podman", "volume", "rm", "-f", volume], engine, check=False)
    try:
        run(["podman", "kube", "play", str(manifest)], engine, timeout=300)
        yield manifest
    finally:
        run(down, engine, check=False)
        for volume in ("botjudge-db", "botjudge-data"):
            run(["podman", "volume", "rm", "-f", volume], engine, check=False)


def test_the_manifest_plays_matches_on_its_workers_into_postgresql(
    played: Path, engine: dict[str, str]
) -> None:
    sql = "SELECT count(*) FROM matches WHERE status = 'finished'"
    psql = ["podman", "exec", "botjudge-db", "psql", "-h", "127.0.0.1", "-U", "judge", "judge"]
    deadline = time.monotonic() + 300
    finished = 0
    while time.monotonic() < deadline:
        out = run([*psql, "-tAc", sql], engine, check=False).strip()
        if out.isdigit() and int(out) > 0:
            finished = int(out)
            break
        time.sleep(3)
    server_log = run(["podman", "logs", "botjudge-server"], engine, check=False)
    assert finished > 0, server_log[-3000:]
    assert "admin token" in server_log
    assert "executor: dask tcp://127.0.0.1:8786 (2 match slots)" in server_log, server_log
    assert "sandbox: namespaces" in server_log or "sandbox: cgroups" in server_log, server_log
    # The workers played them, each in its own sandbox at namespaces or stronger.
    layers = run([*psql, "-tAc", "SELECT result FROM matches WHERE status = 'finished'"], engine)
    assert '"namespaces"' in layers or '"cgroups"' in layers, layers[:2000]
    with urllib.request.urlopen("http://127.0.0.1:8000/api/health", timeout=10) as answer:
        assert answer.status == 200
