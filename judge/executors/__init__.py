"""Where matches run, chosen by one option: see :mod:`judge.executors.base`.

| ``--executor``     | implementation                                                |
|--------------------|---------------------------------------------------------------|
| ``inproc``         | this trio judge (the default)                                  |
| ``local``          | one judge process per core (trio-parallel)                     |
| ``dask://H:P``     | the workers of the Dask scheduler at H:P                       |
| ``dask-local``     | a Dask LocalCluster started for the run, one worker per core  |
"""

from __future__ import annotations

from judge.executors.base import Executor, ExecutorError, LineSink, MatchJob, ResultCallback
from judge.sandbox import Sandbox

EXECUTORS = ("inproc", "local", "dask://HOST:PORT", "dask-local")


def check_executor(name: str) -> str:
    """The name if it names an executor, else ValueError saying which exist."""
    if name in ("inproc", "local", "dask-local"):
        return name
    if name.startswith(("dask://", "tcp://")):
        host = name.split("://", 1)[1]
        if not host or host.startswith(":"):
            raise ValueError(f"{name!r}: a Dask scheduler address needs a host (dask://HOST:8786)")
        return name
    raise ValueError(f"unknown executor {name!r} (choose from {', '.join(EXECUTORS)})")


def open_executor(
    name: str,
    *,
    sandbox: Sandbox | None = None,
    concurrency: int | None = None,
    min_layer: str | None = None,
) -> Executor:
    """The executor ``name`` names (not open yet: use it in ``async with``).

    ``sandbox`` is this process's sandbox (inproc only; the others probe their own, or use
    its layer); ``concurrency`` bounds the matches at once (inproc: the matches, local: the
    worker processes); ``min_layer`` is the weakest sandbox a remote worker may use.
    """
    check_executor(name)
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
    address = name if name.startswith("tcp://") else "tcp://" + name.split("://", 1)[1]
    return DaskExecutor(address, min_layer=min_layer)


__all__ = [
    "EXECUTORS",
    "Executor",
    "ExecutorError",
    "LineSink",
    "MatchJob",
    "ResultCallback",
    "check_executor",
    "open_executor",
]
