"""Who may talk to the judge's Dask cluster: only its members (mutual TLS), else nobody runs
anything on the workers. Attacks come from a separate process with a real distributed Client,
as another local user's would; the same client with the cluster's credentials gets through,
so a refusal is the TLS, not a broken client."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.executors import MatchJob, check_executor
from judge.executors.cluster import ClusterTLS, make_certificates
from judge.executors.dask import DaskExecutor
from tests.conftest import builtin, rps_spec

pytestmark = pytest.mark.timeout(240)

# Connects to a scheduler and asks it to run a function that writes a file on a worker.
ATTACK = """
import pathlib, sys
from distributed import Client, Security

address, marker, ca, cert, key = sys.argv[1:6]
security = None
if ca:
    security = Security(tls_ca_file=ca, tls_client_cert=cert, tls_client_key=key,
                        require_encryption=True)

def plant(path):
    pathlib.Path(path).write_text("ran")
    return "ran"

try:
    with Client(address, timeout=5, security=security) as client:
        print(client.submit(plant, marker, pure=False).result(timeout=60))
except Exception as exc:
    print("refused:", type(exc).__name__)
"""


def attack(address: str, marker: Path, tls: ClusterTLS | None = None) -> str:
    files = [str(tls.ca), str(tls.cert), str(tls.key)] if tls else ["", "", ""]
    proc = subprocess.run(
        [sys.executable, "-c", ATTACK, address, str(marker), *files],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return proc.stdout.strip() or proc.stderr.strip()[-300:]


def credentials_of(security: object, directory: Path) -> ClusterTLS:
    """A temporary Security's in-memory PEM texts as files a separate client can load."""
    directory.mkdir()
    paths = {}
    for name in ("tls_ca_file", "tls_client_cert", "tls_client_key"):
        paths[name] = directory / name
        paths[name].write_text(getattr(security, name))
    return ClusterTLS(paths["tls_ca_file"], paths["tls_client_cert"], paths["tls_client_key"])


async def test_dask_local_runs_nothing_for_a_client_without_its_certificates(
    tmp_path: Path,
) -> None:
    stranger = make_certificates(tmp_path / "stranger")  # a valid certificate of another CA
    async with DaskExecutor(None, local_workers=1) as executor:
        address = executor.cluster.scheduler_address
        assert address.startswith("tls://127.0.0.1:"), address
        plain = "tcp://" + address.split("://", 1)[1]
        for n, (where, tls) in enumerate([(address, None), (plain, None), (address, stranger)]):
            marker = tmp_path / f"planted-{n}"
            outcome = attack(where, marker, tls)
            assert outcome.startswith("refused"), (where, tls, outcome)
            assert not marker.exists()
        # The same client with the cluster's own credentials is let in: the refusals above
        # are the cluster's, not a client that cannot work.
        member = credentials_of(executor.security, tmp_path / "member")
        assert attack(address, tmp_path / "planted-member", member) == "ran"
        assert (tmp_path / "planted-member").read_text() == "ran"
        # and the judge's own matches still play on it
        result = await executor.run(
            MatchJob(rps_spec(builtin("rps", "rock"), builtin("rps", "paper"), turns=3))
        )
        assert result.turns == 3


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def judge(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        **kwargs,  # type: ignore[call-overload]
    )


@contextlib.contextmanager
def started(argv: list[str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "judge.cli", *argv],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def wait_for(log: Path, text: str, proc: subprocess.Popen[bytes], seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while text not in log.read_text(errors="replace"):
        assert proc.poll() is None, log.read_text(errors="replace")[-2000:]
        assert time.monotonic() < deadline, log.read_text(errors="replace")[-2000:]
        time.sleep(0.2)


def test_judge_scheduler_and_worker_speak_only_tls_to_members(tmp_path: Path) -> None:
    made = judge("cluster-certs", str(tmp_path / "certs"))
    assert made.returncode == 0, made.stderr
    tls = ClusterTLS(*(tmp_path / "certs" / f for f in ("ca.pem", "cluster.pem", "cluster.key")))
    assert oct(tls.key.stat().st_mode & 0o777) == "0o600"
    files = ["--tls-ca", str(tls.ca), "--tls-cert", str(tls.cert), "--tls-key", str(tls.key)]
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    scheduler_log, worker_log = tmp_path / "scheduler.log", tmp_path / "worker.log"
    with started(
        ["scheduler", "--host", "127.0.0.1", "--port", str(port), *files], scheduler_log
    ) as sched:
        wait_for(scheduler_log, address, sched)
        with started(
            ["worker", f"127.0.0.1:{port}", "--nworkers", "1", *files], worker_log
        ) as work:
            wait_for(scheduler_log, "Register worker", work)
            # The judge's settings reach the worker processes (one match each).
            played = judge(
                "tourney", "rps", "rock", "paper", "--turns", "5", "--seed", "3", "--json",
                "--replays", str(tmp_path / "replays"), "--executor", address, *files,
            )  # fmt: skip
            assert played.returncode == 0, played.stderr
            assert json.loads(played.stdout)["standings"][0]["name"] == "paper"
            for n, where in enumerate([address, f"tcp://127.0.0.1:{port}"]):
                assert attack(where, tmp_path / f"planted-{n}").startswith("refused")
                assert not (tmp_path / f"planted-{n}").exists()
            assert attack(address, tmp_path / "planted-member", tls) == "ran"
    text = worker_log.read_text()
    assert "tls://" in text and "tcp://" not in text


def test_an_unauthenticated_cluster_is_refused_unless_the_operator_says_so(
    tmp_path: Path,
) -> None:
    tls = make_certificates(tmp_path / "certs")
    port = free_port()
    with pytest.raises(ValueError, match="refusing an unauthenticated Dask cluster"):
        check_executor(f"dask://127.0.0.1:{port}")
    with pytest.raises(ValueError, match="refusing an unauthenticated"):
        check_executor(f"tcp://127.0.0.1:{port}", tls=tls)
    with pytest.raises(ValueError, match="needs the CA and a client certificate"):
        check_executor(f"tls://127.0.0.1:{port}")
    assert check_executor(f"tls://127.0.0.1:{port}", tls=tls)
    assert check_executor(f"dask://127.0.0.1:{port}", tls=tls)  # TLS, given credentials
    assert check_executor(f"dask://127.0.0.1:{port}", insecure_cluster=True)
    tourney = ["tourney", "rps", "rock", "paper", "--turns", "3", "--replays", str(tmp_path / "r")]
    refused = judge(*tourney, "--executor", f"dask://127.0.0.1:{port}")
    assert refused.returncode == 2 and "--insecure-cluster" in refused.stderr, refused.stderr
    half = judge(*tourney, "--executor", f"tls://127.0.0.1:{port}", "--tls-ca", str(tls.ca))
    assert half.returncode == 2 and "needs all three" in half.stderr, half.stderr
    # Said: it goes on to connect (nothing listens there).
    said = judge(*tourney, "--executor", f"dask://127.0.0.1:{port}", "--insecure-cluster")
    assert said.returncode == 1 and "cannot reach the Dask scheduler" in said.stderr
    for role in (["scheduler"], ["worker", f"127.0.0.1:{port}"]):
        bare = judge(*role)
        assert bare.returncode == 2 and "without TLS" in bare.stderr, bare.stderr
