"""``judge serve``: the service and the ASGI app in one trio nursery.

anycorn (an anyio fork of hypercorn) serves the app: hypercorn 0.18's trio worker exits on
one malformed websocket upgrade (hypercorn#225), so hypercorn is not used; anycorn survives
it, but must be stopped through its ``shutdown_trigger``, never by cancelling it, so
shutdown is an event here.
"""

from __future__ import annotations

import signal
import socket
import sys
from collections.abc import Callable

import anyio
import trio
from anycorn import Config, serve

from judge import logs
from judge.sandbox import Sandbox
from judge.server.app import build_app
from judge.server.config import ServerConfig
from judge.server.db import storage_for
from judge.server.service import Service

log = logs.get_logger("judge.server")


def _anycorn_config(config: ServerConfig) -> Config:
    cfg = Config()
    host = f"[{config.host}]" if ":" in config.host else config.host
    cfg.bind = [f"{host}:{config.port}"]
    cfg.accesslog = None
    cfg.errorlog = None
    cfg.graceful_timeout = 3.0
    # Also the time a client has to send a request's headers: slow headers hold a
    # connection at most this long (a slow body: app.BodyLimit).
    cfg.keep_alive_timeout = 10.0
    cfg.h11_max_incomplete_size = 64 * 1024
    cfg.websocket_max_message_size = 1024
    cfg.include_server_header = False
    return cfg


async def run_server(
    config: ServerConfig,
    *,
    sandbox: Sandbox | None = None,
    announce: Callable[[str], None] = print,
    stop: trio.Event | None = None,
) -> None:
    """Serve until SIGINT/SIGTERM (or ``stop``); then stop accepting, end streams, stop matches."""
    stop = trio.Event() if stop is None else stop
    if config.port:
        # Fail before anything starts: anycorn's own bind error arrives tangled with its
        # lifespan task's cancellation.
        _check_bindable(config.host, config.port)
    service = Service(config, storage_for(config.db_url), sandbox)
    await service.open()
    streams_end = anyio.Event()
    app = build_app(service, shutdown=streams_end)
    try:
        if service.admin_token:
            announce(f"admin token (shown once, keep it): {service.admin_token}")
        async with trio.open_nursery() as nursery:
            await nursery.start(service.run)

            async def shutdown_trigger() -> None:
                await stop.wait()
                streams_end.set()

            served = trio.Event()

            async def serve_http(task_status: trio.TaskStatus[list[str]]) -> None:
                try:
                    await serve(
                        app,  # type: ignore[arg-type]
                        _anycorn_config(config),
                        shutdown_trigger=shutdown_trigger,
                        task_status=task_status,  # type: ignore[arg-type]
                    )
                finally:
                    served.set()

            binds = await nursery.start(serve_http)
            for bind in binds:
                announce(f"listening on {bind}")
            announce(f"sandbox: {service.sandbox.describe()}")
            announce(f"executor: {service.ctx.executor.describe()}")
            announce(f"database: {config.db_url.split('://', 1)[0]}")
            with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:

                async def on_signal() -> None:
                    async for _ in signals:
                        stop.set()
                        return

                nursery.start_soon(on_signal)
                await stop.wait()
                # anycorn returns once its connections are drained; then the matches stop
                # (their rows stay 'running' and are re-run on the next start).
                with trio.move_on_after(10):
                    await served.wait()
                nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await service.close()


def _check_bindable(host: str, port: int) -> None:
    for family, kind, proto, _, address in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
        return


def main(config: ServerConfig, sandbox: Sandbox | None = None) -> None:
    def announce(line: str) -> None:
        print(line, flush=True)

    try:
        trio.run(lambda: run_server(config, sandbox=sandbox, announce=announce))
    except* RuntimeError as group:  # storage that cannot be used (newer schema, ...)
        print(f"judge serve: {group.exceptions[0]}", file=sys.stderr)
        raise SystemExit(1) from None
    except* OSError as group:
        exc = group.exceptions[0]
        assert isinstance(exc, OSError)
        where = exc.filename or f"{config.host}:{config.port}"
        print(f"judge serve: {where}: {exc.strerror or exc}", file=sys.stderr)
        raise SystemExit(1) from None
