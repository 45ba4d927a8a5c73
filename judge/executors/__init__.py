"""Where matches run, chosen by one option: see :mod:`judge.executors.base`.

| ``--executor``     | implementation                                                |
|--------------------|---------------------------------------------------------------|
| ``inproc``         | this trio judge (the default)                                  |
| ``local``          | one judge process per core (trio-parallel)                     |
| ``tls://H:P``      | the workers of the Dask scheduler at H:P, mutual TLS           |
| ``dask://H:P``     | the same (TLS with credentials; plain TCP only if insecure)    |
| ``dask-local``     | a Dask LocalCluster started for the run, one worker per core  |
"""

from __future__ import annotations

from judge.executors.base import Executor, ExecutorError, LineSink, MatchJob, ResultCallback
from judge.executors.cluster import ClusterTLS, scheduler_address
from judge.sandbox import Sandbox

EXECUTORS = ("inproc", "local", "tls://HOST:PORT", "dask://HOST:PORT", "dask-local")
CLUSTER_SCHEMES = ("dask://", "tls://", "tcp://")


def check_executor(
    name: str, *, tls: ClusterTLS | None = None, insecure_cluster: bool = False
) -> str:
    """The name if it names an executor the judge may use, else ValueError saying why: an
    unknown name, or a remote cluster without authentication (see judge.executors.cluster)."""
    if name in ("inproc", "local", "dask-local"):
        return name
    if name.startswith(CLUSTER_SCHEMES):
        host = name.split("://", 1)[1]
        if not host or host.startswith(":"):
            raise ValueError(f"{name!r}: a Dask scheduler address needs a host (tls://HOST:8786)")
        scheduler_address(name, tls, insecure_cluster)
        return name
    raise ValueError(f"unknown executor {name!r} (choose from {', '.join(EXECUTORS)})")


def open_executor(
    name: str,
    *,
    sandbox: Sandbox | None = None,
    concurrency: int | None = None,
    min_layer: str | None = None,
    tls: ClusterTLS | None = None,
    insecure_cluster: bool = False,
) -> Executor:
    """The executor ``name`` names (not open yet: use it in ``async with``).

    ``sandbox`` is this process's sandbox (inproc only; the others probe their own, or use
    its layer); ``concurrency`` bounds the matches at once (inproc: the matches, local: the
    worker processes); ``min_layer`` is the weakest sandbox a remote worker may use; ``tls``
    the files this client proves itself with to a remote cluster, ``insecure_cluster`` lets it
    use one over plain TCP.
    """
    check_executor(name, tls=tls, insecure_cluster=insecure_cluster)
    layer = sandbox.layer if sandbox is not None else None
    if name == "inproc":
        from judge.executors.inproc import InProcessExecutor

        return InProcessExecutor(sandbox=sandbox, concurrency=concurrency)
    if name == "local":
        from judge.executors.local import LocalExecutor

        return LocalExecutor(workers=concurrency, sandbox_layer=layer)
    from judge.executors.dask import DaskExecutor

    if name == "dask-local":
        return DaskExecutor(
            None, local_workers=concurrency, sandbox_layer=layer, min_layer=min_layer
        )
    address = scheduler_address(name, tls, insecure_cluster)
    return DaskExecutor(
        address,
        min_layer=min_layer,
        security=tls.security() if tls is not None else None,
        insecure=insecure_cluster,
    )


__all__ = [
    "CLUSTER_SCHEMES",
    "EXECUTORS",
    "ClusterTLS",
    "Executor",
    "ExecutorError",
    "LineSink",
    "MatchJob",
    "ResultCallback",
    "check_executor",
    "open_executor",
]
