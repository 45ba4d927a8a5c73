"""The options of every command that talks to a Dask cluster (judge.executors.cluster)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import click


def cluster_options(command: Any) -> Any:
    """The options saying how to talk to a Dask cluster: ``--tls-ca``, ``--tls-cert`` and
    ``--tls-key`` (also from $BOTJUDGE_TLS_CA, ...), passed on as ``tls`` (a ClusterTLS or
    None), and ``--insecure-cluster`` (plain TCP, no authentication)."""

    @functools.wraps(command)
    def wrapper(
        *args: Any,
        tls_ca: Path | None,
        tls_cert: Path | None,
        tls_key: Path | None,
        insecure_cluster: bool,
        **kwargs: Any,
    ) -> Any:
        from judge.executors.cluster import ClusterTLS

        try:
            tls = ClusterTLS.from_options(tls_ca, tls_cert, tls_key)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        return command(*args, tls=tls, insecure_cluster=insecure_cluster, **kwargs)

    path = click.Path(dir_okay=False, path_type=Path)
    options = [
        click.option(
            "--tls-ca",
            type=path,
            envvar="BOTJUDGE_TLS_CA",
            help="the cluster's CA certificate (PEM): every peer must be signed by it",
        ),
        click.option(
            "--tls-cert",
            type=path,
            envvar="BOTJUDGE_TLS_CERT",
            help="this member's certificate (PEM), signed by the CA",
        ),
        click.option(
            "--tls-key", type=path, envvar="BOTJUDGE_TLS_KEY", help="its private key (PEM)"
        ),
        click.option(
            "--insecure-cluster",
            "insecure_cluster",
            is_flag=True,
            envvar="BOTJUDGE_INSECURE_CLUSTER",
            help="allow a Dask cluster over plain TCP without authentication (anyone who "
            "reaches it runs code on the workers): only on a network where every host is trusted",
        ),
    ]
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper
