"""``judge scheduler`` and ``judge worker``: Dask's own scheduler and workers, started with the
settings the judge's matches need (docs/scaling.md says why each), TLS when given files."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from judge.commands.cluster_options import cluster_options
from judge.sandbox.base import LAYERS

if TYPE_CHECKING:
    from judge.executors.cluster import ClusterTLS

# Dask's configuration as environment variables, which its processes (and the worker
# processes a nanny starts) read at their start.
SCHEDULER_SETTINGS = {
    # A worker gets its next match while one runs: no round trip between two matches.
    "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "inf",
    # Every worker keeps its copy of every bot box (else matches crowd onto one worker).
    "DASK_DISTRIBUTED__SCHEDULER__ACTIVE_MEMORY_MANAGER__START": "False",
    "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
}
WORKER_SETTINGS = {
    # The statistical profiler costs ~8 % of a match's judge; the watchdog wakes the loop.
    "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
    "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
}
DEFAULT_PORT = 8786


def _tls_args(tls: ClusterTLS | None, insecure: bool, what: str) -> list[str]:
    """Dask's TLS options for these files, or [] when the operator chose plain TCP."""
    if tls is None:
        if not insecure:
            raise click.UsageError(
                f"a {what} without TLS lets anyone who reaches it run code on the workers: "
                "give --tls-ca, --tls-cert and --tls-key (docs/scaling.md), or pass "
                "--insecure-cluster on a network where every host is trusted"
            )
        return []
    return [
        "--protocol",
        "tls",
        "--tls-ca-file",
        str(tls.ca),
        "--tls-cert",
        str(tls.cert),
        "--tls-key",
        str(tls.key),
    ]


def _exec_dask(role: str, args: list[str], settings: dict[str, str], tls: bool) -> None:
    """Replaces this process by Dask's own ``dask ROLE`` (signals and exit status are its)."""
    env = {**os.environ, **settings}
    if tls:
        # Nothing of this cluster falls back to plain TCP.
        env["DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION"] = "True"
    argv = [sys.executable, "-m", f"distributed.cli.dask_{role}", *args]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, argv, env)


def _check_sandbox(layer: str | None) -> None:
    """Fail closed, as `judge serve` does: workers play other people's bots, so below the
    namespaces layer only when the operator names the layer."""
    from judge.sandbox import SandboxError
    from judge.sandbox.probe import probe
    from judge.sandbox.select import default_sandbox, weakness

    try:
        chosen = default_sandbox(layer).layer
    except SandboxError as exc:
        raise click.UsageError(str(exc)) from None
    named = layer or os.environ.get("BOTJUDGE_SANDBOX")
    warning = weakness(chosen)
    if warning and named != chosen:
        reason = probe().reasons.get("namespaces", "")
        raise click.UsageError(
            f"refusing to play matches with {warning}: {reason}; install what the namespaces "
            f"layer needs, or pass --sandbox {chosen} to run bots this way anyway"
        )
    if warning:
        click.secho(f"warning: {warning}", fg="yellow", err=True)


@click.command("scheduler")
@click.option("--host", default="", help="address to listen on [default: every interface]")
@click.option("--port", type=click.IntRange(1, 65535), default=DEFAULT_PORT, show_default=True)
@cluster_options
def scheduler_command(
    host: str, port: int, tls: ClusterTLS | None = None, insecure_cluster: bool = False
) -> None:
    """Start a Dask scheduler for the judge's matches (workers: `judge worker`)."""
    args = [*_tls_args(tls, insecure_cluster, "scheduler"), "--port", str(port), "--no-dashboard"]
    if host:
        args += ["--host", host]
    _exec_dask("scheduler", args, SCHEDULER_SETTINGS, tls is not None)


@click.command("worker")
@click.argument("scheduler")
@click.option(
    "--nworkers",
    type=click.IntRange(1, 1024),
    default=None,
    help="worker processes, each playing one match at a time [default: one per core]",
)
@click.option(
    "--sandbox",
    "layer",
    type=click.Choice(LAYERS),
    default=None,
    help="isolation layer for bots (default: the strongest available; see judge sandbox)",
)
@click.option("--host", default="", help="address the workers listen on and advertise")
@click.option("--name", default="", help="a name for these workers (default: Dask's)")
@cluster_options
def worker_command(
    scheduler: str,
    nworkers: int | None,
    layer: str | None,
    host: str,
    name: str,
    tls: ClusterTLS | None = None,
    insecure_cluster: bool = False,
) -> None:
    """Start worker processes that play the judge's matches for the Dask SCHEDULER
    (tls://HOST:8786; a bare HOST:PORT is TLS when given the files)."""
    from judge.executors.cluster import scheduler_address

    address = scheduler if "://" in scheduler else f"dask://{scheduler}"
    if not address.startswith(("dask://", "tls://", "tcp://")):
        raise click.BadParameter(
            f"{scheduler}: not a Dask scheduler address", param_hint="SCHEDULER"
        )
    tls_args = _tls_args(tls, insecure_cluster, "worker")
    try:
        address = scheduler_address(address, tls, insecure_cluster)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="SCHEDULER") from None
    _check_sandbox(layer)
    from judge.cpus import allowed_cpus

    workers = nworkers or len(allowed_cpus())
    settings = dict(WORKER_SETTINGS)
    if layer is not None:
        settings["BOTJUDGE_SANDBOX"] = layer
    args = [
        address,
        *tls_args,
        "--nworkers",
        str(workers),
        "--nthreads",
        "1",
        "--resources",
        "match=1",
        "--no-dashboard",
    ]
    if host:
        args += ["--host", host]
    if name:
        args += ["--name", name]
    _exec_dask("worker", args, settings, tls is not None)


@click.command("cluster-certs")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--days", type=click.IntRange(1, 3650), default=825, show_default=True)
def certs_command(directory: Path, days: int) -> None:
    """Write a new CA and a certificate for the members of one Dask cluster into DIRECTORY."""
    from judge.executors.cluster import CA_KEY_FILE, make_certificates

    if any((directory / name).exists() for name in ("ca.pem", "cluster.pem", "cluster.key")):
        raise click.UsageError(f"{directory} already holds cluster certificates")
    tls = make_certificates(directory, days)
    click.echo(
        f"--tls-ca {tls.ca} --tls-cert {tls.cert} --tls-key {tls.key}\n"
        f"(keep {directory / CA_KEY_FILE} off the cluster: it signs new members)"
    )


COMMANDS = [scheduler_command, worker_command, certs_command]
